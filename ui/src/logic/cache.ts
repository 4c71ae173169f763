// Prompt-cache forensics: what a request shares with the one before, whether the server reused it,
// why a cache broke and what that cost, and the recent hit rate.
import type { BreakCause, CacheBreak, CallDiff } from "../bindings";
import { formatUsd } from "./format";

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
