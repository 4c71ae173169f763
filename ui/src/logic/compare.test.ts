// Tests of compare.ts: the Compare table.
import { describe, expect, it } from "vitest";
import { compareRows } from "./compare";

describe("the Compare table", () => {
  it("shows each total with its change, cost in whole micro-dollars, the files each side alone touched", () => {
    const a = { calls: 12, promptTokens: 68889, cachedTokens: 61247, completionTokens: 109, costUsd: 0.1, compactions: 1, tools: { exec_command: 5 }, files: ["notes.txt"] };
    const b = { calls: 13, promptTokens: 70000, cachedTokens: 61247, completionTokens: 150, costUsd: 0.3, compactions: 1, tools: { exec_command: 5, read_file: 1 }, files: ["notes.txt", "src/lib.rs"] };
    const rows = compareRows(a, b);
    const row = (label: string) => rows.find((r) => r.label === label)!;
    expect(row("calls").delta).toBe("+1");
    expect(row("prompt tokens").text).toEqual(["68,889", "70,000"]);
    expect(row("cached tokens").delta).toBe("0");
    expect(row("cost").delta).toBe("+$0.200000");
    expect(row("tool read_file")).toMatchObject({ a: 0, b: 1, delta: "+1" });
    expect(row("files written or edited").delta).toBe("+src/lib.rs");
    expect(compareRows(b, a).find((r) => r.label === "cost")!.delta).toBe("−$0.200000");
    expect(compareRows({ ...a, costUsd: null }, b).find((r) => r.label === "cost")!.delta).toBe("–");
  });
});
