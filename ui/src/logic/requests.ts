// How a request is known (exact or reconstructed), what its agent did not record, and what it is
// made of (the composition chart's parts, missing estimates stacked on their part).
import { AGENTS, type CallComposition, type MissingPart, type RequestSource } from "../bindings";
import { formatTokens } from "./format";

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
