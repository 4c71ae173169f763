// Tests of libraryTable.ts: the sort, the remembered columns and sort, and the cells' formatting.
import { describe, expect, it } from "vitest";
import { summary } from "./fixtures";
import {
  ariaSort,
  cellText,
  columnValue,
  compactCount,
  DEFAULT_COLUMNS,
  DEFAULT_SORT,
  formatCacheHit,
  formatCost,
  gridTemplate,
  nextSort,
  offeredColumns,
  offeredSort,
  parseColumns,
  parseSort,
  shownColumns,
  sortSessions,
  toggleColumn,
  type LibrarySort,
} from "./libraryTable";

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

describe("library table over a team's archive", () => {
  const team = [
    summary({ id: "a", user: "bo", machine: "build-10" }),
    summary({ id: "b" }),
    summary({ id: "c", user: "Ana", machine: "build-9" }),
    summary({ id: "d", user: "ana", machine: "ana-laptop" }),
  ];
  const own = [summary({ id: "x" }), summary({ id: "y" })];
  const sort = (column: LibrarySort["column"], dir: LibrarySort["dir"]) => ids(sortSessions(team, { column, dir }));

  it("reads who pushed a session and from where, nothing when absent", () => {
    expect(columnValue(team[0], "user")).toBe("bo");
    expect(columnValue(team[0], "machine")).toBe("build-10");
    expect(columnValue(team[1], "user")).toBeNull();
    expect(columnValue(summary({ id: "e", user: "" }), "user")).toBeNull();
    expect(cellText(team[0], "user")).toEqual({ text: "bo", title: "Pushed by bo" });
    expect(cellText(team[0], "machine")).toEqual({ text: "build-10", title: "Pushed from build-10" });
    expect(cellText(team[1], "user").text).toBe("—");
    expect(cellText(team[1], "machine").text).toBe("—");
  });
  it("sorts by user and machine as text, sessions without one last both ways", () => {
    expect(sort("user", "asc")).toEqual(["c", "d", "a", "b"]);
    expect(sort("user", "desc")).toEqual(["a", "c", "d", "b"]);
    expect(sort("machine", "asc")).toEqual(["d", "c", "a", "b"]);
    expect(sort("machine", "desc")).toEqual(["a", "c", "d", "b"]);
    expect(nextSort(DEFAULT_SORT, "user")).toEqual({ column: "user", dir: "asc" });
  });
  it("offers User and Machine only where a session has one", () => {
    const others = DEFAULT_COLUMNS.filter((id) => id !== "user" && id !== "machine");
    expect(offeredColumns(own)).toEqual(others);
    expect(offeredColumns([])).toEqual(others);
    expect(offeredColumns(team)).toEqual(DEFAULT_COLUMNS);
    expect(offeredColumns([summary({ id: "m", machine: "build-1" })])).toEqual(DEFAULT_COLUMNS.filter((id) => id !== "user"));
  });
  it("shows the columns chosen that are offered, and sorts by the default while the one chosen is not", () => {
    const chosen = parseColumns('["user", "cost", "machine"]');
    expect(chosen).toEqual(["title", "user", "machine", "cost"]);
    expect(shownColumns(chosen, offeredColumns(own))).toEqual(["title", "cost"]);
    expect(shownColumns(chosen, offeredColumns(team))).toEqual(["title", "user", "machine", "cost"]);
    // A choice stored before these columns existed still reads, and leaves them off.
    expect(shownColumns(parseColumns('["agent", "cost"]'), offeredColumns(team))).toEqual(["title", "agent", "cost"]);
    const byUser = parseSort('{"column":"user","dir":"desc"}');
    expect(byUser).toEqual({ column: "user", dir: "desc" });
    expect(offeredSort(byUser, offeredColumns(own))).toEqual(DEFAULT_SORT);
    expect(offeredSort(byUser, offeredColumns(team))).toBe(byUser);
  });
  it("keeps a column chosen while it is not offered", () => {
    expect(toggleColumn(["title", "user", "cost"], "agent")).toEqual(["title", "agent", "user", "cost"]);
    expect(gridTemplate(["title", "user", "machine"])).toEqual({ template: "minmax(220px, 3fr) 104px 120px", minWidth: 444 });
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
