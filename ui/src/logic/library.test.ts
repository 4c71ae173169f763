// Tests of library.ts: grouping, filters and "how long ago".
import { describe, expect, it } from "vitest";
import { ago, libraryAgents, libraryRows, NO_LIBRARY_FILTERS } from "./library";

describe("library", () => {
  const base = { title: "t", workspace: "/w", liveMessages: 1, compactedMessages: 0, uncertainToolCalls: 0, runningToolCalls: 0,
    promptTokens: 0, cachedTokens: 0, completionTokens: 0, compactions: 0, savedChars: 0, createdAt: "", costUsd: null, unpricedCalls: 0 , subagents: 0, parent: null };
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
  it("says how long ago", () => {
    expect(ago("2026-12-02T11:58:00Z", now)).toBe("2 min ago");
    expect(ago("2026-12-02T07:00:00Z", now)).toBe("5 h ago");
    expect(ago("2026-12-01T10:00:00Z", now)).toBe("yesterday");
  });
});
