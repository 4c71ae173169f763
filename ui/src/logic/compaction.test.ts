// Tests of compaction.ts: the proposal editor's additions, why a compaction fired, strategy previews.
import { describe, expect, it } from "vitest";
import { addToCheckpoint, fidelityLabel, strategyEffect, strategyWork, triggerText } from "./compaction";

describe("fidelity in the proposal editor", () => {
  it("adds a missing item to its section once, keeping the others", () => {
    const text = JSON.stringify({ goal: "g", instructions: ["a"], currentState: "", relevantFiles: [] });
    const once = addToCheckpoint(text, "relevantFiles", "src/parser.rs");
    expect(JSON.parse(once).relevantFiles).toEqual(["src/parser.rs"]);
    expect(JSON.parse(addToCheckpoint(once, "relevantFiles", "src/parser.rs")).relevantFiles).toEqual(["src/parser.rs"]);
    expect(JSON.parse(addToCheckpoint(text, "instructions", "never change the API")).instructions).toEqual(["a", "never change the API"]);
    expect(JSON.parse(addToCheckpoint(text, "currentState", "tests fail")).currentState).toEqual(["tests fail"]);
    expect(JSON.parse(addToCheckpoint(JSON.stringify({ goal: "g" }), "goal", "more")).goal).toBe("g\nmore");
    expect(JSON.parse(addToCheckpoint(text, "nextSteps", "x")).goal).toBe("g");
  });

  it("appends a line to a plain-text checkpoint", () => {
    expect(addToCheckpoint("We did things.", "relevantFiles", "src/a.rs")).toBe("We did things.\n- src/a.rs\n");
  });

  it("labels the score with what was kept", () => {
    expect(fidelityLabel({ score: 0.75, checked: 4, missing: [{}] })).toBe("0.75 · 3 of 4 kept");
  });
});

describe("why a compaction fired", () => {
  it("says the figures it fired on, or what asked for it", () => {
    expect(triggerText({ kind: "threshold", promptTokens: 7010, window: 10000, threshold: 0.68 })).toBe(
      "the request reached ≈ 7,010 tokens of 10.0k tokens (70 %; fires at 68 %)",
    );
    expect(triggerText({ kind: "threshold", promptTokens: 1700, window: null, threshold: 0.85 })).toBe(
      "the conversation reached ≈ 1,700 tokens, 85 % of limits.maxContextChars",
    );
    expect(triggerText({ kind: "manual", promptTokens: null, window: null, threshold: null })).toBe("asked for");
    expect(triggerText({ kind: "mask", promptTokens: null, window: null, threshold: null })).toBe("masking, asked for");
    expect(triggerText({ kind: "budget", promptTokens: 900, window: null, threshold: null })).toBe(
      "the hard limit (limits.maxContextChars): ≈ 900 tokens after reductions",
    );
    expect(triggerText(null)).toBe("");
  });
});

describe("the compaction dialog's strategy previews", () => {
  const base = { strategy: "mask" as const, isDefault: false, unavailable: null, beforeTokens: 12_300, afterTokens: 4_100, checkpointMaxTokens: null, checkpointLastTokens: null, summarizerTokens: null, summarized: 0, masked: 6, pruned: 0, pinnedTokens: 40 };
  it("says before → after, with the checkpoint the model writes apart", () => {
    expect(strategyEffect(base)).toBe("≈ 12.3k tokens → 4,100 tokens");
    expect(strategyWork(base)).toBe("masks 6 tool results · no model call");
    expect(strategyWork({ ...base, strategy: "prune", masked: 0, pruned: 3 })).toBe("prunes lines of 3 outputs and answers · no model call");
    const summary = { ...base, strategy: "native" as const, masked: 0, checkpointMaxTokens: 1200, summarizerTokens: 12_300, summarized: 14 };
    expect(strategyEffect(summary)).toBe("≈ 12.3k tokens → 4,100 tokens + a checkpoint ≤ 1,200 tokens");
    expect(strategyWork(summary)).toBe("summarizes 14 messages (the summarizer reads 12.3k tokens) · pins carried: 40 tokens");
    expect(strategyEffect({ ...summary, checkpointLastTokens: 420 })).toBe("≈ 12.3k tokens → 4,100 tokens + a checkpoint ≤ 1,200 tokens; the last one was 420 tokens");
    expect(strategyEffect({ ...base, unavailable: "nothing to mask" })).toBe("not now: nothing to mask");
  });
});
