// Tests of cache.ts: the request-diff bar, cache verdicts, break labels and the recent hit rate.
import { describe, expect, it } from "vitest";
import type { CallDiff } from "../bindings";
import { breakLabel, cacheVerdict, prefixParts, recentHitRate } from "./cache";

describe("request diffs", () => {
  const diff = (over: Partial<CallDiff>): CallDiff => ({
    n: 2, against: 1, commonPrefixChars: 800, againstChars: 1000, commonPrefixTokens: 200, cachedTokens: 190, cacheBreak: true,
    firstDivergence: { part: "messages", index: 1, path: "/content", before: "a", after: "b" }, newChars: 900, sameMessages: 0,
    messageChanges: [], toolChanges: { added: [], removed: [], changed: [], reordered: false }, paramChanges: [],
    cause: null, agentReason: null, lostTokens: null, missCostUsd: null, ...over,
  });

  it("splits the bar into shared, new and dropped", () => {
    expect(prefixParts(diff({}))).toEqual({ shared: 800, added: 100, dropped: 200, total: 1100 });
  });

  it("calls a rewritten prefix a break, a kept one the server skipped a miss", () => {
    expect(cacheVerdict(diff({})).status).toBe("break");
    expect(cacheVerdict(diff({})).label).toContain("message 1");
    const kept = { cacheBreak: false, commonPrefixChars: 1000, commonPrefixTokens: 250 };
    expect(cacheVerdict(diff({ ...kept, cachedTokens: 240 })).status).toBe("reused");
    expect(cacheVerdict(diff({ ...kept, cachedTokens: 10 })).status).toBe("missed");
    expect(cacheVerdict(diff({ ...kept, cachedTokens: null })).status).toBe("unknown");
  });
});

describe("cost and cache forensics", () => {
  it("says a break's cause, what was processed again and what it cost", () => {
    expect(breakLabel({ n: 4, against: 3, cause: "tools", agentReason: null, lostTokens: 1200, missCostUsd: 0.0018, divergence: null })).toBe(
      "the tools changed: 1,200 tokens processed again, $0.001800",
    );
    expect(breakLabel({ n: 4, against: 3, cause: "expired", agentReason: "ttl", lostTokens: 10, missCostUsd: null, divergence: null })).toBe(
      "the cache expired between the calls: 10 tokens processed again, unpriced (Claude Code says: ttl)",
    );
  });

  it("rates the cache over the last calls", () => {
    const call = (prompt: number | null, cached: number | null) => ({ promptTokens: prompt, cachedTokens: cached });
    expect(recentHitRate([call(100, 0), call(1000, 900), call(1000, 800), call(null, null)], 2)).toBeCloseTo(0.85);
    expect(recentHitRate([], 5)).toBeNull();
  });
});
