// Tests of search.ts: message and session search, `/compact`, the full-text query.
import { describe, expect, it } from "vitest";
import { msg, resetSeq } from "./fixtures";
import { filterSessions, parseSlashCompact, searchMessages } from "./search";

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
});
