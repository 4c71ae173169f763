// Tests of bench.ts: the bake-off's arms, request, ranking and figures.
import { describe, expect, it } from "vitest";
import type { Arm } from "../bindings";
import {
  armName, benchArms, benchBars, benchBusyText, benchCost, benchMax, benchRequest, bestArm, keptPercent, kindBreakdown, probesText, rankArms, tallyText,
  judgeProfiles,
} from "./bench";

/** An arm that ran at one point with every figure zero, `partial` on top. */
function arm(strategy: string, kept: number, total: number, partial: Partial<Arm> = {}): Arm {
  return {
    strategy, points: 1, probes: { total, kept, judged: 0, byKind: {} }, summarizerTokensIn: 0, summarizerTokensOut: 0,
    nextRequestTokens: 0, reprocessedTokens: 0, costUsd: null, skipped: [], ...partial,
  };
}

describe("the bake-off's arms", () => {
  it("offers the agent's own summary only for an imported session", () => {
    expect(benchArms(false)).toEqual(["native", "cache", "mask", "hybrid", "prune", "provider"]);
    expect(benchArms(true)).toEqual(["native", "cache", "mask", "hybrid", "prune", "provider", "agent"]);
  });

  it("names arms as the compaction dialog does", () => {
    expect(armName("native")).toBe("Summary");
    expect(armName("cache")).toBe("Cache-compatible summary");
    expect(armName("agent")).toBe("Agent's own summary");
    expect(armName("later")).toBe("later");
  });
});

describe("the bake-off request", () => {
  const form = { strategies: ["mask", "native"], point: "last" as const, at: "12", every: "" };

  it("compacts after the last message by default, the arms in the engine's order", () => {
    expect(benchRequest("s1", form)).toEqual({ request: { sessions: ["s1"], strategies: ["native", "mask"] } });
  });

  it("compacts after a message or after every N messages", () => {
    expect(benchRequest("s1", { ...form, point: "at" })).toEqual({ request: { sessions: ["s1"], strategies: ["native", "mask"], at: 12 } });
    expect(benchRequest("s1", { ...form, point: "every", every: " 5 " })).toEqual({
      request: { sessions: ["s1"], strategies: ["native", "mask"], every: 5 },
    });
  });

  it("says what is wrong with the form", () => {
    expect(benchRequest("s1", { ...form, strategies: [] })).toEqual({ error: "Check at least one strategy." });
    for (const at of ["", "0", "-3", "2.5", "x"]) expect("error" in benchRequest("s1", { ...form, point: "at", at })).toBe(true);
    expect("error" in benchRequest("s1", { ...form, point: "every", every: "" })).toBe(true);
    // A bad number in the field not chosen does not matter.
    expect("request" in benchRequest("s1", { ...form, at: "x" })).toBe(true);
  });

  it("says while running how many arms and which ask the summarizer", () => {
    expect(benchBusyText(["native", "cache", "mask", "hybrid", "prune"])).toBe("Comparing 5 strategies… the summarizer is asked for native, cache and hybrid");
    expect(benchBusyText(["native", "mask"])).toBe("Comparing 2 strategies… the summarizer is asked for native");
    expect(benchBusyText(["cache", "hybrid"])).toBe("Comparing 2 strategies… the summarizer is asked for cache and hybrid");
    expect(benchBusyText(["mask"])).toBe("Comparing 1 strategy… no model call");
  });
});

describe("the bake-off's figures", () => {
  it("formats probes kept, in all and per kind", () => {
    expect(keptPercent({ kept: 6, total: 7 })).toBe(86);
    expect(keptPercent({ kept: 0, total: 0 })).toBeNull();
    expect(tallyText({ kept: 3, total: 4 })).toBe("3/4");
    expect(tallyText({ kept: 0, total: 0 })).toBe("—");
    expect(tallyText(undefined)).toBe("—");
    const probes = { kept: 12, total: 14, judged: 0, byKind: { task: { kept: 1, total: 1 }, file: { kept: 8, total: 9 }, zeta: { kept: 0, total: 1 }, error: { kept: 0, total: 1 } } };
    expect(probesText(probes)).toBe("12/14 (86 %)");
    expect(probesText({ kept: 0, total: 0, judged: 0, byKind: {} })).toBe("—");
    expect(probesText({ ...probes, judged: 2 })).toBe("12/14 (86 %), 2 by the judge");
    expect(kindBreakdown(probes).map((k) => `${k.kind} ${k.text}`)).toEqual(["file 8/9", "instruction —", "error 0/1", "task 1/1", "zeta 0/1"]);
  });

  it("says no price when a model has none", () => {
    expect(benchCost(null)).toBe("no price");
    expect(benchCost(0.0042)).toBe("$0.004200");
  });
});

describe("ranking the arms", () => {
  it("puts the larger share of probes kept first, ties to fewer re-processed tokens", () => {
    const arms = [
      arm("native", 6, 8, { reprocessedTokens: 900 }),
      arm("mask", 7, 8, { reprocessedTokens: 5000 }),
      arm("cache", 6, 8, { reprocessedTokens: 300 }),
      arm("prune", 3, 4, { reprocessedTokens: 100 }),
    ];
    expect(rankArms(arms).map((a) => a.strategy)).toEqual(["mask", "prune", "cache", "native"]);
    expect(bestArm(arms)).toBe("mask");
    expect(bestArm(arms.slice(0, 1).concat(arms.slice(2)))).toBe("prune");
  });

  it("puts arms that ran at no point last, and names none best when none ran", () => {
    const arms = [arm("agent", 0, 0, { points: 0, skipped: ["after #4: no summary recorded"] }), arm("mask", 0, 3)];
    expect(rankArms(arms).map((a) => a.strategy)).toEqual(["mask", "agent"]);
    expect(bestArm([arms[0]])).toBeNull();
    expect(bestArm([])).toBeNull();
  });

  it("keeps the engine's order on a full tie", () => {
    expect(rankArms([arm("hybrid", 1, 2), arm("native", 2, 4)]).map((a) => a.strategy)).toEqual(["hybrid", "native"]);
  });

  it("draws the chart best first with the tokens chosen", () => {
    const arms = [arm("native", 1, 2, { nextRequestTokens: 4000, reprocessedTokens: 9000 }), arm("mask", 2, 2, { nextRequestTokens: 6000, reprocessedTokens: 10 })];
    const next = benchBars(arms, "next");
    expect(next).toEqual([
      { strategy: "mask", name: "Mask", keptPct: 100, tokens: 6000, best: true },
      { strategy: "native", name: "Summary", keptPct: 50, tokens: 4000, best: false },
    ]);
    expect(benchMax(next)).toBe(6000);
    expect(benchBars(arms, "reprocessed").map((b) => b.tokens)).toEqual([10, 9000]);
    expect(benchMax([])).toBe(1);
  });
  it("offers the config's profiles as judges and sends the one chosen", () => {
    expect(judgeProfiles({ profiles: { local: {}, big: {} } })).toEqual(["big", "local"]);
    expect(judgeProfiles({})).toEqual([]);
    expect(judgeProfiles(null)).toEqual([]);
    const form = { strategies: ["native"], point: "last" as const, at: "", every: "10" };
    expect(benchRequest("s1", { ...form, judge: "big" })).toEqual({ request: { sessions: ["s1"], strategies: ["native"], judge: "big" } });
    expect(benchRequest("s1", { ...form, judge: "" })).toEqual({ request: { sessions: ["s1"], strategies: ["native"] } });
  });
});
