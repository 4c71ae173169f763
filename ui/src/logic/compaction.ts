// Compaction in words: why one fired, what each strategy would do, and the proposal editor's
// checkpoint text and fidelity label.
import type { Strategy, StrategyPreview, Trigger } from "../bindings";
import { formatTokens } from "./format";

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
  prune: { name: "Prune", what: "old outputs and answers lose whole lines, nothing rewritten; no model call" },
  provider: { name: "Provider", what: "the API compacts on its server (Anthropic, Responses); Alisio records what it kept" },
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
  if (p.pruned > 0) parts.push(`prunes lines of ${p.pruned} output${p.pruned === 1 ? "" : "s"} and answer${p.pruned === 1 ? "" : "s"}`);
  if (p.summarizerTokens !== null) parts.push(`summarizes ${p.summarized} message${p.summarized === 1 ? "" : "s"} (the summarizer reads ${formatTokens(p.summarizerTokens)})`);
  if (p.summarizerTokens === null) parts.push("no model call");
  if (p.pinnedTokens > 0 && p.checkpointMaxTokens !== null) parts.push(`pins carried: ${formatTokens(p.pinnedTokens)}`);
  return parts.join(" · ");
}
