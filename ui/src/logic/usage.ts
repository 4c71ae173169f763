// What sessions used and cost: a session's figures, cost by day stacked by series, and sums of
// costs taken in whole micro-dollars.
import type { SessionSummary, UsageRow } from "../bindings";
import { formatTokens, formatUsd, tokensOf } from "./format";

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
 * A sum of costs the engine gives in USD rounded to the micro-dollar, added in whole micro-dollars
 * (never as accumulated floats); null when none is priced.
 */
export function sumUsd(costs: Array<number | null>): number | null {
  const priced = costs.filter((c): c is number => c !== null);
  if (priced.length === 0) return null;
  return priced.reduce((micros, c) => micros + Math.round(c * 1e6), 0) / 1e6;
}
