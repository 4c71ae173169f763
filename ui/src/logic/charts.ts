// The context chart: one bar per call (cached / uncached prompt tokens, then completion), its
// scale, and where a compaction is marked.
import type { CallCache, CallSummary, CompactionView, ModelCallRecord } from "../bindings";

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

/** The checkpoints whose summary call is in the ledger, each with that call's number (1..n): where the charts mark a compaction. */
export function compactionMarkers(compactions: CompactionView[], calls: ModelCallRecord[]): Array<{ c: CompactionView; n: number }> {
  const callNumber = new Map(calls.map((c, i) => [c.id, i + 1]));
  return compactions
    .filter((c) => c.kind === "checkpoint" && c.modelCallId !== null && callNumber.has(c.modelCallId))
    .map((c) => ({ c, n: callNumber.get(c.modelCallId as number) as number }));
}
