// Pure view logic: grouping the stored transcript, sizes, the context meter, search. No DOM here,
// so it is unit-tested with Vitest.
import { CONFIG_SCHEMA } from "./configSchema";
import { AGENTS, CHARS_PER_TOKEN, type BreakCause, type CacheBreak, type CallCache, type CallComposition, type UsageRow, type CallDiff, type CallSummary, type MissingPart, type RequestSource, type CompactionView, type ModelCallRecord, type SessionSummary, type ContextMeter, type StoredMessage, type StoredView, type ToolCall, type WindowSource, type Trigger, type Strategy, type StrategyPreview, type SessionTotals } from "./bindings";

/** One row of the stored transcript. */
export type Row =
  | { kind: "message"; message: StoredMessage; results: Map<string, StoredMessage>; depth: number }
  | { kind: "group"; compaction: number; reason: string; count: number; chars: number; firstSeq: number; open: boolean; depth: number };

/** What a row shows for a tool call's result. */
export function resultsFor(view: StoredView): Map<string, StoredMessage[]> {
  const byCall = new Map<string, StoredMessage[]>();
  for (const m of view.messages) {
    if (m.role === "tool" && m.toolCallId) {
      const list = byCall.get(m.toolCallId) ?? [];
      list.push(m);
      byCall.set(m.toolCallId, list);
    }
  }
  return byCall;
}

/**
 * Stored-view rows: compacted messages grouped by the compaction that hid them (collapsed unless
 * `open` has its id), tool results folded into the assistant message that called them.
 */
export function storedRows(view: StoredView, open: Set<number>): Row[] {
  const compactions = new Map<number, CompactionView>(view.compactions.map((c) => [c.id, c]));
  const rows: Row[] = [];
  const results = resultsFor(view);
  const shownAsResult = new Set<number>();
  const pick = (m: StoredMessage): Map<string, StoredMessage> => {
    const map = new Map<string, StoredMessage>();
    for (const call of m.toolCalls) {
      const candidates = results.get(call.id) ?? [];
      // The result that sits in the same state (live / compacted) as the call.
      const match = candidates.find((r) => r.compacted === m.compacted && !shownAsResult.has(r.seq)) ?? candidates[0];
      if (match) {
        map.set(call.id, match);
        shownAsResult.add(match.seq);
      }
    }
    return map;
  };
  const messages = view.messages;
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (m.compacted && m.compactedBy !== null) {
      // A run of hidden messages can interleave records (an older checkpoint or a reduced original
      // inside a later span): each record's messages show as one group, in order of first appearance.
      const groups = new Map<number, StoredMessage[]>();
      while (i < messages.length && messages[i].compacted && messages[i].compactedBy !== null) {
        const by = messages[i].compactedBy as number;
        const list = groups.get(by) ?? [];
        list.push(messages[i]);
        groups.set(by, list);
        i++;
      }
      for (const [by, span] of groups) {
        const record = compactions.get(by);
        const isOpen = open.has(by);
        rows.push({
          kind: "group",
          compaction: by,
          reason: record ? `${record.kind === "reduction" ? "reduction" : "compaction"} · ${record.reason}` : "compaction",
          count: span.length,
          chars: span.reduce((n, x) => n + x.chars, 0),
          firstSeq: span[0].seq,
          open: isOpen,
          depth: 0,
        });
        if (isOpen) {
          for (const x of span) {
            if (x.role === "tool" && shownAsResult.has(x.seq)) continue;
            rows.push({ kind: "message", message: x, results: pick(x), depth: 1 });
          }
        }
      }
      continue;
    }
    if (!(m.role === "tool" && shownAsResult.has(m.seq))) {
      rows.push({ kind: "message", message: m, results: pick(m), depth: 0 });
    }
    i++;
  }
  // Results follow their call, so they were folded into it above; orphans stay as their own rows.
  return rows;
}

/** "12,345 chars" / "1.2 MB". */
export function formatChars(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M chars`;
  return `${n.toLocaleString("en-US")} chars`;
}

export function formatTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n.toLocaleString("en-US")} tokens`;
}

/** Where a window came from, as people read it. */
export function windowLabel(source: WindowSource | null): string {
  switch (source) {
    case "provider": return "provider.contextWindow";
    case "profile": return "the profile's contextWindow";
    case "models": return "GET /models";
    case "props": return "llama.cpp /props";
    case "ollama": return "Ollama /api/ps, /api/show";
    case "lmstudio": return "LM Studio /api/v0/models";
    case null: return "unknown";
  }
}

/** What the meter is drawn against, in words (the engine decides which limit: `limitTokens`). */
export function meterLimitLabel(m: ContextMeter): string {
  return m.windowTrusted ? `window ${formatTokens(m.limitTokens)} (${windowLabel(m.windowSource)})` : `maxContextChars / 4 = ${formatTokens(m.limitTokens)}`;
}

/** Seqs of messages matching `query` (case-insensitive) in content, tool names or arguments. */
export function searchMessages(messages: StoredMessage[], query: string): number[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return messages
    .filter(
      (m) =>
        m.content.toLowerCase().includes(q) ||
        m.toolCalls.some((c: ToolCall) => c.name.toLowerCase().includes(q) || c.arguments.toLowerCase().includes(q)),
    )
    .map((m) => m.seq);
}

/** Sessions matching a search (title, id or workspace). */
export function filterSessions<T extends { id: string; title: string; workspace: string }>(sessions: T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  if (!q) return sessions;
  return sessions.filter((s) => [s.title, s.id, s.workspace].some((field) => field.toLowerCase().includes(q)));
}

/** `/compact focus words` typed in the composer. */
export function parseSlashCompact(text: string): { focus: string | null } | null {
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const focus = (match[1] ?? "").trim();
  return { focus: focus.length ? focus : null };
}

/** Long outputs are collapsed past this many characters. */
export const COLLAPSE_AT = 1200;

export function preview(text: string, limit = COLLAPSE_AT): { text: string; hidden: number } {
  if (text.length <= limit) return { text, hidden: 0 };
  return { text: text.slice(0, limit), hidden: text.length - limit };
}

/** The seven checkpoint sections in order, with their headings. */
/** Estimated tokens for a number of characters, as the engine estimates them. */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A span of seqs in the order given (transcript order), as runs: "#11, #6–#10". */
export function formatSpan(seqs: number[]): string {
  const runs: Array<[number, number]> = [];
  for (const seq of seqs) {
    const last = runs[runs.length - 1];
    if (last && last[1] + 1 === seq) last[1] = seq;
    else runs.push([seq, seq]);
  }
  return runs.map(([a, b]) => (a === b ? `#${a}` : `#${a}–#${b}`)).join(", ");
}

/** Fixed-height-estimate prefix sums for the virtual list. */
export function offsets(heights: number[]): number[] {
  const out = new Array<number>(heights.length + 1);
  out[0] = 0;
  for (let i = 0; i < heights.length; i++) out[i + 1] = out[i] + heights[i];
  return out;
}

/** First index whose row ends below `top` (binary search over prefix sums). */
export function firstVisible(prefix: number[], top: number): number {
  let lo = 0;
  let hi = prefix.length - 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (prefix[mid + 1] <= top) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo);
}

/** The request-diff prefix bar: what request N shares with M, what it adds, what it dropped. */
export function prefixParts(d: CallDiff): { shared: number; added: number; dropped: number; total: number } {
  const shared = d.commonPrefixChars;
  return { shared, added: Math.max(0, d.newChars - shared), dropped: Math.max(0, d.againstChars - shared), total: Math.max(1, d.newChars + Math.max(0, d.againstChars - shared)) };
}

export type CacheVerdict = { status: "reused" | "missed" | "break" | "unknown"; expected: number; reported: number | null; label: string };

/**
 * What a prefix cache could reuse (the shared prefix, in estimated tokens) against what the server
 * reported as cached: a rewritten prefix is a break; a kept prefix the server did not reuse is a miss.
 */
export function cacheVerdict(d: CallDiff): CacheVerdict {
  const expected = d.commonPrefixTokens;
  const reported = d.cachedTokens;
  if (d.cacheBreak) {
    const where = d.firstDivergence.part === "messages" ? `message ${d.firstDivergence.index}` : d.firstDivergence.part;
    return { status: "break", expected, reported, label: `cache break at ${where}: ≈ ${expected} tokens reusable, ${reported ?? "?"} reported` };
  }
  if (reported === null) return { status: "unknown", expected, reported, label: `≈ ${expected} tokens reusable; the server reported no cached tokens` };
  const status = reported * 2 >= expected ? "reused" : "missed";
  return { status, expected, reported, label: `≈ ${expected} tokens reusable, ${reported} reported cached` };
}

/** One bar of the context chart: prompt tokens stacked cached / uncached, then completion. */
export type ChartBar = { n: number; cached: number; uncached: number; completion: number; cacheBreak: boolean };

/** The chart's vertical scale: the largest bar or the window, with headroom; never zero. */
export function chartMax(bars: ChartBar[], windowTokens: number | null): number {
  const tallest = Math.max(0, ...bars.map((b) => b.cached + b.uncached + b.completion));
  return Math.max(1, Math.ceil(Math.max(tallest, windowTokens ?? 0) * 1.08));
}

export function chartBars(calls: CallSummary[], cache: CallCache[]): ChartBar[] {
  const breaks = new Map(cache.map((c) => [c.n, c.cacheBreak]));
  return calls.map((c) => {
    const prompt = c.promptTokens ?? 0;
    const cached = Math.min(prompt, c.cachedTokens ?? 0);
    return { n: c.n, cached, uncached: prompt - cached, completion: c.completionTokens ?? 0, cacheBreak: breaks.get(c.n) ?? false };
  });
}

/**
 * A session's figures: the cache hit rate and token totals as the server reported them, the
 * compactions, and the tokens they saved (an estimate from characters, and labelled so).
 */
export function sessionFigures(s: SessionSummary): string[] {
  const out: string[] = [];
  if (s.promptTokens > 0) {
    out.push(`cache ${Math.round((100 * s.cachedTokens) / s.promptTokens)} % of ${formatTokens(s.promptTokens)} in`);
    out.push(`${formatTokens(s.completionTokens)} out`);
  }
  if (s.costUsd !== null) out.push(`${formatUsd(s.costUsd)}${s.unpricedCalls > 0 ? ` + ${s.unpricedCalls} unpriced` : ""}`);
  if (s.compactions > 0) out.push(`${s.compactions} compaction${s.compactions === 1 ? "" : "s"}`);
  if (s.savedChars > 0) out.push(`≈ ${formatTokens(tokensOf(s.savedChars))} saved (estimate)`);
  return out;
}

/**
 * `shown` followed by the messages of `fresh` that come after its last one in transcript order
 * (two appends racing each other never duplicate a message).
 */
export function appendAfter(shown: StoredMessage[], fresh: StoredMessage[]): StoredMessage[] {
  const tail = shown[shown.length - 1];
  if (!tail) return fresh;
  const later = fresh.filter((m) => m.anchor > tail.anchor || (m.anchor === tail.anchor && m.seq > tail.seq));
  return later.length ? [...shown, ...later] : shown;
}

/** Why an imported session cannot be run or compacted (null for Alisio's own sessions). */
export function readOnlyReason(s: { source?: string; sourcePath?: string } | null | undefined): string | null {
  if (!s?.source) return null;
  return `Imported from ${s.source}${s.sourcePath ? ` (${s.sourcePath})` : ""}: read-only. Run and compact work on Alisio's own sessions.`;
}

/** Short notes about an imported message from what its source recorded: exit codes, errors, origin. */
export function sourceNotes(m: { meta?: Record<string, unknown>; offView: boolean }): string[] {
  const meta = (m.meta ?? {}) as Record<string, unknown>;
  const exec = (meta.exec ?? {}) as Record<string, unknown>;
  const notes: string[] = [];
  if (meta.sidechain === true) notes.push("sub-agent");
  else if (m.offView) notes.push("not sent to the model");
  const exit = meta.exit ?? exec.exitCode;
  if (typeof exit === "number") notes.push(`exit ${exit}`);
  if (meta.isError === true || meta.status === "error") notes.push("tool error");
  if (meta.synthetic === true) notes.push("synthetic");
  if (meta.generated === true) notes.push("generated by the agent, not stored");
  if (meta.isMeta === true) notes.push("meta");
  if (typeof meta.attachment === "string") notes.push(`attachment: ${meta.attachment}`);
  if (typeof meta.role === "string") notes.push(`role: ${meta.role}`);
  return notes;
}

/**
 * The proposal editor's text with `value` added to `section` ("add to checkpoint"): appended to a
 * list section (once), to a text section on a new line; a plain-text checkpoint gets a new line.
 */
export function addToCheckpoint(text: string, section: string, value: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `${text.trimEnd()}\n- ${value}\n`;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return `${text.trimEnd()}\n- ${value}\n`;
  const sections = { ...(parsed as Record<string, unknown>) };
  const current = sections[section];
  if (Array.isArray(current)) {
    if (!current.includes(value)) sections[section] = [...current, value];
  } else if (typeof current === "string" && current.trim()) {
    if (!current.includes(value)) sections[section] = `${current}\n${value}`;
  } else {
    sections[section] = [value];
  }
  return JSON.stringify(sections, null, 2);
}

/** "0.75 · 3 of 4 kept" for a fidelity score. */
export function fidelityLabel(f: { score: number; checked: number; missing: unknown[] }): string {
  return `${f.score.toFixed(2)} · ${f.checked - f.missing.length} of ${f.checked} kept`;
}

/** The profile name a found server gets: what usually listens there, as a config key. */
export function profileName(server: { name: string }): string {
  return server.name.toLowerCase().replace(/[^a-z0-9]+/g, "");
}

/** `raw` (the settings document) with a profile for `server`, made active. */
export function withProfile(raw: Record<string, unknown>, server: { name: string; baseUrl: string; models: string[] }): Record<string, unknown> {
  const name = profileName(server);
  const profiles = { ...((raw.profiles as Record<string, unknown> | undefined) ?? {}) };
  profiles[name] = { baseUrl: server.baseUrl, model: server.models[0] ?? "default", apiKeyEnv: null };
  return { ...raw, profiles, activeProfile: name };
}

/** A settings document (the raw `config.json`), edited by the Settings forms. */
export type SettingsDoc = Record<string, unknown>;

/** The value at `path` in `doc` (undefined when any step is missing). */
export function getIn(doc: SettingsDoc, path: string[]): unknown {
  let at: unknown = doc;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * `doc` with `value` at `path` (objects on the way made as needed, the rest shared); `undefined`
 * removes the key, so the default applies again. `doc` itself is not changed.
 */
export function setIn(doc: SettingsDoc, path: string[], value: unknown): SettingsDoc {
  const [key, ...rest] = path;
  const next: SettingsDoc = { ...doc };
  if (rest.length === 0) {
    if (value === undefined) delete next[key];
    else next[key] = value;
    return next;
  }
  const child = doc[key];
  next[key] = setIn(child !== null && typeof child === "object" && !Array.isArray(child) ? (child as SettingsDoc) : {}, rest, value);
  return next;
}

/** A number field's text as a settings value: blank is "not set" (the default applies). */
export function numberValue(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

/** A node of the configuration's JSON schema. */
type SchemaNode = {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  anyOf?: SchemaNode[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  description?: string;
};

const SCHEMA = CONFIG_SCHEMA as unknown as SchemaNode & { $defs: Record<string, SchemaNode> };

function resolveNode(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node) return undefined;
  const ref = node.$ref?.replace("#/$defs/", "");
  if (ref) return { ...SCHEMA.$defs[ref], ...node, $ref: undefined };
  const alternative = node.anyOf?.map(resolveNode).find((n) => n && (n.properties || n.enum));
  return alternative ? { ...alternative, ...node, anyOf: undefined } : node;
}

/**
 * The schema of the key at `path` (a name under a map such as `profiles` or `mcpServers` stands
 * for any entry): where the settings forms read the engine's defaults, ranges and options.
 */
export function schemaAt(path: string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = resolveNode(SCHEMA);
  for (const key of path) {
    const properties: Record<string, SchemaNode> = node?.properties ?? {};
    const extra: SchemaNode | boolean | undefined = node?.additionalProperties;
    node = resolveNode(properties[key] ?? (typeof extra === "object" ? extra : undefined));
  }
  return node;
}

/** The engine's default for the key at `path`, as a form shows it ("none" for null). */
export function defaultHint(path: string[]): string {
  const value = schemaAt(path)?.default;
  return value === undefined || value === null ? "none" : String(value);
}

/** The allowed range of a number at `path` ("0.1–0.99"), or "" when it has none. */
export function rangeHint(path: string[]): string {
  const node = schemaAt(path);
  if (node?.minimum === undefined || node.maximum === undefined) return "";
  return `${node.minimum}–${node.maximum}`;
}

/** The values a key at `path` may take (an enum of the schema). */
export function optionsAt(path: string[]): string[] {
  return (schemaAt(path)?.enum ?? []).filter((v): v is string => typeof v === "string");
}

/** How a call's request body is known, as its badge says it. */
export function sourceBadge(source: RequestSource): { label: string; exact: boolean; title: string } {
  switch (source) {
    case "alisio":
      return { label: "exact", exact: true, title: "Sent by Alisio: the body is the one the server received" };
    case "agent-log":
      return { label: "exact", exact: true, title: "Rebuilt from the agent's own request log: the body it sent" };
    case "proxy":
      return { label: "exact", exact: true, title: "Captured by alisio proxy: the bytes the server received" };
    case "reconstructed":
      return { label: "reconstructed", exact: false, title: "Rebuilt from the agent's session records: parts it did not record are missing" };
  }
}

/** `codex` → "Codex": the agent a session came from, as people write it (the engine's table). */
export function agentName(source: string | null | undefined): string {
  if (source === "atif") return "an ATIF trajectory";
  if (source === "proxy") return "the proxy";
  return AGENTS.find((a) => a.source === source)?.name ?? "the agent";
}

const MISSING_PART: Record<string, string> = { system: "system prompt", tools: "tools", params: "options" };

/** "tools not recorded by Codex: ≈ 3.2k tokens". */
export function missingLabel(part: MissingPart, source: string | null | undefined): string {
  return `${MISSING_PART[part.part] ?? part.part} not recorded by ${agentName(source)}: ≈ ${formatTokens(part.estimatedTokens)}`;
}

/** The parts of a request, bottom to top in the composition chart, with their colours. */
export const COMPOSITION_PARTS: Array<{ part: string; label: string; color: string }> = [
  { part: "system", label: "system", color: "#8250df" },
  { part: "tools", label: "tools", color: "#bf8700" },
  { part: "checkpoint", label: "checkpoint", color: "#1a7f37" },
  { part: "injected", label: "injected", color: "#57606a" },
  { part: "user", label: "user", color: "#0969da" },
  { part: "assistant", label: "assistant", color: "#54aeff" },
  { part: "toolResults", label: "tool results", color: "#fb8f44" },
];

/** One segment of a composition bar; `missing` segments are estimates of parts not recorded. */
export type CompositionSegment = { part: string; tokens: number; missing: boolean };
export type CompositionBar = { n: number; purpose: string; exact: boolean; cacheBreak: boolean; segments: CompositionSegment[]; total: number };

/**
 * Per call, its tokens by part (system, tools by all their sources, checkpoint, injected context,
 * user, assistant, tool results), with each missing part's estimate stacked on its own part.
 */
export function compositionBars(rows: CallComposition[]): CompositionBar[] {
  return rows.map((r) => {
    const c = r.composition;
    const shown: Record<string, number> = {
      system: c.system.tokens,
      tools: c.tools.reduce((sum, t) => sum + t.tokens, 0),
      checkpoint: c.checkpoint.tokens,
      injected: c.injected.tokens,
      user: c.user.tokens,
      assistant: c.assistant.tokens,
      toolResults: c.toolResults.tokens,
    };
    const missing = new Map(r.missing.map((m) => [m.part, m.estimatedTokens]));
    const segments: CompositionSegment[] = [];
    for (const { part } of COMPOSITION_PARTS) {
      if (shown[part] > 0) segments.push({ part, tokens: shown[part], missing: false });
      const lacking = missing.get(part) ?? 0;
      if (lacking > 0) segments.push({ part, tokens: lacking, missing: true });
    }
    const total = segments.reduce((sum, s) => sum + s.tokens, 0);
    return { n: r.n, purpose: r.purpose, exact: r.exact, cacheBreak: r.cacheBreak, segments, total };
  });
}

/** USD as people read it: `$0.004213` under a dollar, `$12.35` from one on; `unpriced` for none. */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "unpriced";
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(6)}`;
}

const CAUSE: Record<BreakCause, string> = {
  system: "the system prompt changed",
  tools: "the tools changed",
  messages: "an earlier message changed",
  model: "the model changed",
  params: "the request's params changed",
  expired: "the cache expired between the calls",
  compaction: "a compaction rewrote the history",
  unknown: "the server reused less than it could (cause unknown)",
};

/** "the tools changed: 1,200 tokens processed again, $0.001800 (Claude Code says: …)". */
export function breakLabel(b: CacheBreak, agent = "Claude Code"): string {
  const said = b.agentReason ? ` (${agent} says: ${b.agentReason})` : "";
  return `${CAUSE[b.cause]}: ${b.lostTokens.toLocaleString("en-US")} tokens processed again, ${formatUsd(b.missCostUsd)}${said}`;
}

/** Cached over prompt tokens of the last `count` calls that reported usage; null without any. */
export function recentHitRate(calls: Array<{ promptTokens: number | null; cachedTokens: number | null }>, count: number): number | null {
  const reported = calls.filter((c) => c.promptTokens !== null && c.promptTokens > 0).slice(-count);
  const prompt = reported.reduce((sum, c) => sum + (c.promptTokens ?? 0), 0);
  if (prompt === 0) return null;
  return reported.reduce((sum, c) => sum + (c.cachedTokens ?? 0), 0) / prompt;
}

/** One day of the usage chart: its cost per series (a source or a model), stacked. */
export type UsageDay = { day: string; parts: Array<{ series: string; cost: number }>; total: number };

/** Per day, each series' cost (an unpriced series counts zero), days in order. */
export function stackedUsage(series: Array<{ series: string; rows: UsageRow[] }>): UsageDay[] {
  const days = new Map<string, UsageDay>();
  for (const s of series) {
    for (const row of s.rows) {
      const day = days.get(row.key) ?? { day: row.key, parts: [], total: 0 };
      const cost = row.costUsd ?? 0;
      day.parts.push({ series: s.series, cost });
      day.total += cost;
      days.set(row.key, day);
    }
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/**
 * What the search box sends to full-text search: a query with FTS5 syntax (quotes, `*`, AND / OR /
 * NOT, parentheses) as typed; plain words each as a prefix, so results come while typing.
 */
export function ftsQuery(text: string): string {
  const trimmed = text.trim();
  if (/["*()]|\b(AND|OR|NOT|NEAR)\b/.test(trimmed)) return trimmed;
  return trimmed
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `"${word.replace(/"/g, "")}"*`)
    .join(" ");
}

/** The checkpoints whose summary call is in the ledger, each with that call's number (1..n): where the charts mark a compaction. */
export function compactionMarkers(compactions: CompactionView[], calls: ModelCallRecord[]): Array<{ c: CompactionView; n: number }> {
  const callNumber = new Map(calls.map((c, i) => [c.id, i + 1]));
  return compactions
    .filter((c) => c.kind === "checkpoint" && c.modelCallId !== null && callNumber.has(c.modelCallId))
    .map((c) => ({ c, n: callNumber.get(c.modelCallId as number) as number }));
}

/** How the library groups sessions. */
export type LibraryGrouping = "project" | "agent" | "none";

/** The library's filters; `null` / `false` / `0` leave a filter off. */
export interface LibraryFilters {
  /** `"alisio"` for Alisio's own sessions, else an importer's source name. */
  agent: string | null;
  /** Only sessions active in the last this many days. */
  days: number | null;
  hasCompactions: boolean;
  /** Only sessions that cost at least this many dollars. */
  minCostUsd: number;
}

export const NO_LIBRARY_FILTERS: LibraryFilters = { agent: null, days: null, hasCompactions: false, minCostUsd: 0 };

/** One row of the library: a group's header or a session. */
export type LibraryRow =
  | { kind: "group"; key: string; label: string; count: number; collapsed: boolean; lastActivity: string }
  | { kind: "session"; key: string; session: SessionSummary };

/** The agent a session belongs to: its importer's source, or Alisio itself. */
export function agentOf(s: SessionSummary): string {
  return s.source ?? "alisio";
}

/**
 * The library's rows: the sessions that pass `filters` and the title filter `query`, grouped
 * (groups and sessions newest activity first; a collapsed group keeps its header alone).
 * Linear in the sessions but for sorting them.
 */
export function libraryRows(
  sessions: SessionSummary[],
  options: { grouping: LibraryGrouping; filters: LibraryFilters; query: string; collapsed: ReadonlySet<string>; now: number },
): LibraryRow[] {
  const { grouping, filters, collapsed, now } = options;
  const since = filters.days === null ? null : now - filters.days * 86_400_000;
  const kept = filterSessions(sessions, options.query).filter(
    (s) =>
      (filters.agent === null || agentOf(s) === filters.agent) &&
      (since === null || Date.parse(s.lastActivity) >= since) &&
      (!filters.hasCompactions || s.compactions > 0) &&
      (filters.minCostUsd <= 0 || (s.costUsd ?? 0) >= filters.minCostUsd),
  );
  const newest = (a: SessionSummary, b: SessionSummary) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0);
  kept.sort(newest);
  if (grouping === "none") return kept.map((s) => ({ kind: "session", key: s.id, session: s }));
  const groups = new Map<string, SessionSummary[]>();
  for (const s of kept) {
    const key = grouping === "agent" ? agentOf(s) : s.project || s.workspace || "(no project)";
    const list = groups.get(key);
    if (list) list.push(s);
    else groups.set(key, [s]);
  }
  const rows: LibraryRow[] = [];
  // Map order is first-seen order over sessions sorted newest first: groups come newest first.
  for (const [key, list] of groups) {
    const isCollapsed = collapsed.has(key);
    rows.push({ kind: "group", key: `group:${key}`, label: key, count: list.length, collapsed: isCollapsed, lastActivity: list[0].lastActivity });
    if (!isCollapsed) for (const s of list) rows.push({ kind: "session", key: s.id, session: s });
  }
  return rows;
}

/** The agents present among `sessions`, for the agent filter. */
export function libraryAgents(sessions: SessionSummary[]): string[] {
  return [...new Set(sessions.map(agentOf))].sort();
}

/** "3 min ago", "yesterday", "12 Nov": how long ago a session was last active. */
export function ago(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  const min = Math.floor(ms / 60_000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  const hours = Math.floor(min / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return new Date(iso).toLocaleDateString(undefined, { day: "numeric", month: "short", year: days > 300 ? "numeric" : undefined });
}

/** Why a compaction fired, in a sentence; "" for records made before it was kept. */
export function triggerText(trigger: Trigger | null | undefined): string {
  if (!trigger) return "";
  const tokens = trigger.promptTokens !== null ? `≈ ${formatTokens(trigger.promptTokens)}` : null;
  const at = trigger.threshold !== null ? `${Math.round(trigger.threshold * 100)} %` : null;
  const reached =
    tokens && trigger.window !== null
      ? `the request reached ${tokens} of ${formatTokens(trigger.window)} (${Math.round((100 * (trigger.promptTokens ?? 0)) / trigger.window)} %${at ? `; fires at ${at}` : ""})`
      : tokens
        ? `the conversation reached ${tokens}${at ? `, ${at} of limits.maxContextChars` : ""}`
        : null;
  switch (trigger.kind) {
    case "manual":
      return "asked for";
    case "threshold":
      return reached ?? "the threshold was crossed";
    case "budget":
      return `the hard limit (limits.maxContextChars)${tokens ? `: ${tokens} after reductions` : ""}`;
    case "overflow":
      return "the provider refused the request as too long";
    case "mask":
      return reached ? `masking: ${reached}` : "masking, asked for";
  }
}

/** The compaction dialog's name and one-line description of each strategy. */
export const STRATEGY_TEXT: Record<Strategy, { name: string; what: string }> = {
  native: { name: "Summary", what: "a checkpoint replaces all but the recent turns" },
  cache: { name: "Cache-compatible summary", what: "the live request is summarized by appending (its prefix read from cache), then all of it is cut" },
  mask: { name: "Mask", what: "old tool results become one-line placeholders; no model call" },
  hybrid: { name: "Hybrid", what: "mask first; summarize only if still over the threshold" },
};

/**
 * What a strategy would make of the next request: "≈ 12.3k → 4,100 tokens + a checkpoint ≤ 1,200",
 * or why it cannot run. The checkpoint is the one part only the model can size.
 */
export function strategyEffect(p: StrategyPreview): string {
  if (p.unavailable) return `not now: ${p.unavailable}`;
  const last = p.checkpointLastTokens !== null ? `; the last one was ${formatTokens(p.checkpointLastTokens)}` : "";
  const checkpoint = p.checkpointMaxTokens !== null ? ` + a checkpoint ≤ ${formatTokens(p.checkpointMaxTokens)}${last}` : "";
  return `≈ ${formatTokens(p.beforeTokens)} → ${formatTokens(p.afterTokens)}${checkpoint}`;
}

/** What a strategy touches: "summarizes 14 messages (the summarizer reads ≈ 9.1k tokens) · masks 6 tool results". */
export function strategyWork(p: StrategyPreview): string {
  const parts: string[] = [];
  if (p.masked > 0) parts.push(`masks ${p.masked} tool result${p.masked === 1 ? "" : "s"}`);
  if (p.summarizerTokens !== null) parts.push(`summarizes ${p.summarized} message${p.summarized === 1 ? "" : "s"} (the summarizer reads ${formatTokens(p.summarizerTokens)})`);
  if (p.summarizerTokens === null) parts.push("no model call");
  if (p.pinnedTokens > 0 && p.checkpointMaxTokens !== null) parts.push(`pins carried: ${formatTokens(p.pinnedTokens)}`);
  return parts.join(" · ");
}

/**
 * A sum of costs the engine gives in USD rounded to the micro-dollar, added in whole micro-dollars
 * (never as accumulated floats); null when none is priced.
 */
export function sumUsd(costs: Array<number | null>): number | null {
  const priced = costs.filter((c): c is number => c !== null);
  if (priced.length === 0) return null;
  return priced.reduce((micros, c) => micros + Math.round(c * 1e6), 0) / 1e6;
}

/** `text` cut to `max` characters with an ellipsis. */
export function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One row of the Compare table: both values as shown, the change from A to B, whether to draw bars. */
export type CompareRow = { label: string; a: number | string; b: number | string; text: [string, string]; delta: string; numeric: boolean; bar: boolean };

const signed = (n: number, show: (n: number) => string) => (n > 0 ? `+${show(n)}` : n < 0 ? `−${show(-n)}` : "0");

/**
 * The Compare table: calls, tokens, cost, compactions, each tool, the files each
 * touched. Cost deltas are taken in whole micro-dollars, never by subtracting floats.
 */
export function compareRows(a: SessionTotals, b: SessionTotals): CompareRow[] {
  const count = (label: string, x: number, y: number, bar = false): CompareRow => ({
    label,
    a: x,
    b: y,
    text: [x.toLocaleString("en-US"), y.toLocaleString("en-US")],
    delta: signed(y - x, (n) => n.toLocaleString("en-US")),
    numeric: true,
    bar,
  });
  const micros = (usd: number | null) => (usd === null ? null : Math.round(usd * 1e6));
  const [ca, cb] = [micros(a.costUsd), micros(b.costUsd)];
  const cost: CompareRow = {
    label: "cost",
    a: a.costUsd ?? "unpriced",
    b: b.costUsd ?? "unpriced",
    text: [formatUsd(a.costUsd), formatUsd(b.costUsd)],
    delta: ca !== null && cb !== null ? signed(cb - ca, (n) => formatUsd(n / 1e6)) : "–",
    numeric: false,
    bar: false,
  };
  const tools = [...new Set([...Object.keys(a.tools), ...Object.keys(b.tools)])].sort();
  const onlyA = a.files.filter((f) => !b.files.includes(f));
  const onlyB = b.files.filter((f) => !a.files.includes(f));
  const files: CompareRow = {
    label: "files written or edited",
    a: a.files.length,
    b: b.files.length,
    text: [a.files.join(", ") || "none", b.files.join(", ") || "none"],
    delta: onlyA.length + onlyB.length === 0 ? "same" : [onlyB.length ? `+${onlyB.join(", ")}` : "", onlyA.length ? `−${onlyA.join(", ")}` : ""].filter(Boolean).join(" "),
    numeric: false,
    bar: false,
  };
  return [
    count("calls", a.calls, b.calls, true),
    count("prompt tokens", a.promptTokens, b.promptTokens, true),
    count("cached tokens", a.cachedTokens, b.cachedTokens, true),
    count("completion tokens", a.completionTokens, b.completionTokens, true),
    cost,
    count("compactions", a.compactions, b.compactions),
    ...tools.map((t) => count(`tool ${t}`, a.tools[t] ?? 0, b.tools[t] ?? 0)),
    files,
  ];
}
