// Tests of usage.ts: session figures, cost by day, sums in micro-dollars.
import { describe, expect, it } from "vitest";
import { sessionFigures, stackedUsage, sumUsd } from "./usage";

describe("session figures", () => {
  it("reports what the server said and labels the estimate", () => {
    const s = { id: "s", title: "t", workspace: "/w", liveMessages: 1, compactedMessages: 0, uncertainToolCalls: 0, runningToolCalls: 0,
      promptTokens: 2000, cachedTokens: 1500, completionTokens: 300, compactions: 2, savedChars: 40_000, createdAt: "", lastActivity: "",
      costUsd: null, unpricedCalls: 0, project: "/w", subagents: 0, parent: null, calls: 0 };
    expect(sessionFigures(s)).toEqual(["cache 75 % of 2,000 tokens in", "300 tokens out", "2 compactions", "≈ 10.0k tokens saved (estimate)"]);
    expect(sessionFigures({ ...s, promptTokens: 0, compactions: 0, savedChars: 0 })).toEqual([]);
    expect(sessionFigures({ ...s, promptTokens: 0, compactions: 0, savedChars: 0, costUsd: 0.0421, unpricedCalls: 2 })).toEqual(["$0.042100 + 2 unpriced"]);
  });
});

describe("cost and cache forensics", () => {
  it("stacks each day's cost by series, unpriced days at zero", () => {
    const row = (key: string, cost: number | null) => ({ key, label: null, calls: 1, promptTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, completionTokens: 0, costUsd: cost, cacheSavingsUsd: null, cacheHitRate: null, unpricedCalls: 0, sessions: 1 });
    const days = stackedUsage([
      { series: "codex", rows: [row("2026-11-30", 1.5), row("2026-12-01", 0.25)] },
      { series: "claude-code", rows: [row("2026-12-01", 2), row("2026-12-02", null)] },
    ]);
    expect(days).toEqual([
      { day: "2026-11-30", parts: [{ series: "codex", cost: 1.5 }], total: 1.5 },
      { day: "2026-12-01", parts: [{ series: "codex", cost: 0.25 }, { series: "claude-code", cost: 2 }], total: 2.25 },
      { day: "2026-12-02", parts: [{ series: "claude-code", cost: 0 }], total: 0 },
    ]);
  });
});

describe("money in the window", () => {
  it("adds costs in whole micro-dollars, never as accumulated floats", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumUsd([0.1, 0.2])).toBe(0.3);
    expect(sumUsd([0.000001, null, 0.000002])).toBe(0.000003);
    expect(sumUsd([null, null])).toBeNull();
  });
});
