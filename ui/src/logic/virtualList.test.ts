// Tests of virtualList.ts: prefix sums and the first visible row.
import { describe, expect, it } from "vitest";
import { firstVisible, offsets } from "./virtualList";

describe("virtual list math", () => {
  it("finds the first visible row", () => {
    const prefix = offsets([10, 20, 30, 40]);
    expect(prefix).toEqual([0, 10, 30, 60, 100]);
    expect(firstVisible(prefix, 0)).toBe(0);
    expect(firstVisible(prefix, 29)).toBe(1);
    expect(firstVisible(prefix, 30)).toBe(2);
    expect(firstVisible(prefix, 99)).toBe(3);
  });
  it("handles 100,000 rows quickly enough to be linear", () => {
    const prefix = offsets(new Array(100_000).fill(48));
    expect(firstVisible(prefix, 48 * 50_000 + 1)).toBe(50_000);
  });
});
