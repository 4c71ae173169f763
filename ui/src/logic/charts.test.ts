// Tests of charts.ts: the context chart's bars and scale.
import { describe, expect, it } from "vitest";
import type { CallSummary } from "../bindings";
import { chartBars, chartMax } from "./charts";

describe("the context chart", () => {
  it("stacks cached under uncached prompt tokens and scales to the window", () => {
    const call = (n: number, prompt: number | null, cached: number | null): CallSummary => ({
      n, purpose: "turn", startedAt: "", requestChars: 0, promptTokens: prompt, cachedTokens: cached, completionTokens: 10,
      ttftMs: null, durationMs: null, finishReason: null, error: null, requestSource: "alisio", exact: true,
      model: "m", cacheWriteTokens: null, costUsd: null, cacheSavingsUsd: null, cacheWrite1hTokens: null, recordedCostUsd: null, requests: 1,
    });
    const bars = chartBars([call(1, 100, 0), call(2, 150, 200), call(3, null, null)], [
      { n: 2, cacheBreak: true, commonPrefixTokens: 5, cachedTokens: 200 },
    ]);
    expect(bars).toEqual([
      { n: 1, cached: 0, uncached: 100, completion: 10, cacheBreak: false },
      { n: 2, cached: 150, uncached: 0, completion: 10, cacheBreak: true },
      { n: 3, cached: 0, uncached: 0, completion: 10, cacheBreak: false },
    ]);
    expect(chartMax(bars, null)).toBe(Math.ceil(160 * 1.08));
    expect(chartMax(bars, 1000)).toBe(1080);
    expect(chartMax([], null)).toBe(1);
  });
});
