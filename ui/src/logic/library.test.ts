// Tests of library.ts: grouping, filters and "how long ago".
import { describe, expect, it } from "vitest";
import { ago, filterLibrary, libraryAgents, libraryChoices, libraryMachines, libraryProjects, libraryRows, libraryUsers, NO_LIBRARY_FILTERS, pushedBy, removedNotice } from "./library";

describe("library", () => {
  const base = { title: "t", workspace: "/w", liveMessages: 1, compactedMessages: 0, uncertainToolCalls: 0, runningToolCalls: 0,
    promptTokens: 0, cachedTokens: 0, completionTokens: 0, compactions: 0, savedChars: 0, createdAt: "", costUsd: null, unpricedCalls: 0, subagents: 0, parent: null, calls: 0 };
  const now = Date.parse("2026-12-02T12:00:00Z");
  const sessions = [
    { ...base, id: "a", project: "/p/one", lastActivity: "2026-12-01T10:00:00Z", source: "codex" as const, compactions: 1, costUsd: 2 },
    { ...base, id: "b", project: "/p/two", lastActivity: "2026-12-02T11:00:00Z" },
    { ...base, id: "c", project: "/p/one", lastActivity: "2026-12-02T09:00:00Z", source: "claude-code" as const, costUsd: 0.001 },
    { ...base, id: "d", project: "/p/two", lastActivity: "2026-10-01T09:00:00Z", title: "old fix" },
  ];
  const rows = (options: Partial<Parameters<typeof libraryRows>[1]>) =>
    libraryRows(sessions, { grouping: "project", filters: NO_LIBRARY_FILTERS, query: "", collapsed: new Set(), now, ...options }).map((r) =>
      r.kind === "group" ? `[${r.label} ${r.count}${r.collapsed ? " +" : ""}]` : r.session.id,
    );
  it("groups by project or agent, groups and sessions newest first", () => {
    expect(rows({})).toEqual(["[/p/two 2]", "b", "d", "[/p/one 2]", "c", "a"]);
    expect(rows({ grouping: "agent" })).toEqual(["[alisio 2]", "b", "d", "[claude-code 1]", "c", "[codex 1]", "a"]);
    expect(rows({ grouping: "none" })).toEqual(["b", "c", "a", "d"]);
  });
  it("keeps a collapsed group's header alone", () => {
    expect(rows({ collapsed: new Set(["/p/two"]) })).toEqual(["[/p/two 2 +]", "[/p/one 2]", "c", "a"]);
  });
  it("filters by agent, date, compactions, cost and title", () => {
    expect(rows({ grouping: "none", filters: { ...NO_LIBRARY_FILTERS, agent: "alisio" } })).toEqual(["b", "d"]);
    expect(rows({ grouping: "none", filters: { ...NO_LIBRARY_FILTERS, days: 7 } })).toEqual(["b", "c", "a"]);
    expect(rows({ grouping: "none", filters: { ...NO_LIBRARY_FILTERS, hasCompactions: true } })).toEqual(["a"]);
    expect(rows({ grouping: "none", filters: { ...NO_LIBRARY_FILTERS, minCostUsd: 1 } })).toEqual(["a"]);
    expect(rows({ grouping: "none", query: "old" })).toEqual(["d"]);
    expect(libraryAgents(sessions)).toEqual(["alisio", "claude-code", "codex"]);
  });
  it("filters by project, the list and the table alike", () => {
    expect(rows({ grouping: "none", filters: { ...NO_LIBRARY_FILTERS, project: "/p/one" } })).toEqual(["c", "a"]);
    expect(libraryProjects(sessions)).toEqual(["/p/one", "/p/two"]);
    // The table's filter keeps the order given (it sorts by itself).
    expect(filterLibrary(sessions, { ...NO_LIBRARY_FILTERS, project: "/p/one" }, "", now).map((s) => s.id)).toEqual(["a", "c"]);
  });
  it("offers no user or machine filter where sessions carry none (the window)", () => {
    expect(libraryUsers(sessions)).toEqual([]);
    expect(libraryMachines(sessions)).toEqual([]);
    expect(libraryChoices(sessions)).toEqual({ agents: ["alisio", "claude-code", "codex"], projects: ["/p/one", "/p/two"], users: [], machines: [] });
    expect(pushedBy(sessions[0])).toBeNull();
    // Off, the filters keep every session.
    expect(filterLibrary(sessions, NO_LIBRARY_FILTERS, "", now).map((s) => s.id)).toEqual(["a", "b", "c", "d"]);
  });
  it("filters by user and machine over a team's archive, the list and the table alike", () => {
    const team = [
      { ...sessions[0], user: "ana", machine: "ana-laptop" },
      { ...sessions[1], user: "bo", machine: "build-1" },
      { ...sessions[2], user: "ana", machine: "build-1" },
      { ...sessions[3], user: "", machine: undefined },
    ];
    expect(libraryUsers(team)).toEqual(["ana", "bo"]);
    expect(libraryMachines(team)).toEqual(["ana-laptop", "build-1"]);
    const kept = (filters: Partial<typeof NO_LIBRARY_FILTERS>) => filterLibrary(team, { ...NO_LIBRARY_FILTERS, ...filters }, "", now).map((s) => s.id);
    expect(kept({ user: "ana" })).toEqual(["a", "c"]);
    expect(kept({ machine: "build-1" })).toEqual(["b", "c"]);
    expect(kept({ user: "ana", machine: "build-1" })).toEqual(["c"]);
    expect(kept({ user: "ana", agent: "codex" })).toEqual(["a"]);
    expect(kept({ user: "nobody" })).toEqual([]);
    const list = libraryRows(team, { grouping: "none", filters: { ...NO_LIBRARY_FILTERS, machine: "build-1" }, query: "", collapsed: new Set(), now });
    expect(list.map((r) => r.key)).toEqual(["b", "c"]);
  });
  it("says who pushed a session, either alone when the other is missing", () => {
    const s = sessions[0];
    expect(pushedBy({ ...s, user: "ana", machine: "ana-laptop" })).toBe("ana@ana-laptop");
    expect(pushedBy({ ...s, user: "ana" })).toBe("ana");
    expect(pushedBy({ ...s, machine: "build-1" })).toBe("build-1");
    expect(pushedBy({ ...s, user: "", machine: "" })).toBeNull();
  });
  it("says what was removed", () => {
    expect(removedNotice([{ session: "a", title: "Fix", messages: 12, calls: 1 }])).toBe("Removed “Fix” (12 messages, 1 call)");
    expect(removedNotice([{ session: "a", title: "A", messages: 1, calls: 0 }, { session: "b", title: "B", messages: 1500, calls: 2 }])).toBe("Removed 2 sessions (1,501 messages, 2 calls)");
  });
  it("says how long ago", () => {
    expect(ago("2026-12-02T11:58:00Z", now)).toBe("2 min ago");
    expect(ago("2026-12-02T07:00:00Z", now)).toBe("5 h ago");
    expect(ago("2026-12-01T10:00:00Z", now)).toBe("yesterday");
  });
});
