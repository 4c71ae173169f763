// Tests of format.ts: spans and money as people read them.
import { describe, expect, it } from "vitest";
import { formatSpan, formatUsd } from "./format";

describe("formatSpan", () => {
  it("reads in transcript order, as runs", () => {
    expect(formatSpan([11, 6, 7, 8, 9, 10])).toBe("#11, #6–#10");
    expect(formatSpan([1, 2, 3])).toBe("#1–#3");
    expect(formatSpan([4])).toBe("#4");
  });
});

describe("cost and cache forensics", () => {
  it("shows money to the micro-dollar under a dollar, to the cent above, and unpriced as such", () => {
    expect(formatUsd(0.004213)).toBe("$0.004213");
    expect(formatUsd(12.345)).toBe("$12.35");
    expect(formatUsd(0)).toBe("$0.000000");
    expect(formatUsd(null)).toBe("unpriced");
  });
});
