// Tests of rereads.ts: re-reads grouped under their compaction, their totals and labels.
import { describe, expect, it } from "vitest";
import type { Reread } from "../bindings";
import { heldLabel, rereadCost, rereadKind, rereadsByCompaction, rereadSummary, rereadTotal } from "./rereads";

function reread(partial: Partial<Reread>): Reread {
  return { compaction: 1, kind: "file", target: "src/parser.rs", seqBefore: 4, seqAfter: 20, tokens: 100, costUsd: 0.0003, heldBy: "checkpoint", ...partial };
}

describe("re-reads after a compaction", () => {
  it("groups them by compaction, in the API's order", () => {
    const list = [reread({ compaction: 2, seqAfter: 30 }), reread({ compaction: 1 }), reread({ compaction: 2, seqAfter: 31, kind: "command" })];
    const by = rereadsByCompaction(list);
    expect([...by.keys()]).toEqual([2, 1]);
    expect(by.get(2)?.map((r) => r.seqAfter)).toEqual([30, 31]);
    expect(by.get(3)).toBeUndefined();
    expect(rereadsByCompaction([]).size).toBe(0);
  });

  it("sums the tokens and the cost of those priced", () => {
    const total = rereadTotal([reread({ tokens: 1000, costUsd: 0.001 }), reread({ tokens: 234, costUsd: 0.0002 })]);
    expect(total).toMatchObject({ count: 2, tokens: 1234, unpriced: 0 });
    expect(total.costUsd).toBeCloseTo(0.0012, 10);
    expect(rereadTotal([reread({ costUsd: null }), reread({ costUsd: 0.5 })])).toMatchObject({ costUsd: 0.5, unpriced: 1 });
    expect(rereadTotal([reread({ costUsd: null })])).toMatchObject({ costUsd: null, unpriced: 1 });
  });

  it("says the totals in a line", () => {
    expect(rereadSummary({ count: 3, tokens: 1234, costUsd: 0.0012, unpriced: 0 })).toBe("Fetched again after this compaction: 3 (1,234 tokens, $0.001200)");
    expect(rereadSummary({ count: 2, tokens: 12_345, costUsd: 0.5, unpriced: 1 })).toBe("Fetched again after this compaction: 2 (12.3k tokens, $0.500000 + 1 without a price)");
    expect(rereadSummary({ count: 1, tokens: 10, costUsd: null, unpriced: 1 })).toBe("Fetched again after this compaction: 1 (10 tokens, no price)");
  });

  it("labels the cost, the kind and what held it", () => {
    expect(rereadCost(null)).toBe("no price");
    expect(rereadCost(0.0003)).toBe("$0.000300");
    expect(rereadKind("file").label).toBe("file");
    expect(rereadKind("command").label).toBe("command");
    expect(heldLabel("checkpoint")).toMatchObject({ label: "checkpoint", lost: false });
    expect(heldLabel("trail")).toMatchObject({ label: "trail only", lost: false });
    expect(heldLabel(null)).toMatchObject({ label: "lost", lost: true });
  });
});
