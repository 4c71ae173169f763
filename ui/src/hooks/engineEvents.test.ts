// Tests of engineEvents.ts: how engine, import and proxy events change the live state and the window.
import { describe, expect, it } from "vitest";
import { IDLE, reduceUiEvent } from "./engineEvents";

describe("reduceUiEvent", () => {
  const envelope = (event: Record<string, unknown>) => ({ kind: "engine", envelope: { v: 1, session: "s", ts: "", ...event } }) as never;

  it("accumulates streamed text and clears it when the model call is recorded", () => {
    const [streaming] = reduceUiEvent(IDLE, envelope({ type: "text_delta", text: "Hel" }), "s");
    const [more] = reduceUiEvent(streaming, envelope({ type: "text_delta", text: "lo" }), "s");
    expect(more.streaming).toBe("Hello");
    const [done, effect] = reduceUiEvent(more, envelope({ type: "model_call", durationMs: 1, requestChars: 1 }), "s");
    expect(done.streaming).toBe("");
    expect(effect.refresh).toBe("append");
  });

  it("selects a new session, reports skips and failures, and ends a turn", () => {
    expect(reduceUiEvent(IDLE, envelope({ type: "session", id: "new" }), "old")[1]).toEqual({ select: "new" });
    expect(reduceUiEvent(IDLE, envelope({ type: "session", id: "old" }), "old")[1]).toEqual({});
    expect(reduceUiEvent(IDLE, envelope({ type: "compaction_skipped", reason: "nothing" }), "s")[1].notice).toBe("Nothing compacted: nothing");
    const running = { ...IDLE, running: "s", progress: "Running shell…" };
    const [after, effect] = reduceUiEvent(running, { kind: "turnFinished", session: "s", error: "boom" }, "s");
    expect(after).toEqual(IDLE);
    expect(effect).toEqual({ refresh: "append", error: "boom" });
    expect(reduceUiEvent(IDLE, envelope({ type: "compaction_completed" }), "s")[1].refresh).toBe("full");
  });

  it("tells that an MCP server failed and that its tools leave the next request", () => {
    const [state, effect] = reduceUiEvent(IDLE, envelope({ type: "mcp_server_failed", server: "time", error: "it exited" }), "s");
    expect(state).toEqual(IDLE);
    expect(effect.notice).toBe("MCP server time is not available: it exited. Its tools are left out of the next request.");
  });
});

describe("imported sessions", () => {
  it("a watched source's appends grow the shown session in place, a new compaction reloads it", () => {
    const event = { kind: "imported" as const, sessions: ["a", "b"], reload: ["b"] };
    expect(reduceUiEvent(IDLE, event, "a")[1]).toEqual({ refresh: "append" });
    expect(reduceUiEvent(IDLE, event, "b")[1]).toEqual({ refresh: "full" });
    expect(reduceUiEvent(IDLE, event, "c")[1]).toEqual({ refresh: "sessions" });
  });
});

describe("the library changed elsewhere", () => {
  it("refreshes the list, whatever session is shown", () => {
    expect(reduceUiEvent(IDLE, { kind: "libraryChanged" }, "a")).toEqual([IDLE, { refresh: "sessions" }]);
    expect(reduceUiEvent(IDLE, { kind: "libraryChanged" }, null)).toEqual([IDLE, { refresh: "sessions" }]);
  });
});

describe("proxy events", () => {
  it("grows the session a captured call joined, refreshes the list otherwise", () => {
    const captured = (session: string) => ({ kind: "proxy" as const, event: { type: "captured" as const, session, n: 3, path: "/v1/responses", status: 200, promptTokens: 10, cachedTokens: 0 } });
    expect(reduceUiEvent(IDLE, captured("s1"), "s1")[1]).toEqual({ refresh: "append" });
    expect(reduceUiEvent(IDLE, captured("s2"), "s1")[1]).toEqual({ refresh: "sessions" });
    expect(reduceUiEvent(IDLE, { kind: "proxy", event: { type: "error", message: "upstream down" } }, "s1")[1]).toEqual({});
  });
});
