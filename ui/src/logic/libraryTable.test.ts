// Tests of libraryTable.ts: the sort, the remembered columns and sort, and the cells' formatting.
import { describe, expect, it } from "vitest";
import { summary } from "./fixtures";
import { ariaSort, cellText, compactCount, DEFAULT_COLUMNS, DEFAULT_SORT, formatCacheHit, formatCost, gridTemplate, nextSort, parseColumns, parseSort, sortSessions, toggleColumn, type LibrarySort } from "./libraryTable";

const ids = (list: { id: string }[]) => list.map((s) => s.id);

describe("library table sort", () => {
  const sessions = [
    summary({ id: "a", title: "beta", costUsd: 2, lastActivity: "2026-12-02T10:00:00Z", liveMessages: 9, compactedMessages: 1 }),
    summary({ id: "b", title: "Alpha", costUsd: null, lastActivity: "2026-11-30T10:00:00Z", liveMessages: 2 }),
    summary({ id: "c", title: "alpha 10", costUsd: 10, lastActivity: "2026-12-01T10:00:00Z", liveMessages: 3 }),
    summary({ id: "d", title: "alpha 9", costUsd: 2, lastActivity: "", liveMessages: 10 }),
    summary({ id: "e", title: "gamma", costUsd: null, lastActivity: "2026-12-03T10:00:00Z", liveMessages: 1 }),
  ];
  const sort = (column: LibrarySort["column"], dir: LibrarySort["dir"]) => ids(sortSessions(sessions, { column, dir }));

  it("orders numbers numerically, not as text", () => {
    expect(sort("messages", "asc")).toEqual(["e", "b", "c", "a", "d"]);
    expect(sort("messages", "desc")).toEqual(["a", "d", "c", "b", "e"]);
  });
  it("keeps nulls last in both directions and ties in the order given (stable)", () => {
    expect(sort("cost", "asc")).toEqual(["a", "d", "c", "b", "e"]);
    expect(sort("cost", "desc")).toEqual(["c", "a", "d", "b", "e"]);
  });
  it("orders dates as ISO strings, a missing one last", () => {
    expect(sort("lastActive", "desc")).toEqual(["e", "a", "c", "b", "d"]);
    expect(sort("lastActive", "asc")).toEqual(["b", "c", "a", "e", "d"]);
  });
  it("orders text case-insensitively with numbers inside in order", () => {
    expect(sort("title", "asc")).toEqual(["b", "d", "c", "a", "e"]);
  });
  it("sorts the cache hit rate with sessions that sent nothing last", () => {
    const list = [summary({ id: "x" }), summary({ id: "y", promptTokens: 100, cachedTokens: 50 }), summary({ id: "z", promptTokens: 10, cachedTokens: 9 })];
    expect(ids(sortSessions(list, { column: "cacheHit", dir: "desc" }))).toEqual(["z", "y", "x"]);
    expect(ids(sortSessions(list, { column: "cacheHit", dir: "asc" }))).toEqual(["y", "z", "x"]);
  });
  it("leaves the list it was given alone", () => {
    sortSessions(sessions, { column: "title", dir: "desc" });
    expect(ids(sessions)).toEqual(["a", "b", "c", "d", "e"]);
  });
  it("flips the column clicked again, starts another by its kind", () => {
    expect(nextSort(DEFAULT_SORT, "lastActive")).toEqual({ column: "lastActive", dir: "asc" });
    expect(nextSort(DEFAULT_SORT, "title")).toEqual({ column: "title", dir: "asc" });
    expect(nextSort(DEFAULT_SORT, "cost")).toEqual({ column: "cost", dir: "desc" });
    expect(ariaSort(DEFAULT_SORT, "lastActive")).toBe("descending");
    expect(ariaSort(DEFAULT_SORT, "title")).toBe("none");
  });
});

describe("library table settings", () => {
  it("reads the columns remembered, falling back when corrupt", () => {
    expect(parseColumns(null)).toEqual(DEFAULT_COLUMNS);
    expect(parseColumns("{not json")).toEqual(DEFAULT_COLUMNS);
    expect(parseColumns('{"a":1}')).toEqual(DEFAULT_COLUMNS);
    expect(parseColumns('["cost", "nonsense", 3, "agent"]')).toEqual(["title", "agent", "cost"]);
    expect(parseColumns("[]")).toEqual(["title"]);
  });
  it("toggles a column but never the title", () => {
    expect(toggleColumn(["title", "cost"], "agent")).toEqual(["title", "agent", "cost"]);
    expect(toggleColumn(["title", "agent", "cost"], "agent")).toEqual(["title", "cost"]);
    expect(toggleColumn(["title"], "title")).toEqual(["title"]);
  });
  it("reads the sort remembered, falling back when corrupt", () => {
    expect(parseSort('{"column":"cost","dir":"asc"}')).toEqual({ column: "cost", dir: "asc" });
    expect(parseSort('{"column":"cost","dir":"up"}')).toEqual(DEFAULT_SORT);
    expect(parseSort('{"column":"nope","dir":"asc"}')).toEqual(DEFAULT_SORT);
    expect(parseSort("null")).toEqual(DEFAULT_SORT);
    expect(parseSort("]")).toEqual(DEFAULT_SORT);
    expect(parseSort(null)).toEqual(DEFAULT_SORT);
  });
  it("lays out the columns shown", () => {
    expect(gridTemplate(["title", "cost"])).toEqual({ template: "minmax(220px, 3fr) 96px", minWidth: 316 });
  });
});

describe("library table cells", () => {
  it("formats the cache hit rate, or a dash when nothing was sent", () => {
    expect(formatCacheHit(summary({ id: "s", promptTokens: 2000, cachedTokens: 1500 }))).toBe("75.0 %");
    expect(formatCacheHit(summary({ id: "s", promptTokens: 0, cachedTokens: 0 }))).toBe("—");
  });
  it("formats the cost, a dash when unpriced, marked when calls had no price", () => {
    expect(formatCost(summary({ id: "s", costUsd: 12.345 })).text).toBe("$12.35");
    expect(formatCost(summary({ id: "s", costUsd: null })).text).toBe("—");
    const marked = formatCost(summary({ id: "s", costUsd: 0.5, unpricedCalls: 2 }));
    expect(marked.text).toBe("$0.500000*");
    expect(marked.title).toBe("2 calls without a price, left out of the cost");
    expect(formatCost(summary({ id: "s", costUsd: null, unpricedCalls: 1 })).text).toBe("—*");
  });
  it("shows the agent, the messages and the agent's own title", () => {
    const s = summary({ id: "s", title: "Mine", agentTitle: "Theirs", liveMessages: 3, compactedMessages: 2 });
    expect(cellText(s, "agent").text).toBe("alisio");
    expect(cellText({ ...s, source: "codex" }, "agent").text).toBe("codex");
    expect(cellText(s, "messages")).toEqual({ text: "5", title: "3 live · 2 compacted" });
    expect(cellText(s, "title").title).toBe("Mine\nAgent's title: Theirs");
    expect(cellText(s, "started").text).toMatch(/^2026-1[12]-\d\d \d\d:\d\d$/);
    expect(cellText({ ...s, createdAt: "" }, "started").text).toBe("—");
  });
  it("shortens big counts", () => {
    expect(compactCount(9999)).toBe("9,999");
    expect(compactCount(12_345)).toBe("12.3k");
    expect(compactCount(4_560_000)).toBe("4.56M");
  });
});
