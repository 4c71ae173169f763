// Tests of search.ts: message and session search, `/compact`, the search hits grouped by session.
import { describe, expect, it } from "vitest";
import { msg, resetSeq } from "./fixtures";
import type { SearchHit } from "../bindings";
import { filterSessions, groupSearchHits, matchCount, parseSlashCompact, searchMessages, stepHit } from "./search";

function hit(session: string, seq: number, more: Partial<SearchHit> = {}): SearchHit {
  return { session, seq, role: "user", source: "codex", project: "/w", at: "2025-01-01T00:00:00Z", snippet: "[x]", title: "Agent title", ...more };
}

describe("search and commands", () => {
  it("finds messages by content and tool arguments", () => {
    resetSeq();
    const messages = [msg({ content: "Parser errors" }), msg({ role: "assistant", toolCalls: [{ id: "x", name: "grep", arguments: "{\"pattern\":\"ParseError\"}" }] })];
    expect(searchMessages(messages, "parseerror")).toEqual([2]);
    expect(searchMessages(messages, "parse")).toEqual([1, 2]);
    expect(searchMessages(messages, "parser")).toEqual([1]);
    expect(searchMessages(messages, "  ")).toEqual([]);
  });
  it("filters sessions", () => {
    const sessions = [{ id: "01a", title: "Demo", workspace: "/w" }, { id: "02b", title: "Other", workspace: "/x" }];
    expect(filterSessions(sessions, "demo").map((s) => s.id)).toEqual(["01a"]);
    expect(filterSessions(sessions, "").length).toBe(2);
  });
  it("parses /compact with and without a focus", () => {
    expect(parseSlashCompact("/compact the parser bug")).toEqual({ focus: "the parser bug" });
    expect(parseSlashCompact("/compact")).toEqual({ focus: null });
    expect(parseSlashCompact("/compactor")).toBeNull();
    expect(parseSlashCompact("please /compact")).toBeNull();
  });
  it("groups hits by session in the order of each session's best hit", () => {
    const hits = [hit("s2", 5), hit("s1", 9), hit("s2", 1), hit("s3", 4), hit("s1", 2)];
    const groups = groupSearchHits(hits, []);
    expect(groups.map((g) => g.session)).toEqual(["s2", "s1", "s3"]);
    expect(groups[0].hits.map((h) => h.seq)).toEqual([5, 1]);
    expect(groups[1].hits.map((h) => h.seq)).toEqual([9, 2]);
    expect(groups.flatMap((g) => g.hits).length).toBe(hits.length);
    expect(groupSearchHits([], [])).toEqual([]);
  });
  it("titles a group from the session list, else the hit, else the id", () => {
    const hits = [
      hit("01JABCDEFGHJKMNPQRSTVWXYZ", 1, { title: "" }),
      hit("renamed-session", 1),
      hit("unknown-session", 1),
      hit("own", 1, { source: "", project: "/p" }),
    ];
    const groups = groupSearchHits(hits, [{ id: "renamed-session", title: "Given in Alisio" }, { id: "unknown-session", title: "" }]);
    expect(groups.map((g) => g.title)).toEqual(["01JABCDE", "Given in Alisio", "Agent title", "Agent title"]);
    expect(groups.map((g) => g.source)).toEqual(["codex", "codex", "codex", "alisio"]);
    expect(groups[3].project).toBe("/p");
  });
  it("counts matches and walks the hits with the arrow keys", () => {
    expect(matchCount(1)).toBe("1 match");
    expect(matchCount(3)).toBe("3 matches");
    expect(stepHit(-1, 3, "ArrowDown")).toBe(0);
    expect(stepHit(2, 3, "ArrowDown")).toBe(2);
    expect(stepHit(1, 3, "ArrowUp")).toBe(0);
    expect(stepHit(0, 3, "ArrowUp")).toBe(-1);
    expect(stepHit(-1, 3, "ArrowUp")).toBeNull();
    expect(stepHit(-1, 0, "ArrowDown")).toBeNull();
    expect(stepHit(0, 3, "Enter")).toBeNull();
  });
});
