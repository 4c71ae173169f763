import { describe, expect, it } from "vitest";
import type { CallComposition, CallDiff, CallSummary, CompactionView, ContextMeter, StoredMessage, StoredView } from "./bindings";
import { IDLE, reduceUiEvent } from "./hooks/engineEvents";
import { ago, ftsQuery, libraryAgents, libraryRows, NO_LIBRARY_FILTERS } from "./logic";
import { agentName, breakLabel, compositionBars, formatUsd, missingLabel, recentHitRate, sourceBadge, stackedUsage } from "./logic";
import { defaultHint, getIn, numberValue, optionsAt, rangeHint, setIn } from "./logic";
import { appendAfter, cacheVerdict, chartBars, chartMax, filterSessions, sessionFigures, firstVisible, formatSpan, prefixParts, meterLimitLabel, offsets, parseSlashCompact, searchMessages, readOnlyReason, sourceNotes, storedRows, addToCheckpoint, fidelityLabel, profileName, withProfile } from "./logic";

let seq = 0;
function msg(partial: Partial<StoredMessage>): StoredMessage {
  seq += 1;
  return {
    seq, anchor: seq, role: "user", kind: "user", content: "", chars: 0, toolCalls: [], toolCallId: null, compacted: false, summary: false,
    truncated: false, uncertain: false, reverted: false, createdBy: null, compactedBy: null, createdAt: "2026-11-30T00:00:00Z",
    offView: false, ...partial,
  };
}

function compaction(id: number, kind: "checkpoint" | "reduction" = "checkpoint"): CompactionView {
  return {
    id, kind, reason: "manual", focus: null, status: "applied", partial: false, checkpoint: {}, summarizedRanges: [],
    summarizedMessages: 0, summarizedChars: 0, checkpointChars: 0, beforeChars: 0, afterChars: 0, pluginReports: [],
    pluginFields: {}, injectContext: [], modelCallId: null, createdAt: "", appliedAt: null, revertedAt: null, summarizedSeqs: [], fidelity: null,
    trigger: null,
  };
}

function view(messages: StoredMessage[], compactions: CompactionView[] = []): StoredView {
  return { session: { id: "s", title: "t", workspace: "/w", createdAt: "", updatedAt: "" }, messages, hasOlder: false, compactions, toolCalls: [], modelCalls: [], forkedFrom: null, parent: null };
}

describe("storedRows", () => {
  it("groups compacted messages per compaction and folds tool results into their call", () => {
    seq = 0;
    const messages = [
      msg({ content: "old question", compacted: true, compactedBy: 1, chars: 12 }),
      msg({ role: "assistant", toolCalls: [{ id: "c1", name: "grep", arguments: "{}" }], compacted: true, compactedBy: 1, chars: 8 }),
      msg({ role: "tool", toolCallId: "c1", content: "hit", compacted: true, compactedBy: 1, chars: 3 }),
      msg({ content: "## Checkpoint", summary: true, createdBy: 1 }),
      msg({ content: "new question" }),
      msg({ role: "assistant", toolCalls: [{ id: "c2", name: "read_file", arguments: "{}" }] }),
      msg({ role: "tool", toolCallId: "c2", content: "file" }),
    ];
    const closed = storedRows(view(messages, [compaction(1)]), new Set());
    expect(closed.map((r) => (r.kind === "group" ? `group ${r.count} ${r.chars}` : r.message.content || r.message.role))).toEqual([
      "group 3 23",
      "## Checkpoint",
      "new question",
      "assistant",
    ]);
    const last = closed[3];
    expect(last.kind === "message" && last.results.get("c2")?.content).toBe("file");

    const open = storedRows(view(messages, [compaction(1)]), new Set([1]));
    expect(open.length).toBe(6);
    expect(open[1].kind === "message" && open[1].depth).toBe(1);
    expect(open[2].kind === "message" && open[2].results.get("c1")?.content).toBe("hit");
  });

  it("shows a compaction's messages as one group when an older record's messages sit inside its span", () => {
    seq = 0;
    // Compaction 2 summarized an older checkpoint and the messages after it; a reduced original
    // (hidden by reduction 3) sits between them in transcript order.
    const messages = [
      msg({ content: "old checkpoint", summary: true, kind: "checkpoint", createdBy: 1, compacted: true, compactedBy: 2, chars: 5 }),
      msg({ content: "question", compacted: true, compactedBy: 2, chars: 5 }),
      msg({ role: "tool", toolCallId: "x", content: "original output", compacted: true, compactedBy: 3, chars: 50 }),
      msg({ role: "tool", toolCallId: "x", content: "cut output", truncated: true, compacted: true, compactedBy: 2, chars: 10 }),
      msg({ content: "checkpoint 2", summary: true, kind: "checkpoint", createdBy: 2 }),
    ];
    const rows = storedRows(view(messages, [compaction(1), compaction(2), compaction(3, "reduction")]), new Set());
    expect(rows.map((r) => (r.kind === "group" ? `group #${r.compaction}: ${r.count}` : r.message.content))).toEqual([
      "group #2: 3",
      "group #3: 1",
      "checkpoint 2",
    ]);
  });

  it("keeps an orphan tool result visible", () => {
    seq = 0;
    const rows = storedRows(view([msg({ role: "tool", toolCallId: "lost", content: "orphan" })]), new Set());
    expect(rows).toHaveLength(1);
  });
});

describe("meterLimitLabel", () => {
  const base: ContextMeter = {
    strategy: "native", windowTokens: 10_000, windowSource: "models", windowTrusted: true, limitTokens: 10_000, threshold: 0.85,
    maxContextChars: 800_000, reducibleChars: 30_000, toolCatalogChars: 4_000, estimatedTokens: 8_500, used: 0.85, catalog: 0.1, over: true,
  };
  it("names the window the engine measured against, or the character fallback", () => {
    expect(meterLimitLabel(base)).toBe("window 10.0k tokens (GET /models)");
    expect(meterLimitLabel({ ...base, windowTokens: 5_000_000, windowTrusted: false, limitTokens: 200_000 })).toBe("maxContextChars / 4 = 200.0k tokens");
  });
});

describe("search and commands", () => {
  it("finds messages by content and tool arguments", () => {
    seq = 0;
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

describe("formatSpan", () => {
  it("reads in transcript order, as runs", () => {
    expect(formatSpan([11, 6, 7, 8, 9, 10])).toBe("#11, #6–#10");
    expect(formatSpan([1, 2, 3])).toBe("#1–#3");
    expect(formatSpan([4])).toBe("#4");
  });
});

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

describe("request diffs", () => {
  const diff = (over: Partial<CallDiff>): CallDiff => ({
    n: 2, against: 1, commonPrefixChars: 800, againstChars: 1000, commonPrefixTokens: 200, cachedTokens: 190, cacheBreak: true,
    firstDivergence: { part: "messages", index: 1, path: "/content", before: "a", after: "b" }, newChars: 900, sameMessages: 0,
    messageChanges: [], toolChanges: { added: [], removed: [], changed: [], reordered: false }, paramChanges: [],
    cause: null, agentReason: null, lostTokens: null, missCostUsd: null, ...over,
  });

  it("splits the bar into shared, new and dropped", () => {
    expect(prefixParts(diff({}))).toEqual({ shared: 800, added: 100, dropped: 200, total: 1100 });
  });

  it("calls a rewritten prefix a break, a kept one the server skipped a miss", () => {
    expect(cacheVerdict(diff({})).status).toBe("break");
    expect(cacheVerdict(diff({})).label).toContain("message 1");
    const kept = { cacheBreak: false, commonPrefixChars: 1000, commonPrefixTokens: 250 };
    expect(cacheVerdict(diff({ ...kept, cachedTokens: 240 })).status).toBe("reused");
    expect(cacheVerdict(diff({ ...kept, cachedTokens: 10 })).status).toBe("missed");
    expect(cacheVerdict(diff({ ...kept, cachedTokens: null })).status).toBe("unknown");
  });
});

describe("the context chart", () => {
  it("stacks cached under uncached prompt tokens and scales to the window", () => {
    const call = (n: number, prompt: number | null, cached: number | null): CallSummary => ({
      n, purpose: "turn", startedAt: "", requestChars: 0, promptTokens: prompt, cachedTokens: cached, completionTokens: 10,
      ttftMs: null, durationMs: null, finishReason: null, error: null, requestSource: "alisio", exact: true,
      model: "m", cacheWriteTokens: null, costUsd: null, cacheSavingsUsd: null, cacheWrite1hTokens: null, recordedCostUsd: null, requests: 1,
    });
    const bars = chartBars([call(1, 100, 0), call(2, 150, 200), call(3, null, null)], [
      { n: 2, cacheBreak: true, commonPrefixTokens: 5, cachedTokens: 200 },
    ]);
    expect(bars).toEqual([
      { n: 1, cached: 0, uncached: 100, completion: 10, cacheBreak: false },
      { n: 2, cached: 150, uncached: 0, completion: 10, cacheBreak: true },
      { n: 3, cached: 0, uncached: 0, completion: 10, cacheBreak: false },
    ]);
    expect(chartMax(bars, null)).toBe(Math.ceil(160 * 1.08));
    expect(chartMax(bars, 1000)).toBe(1080);
    expect(chartMax([], null)).toBe(1);
  });
});

describe("session figures", () => {
  it("reports what the server said and labels the estimate", () => {
    const s = { id: "s", title: "t", workspace: "/w", liveMessages: 1, compactedMessages: 0, uncertainToolCalls: 0, runningToolCalls: 0,
      promptTokens: 2000, cachedTokens: 1500, completionTokens: 300, compactions: 2, savedChars: 40_000, createdAt: "", lastActivity: "",
      costUsd: null, unpricedCalls: 0, project: "/w", subagents: 0, parent: null };
    expect(sessionFigures(s)).toEqual(["cache 75 % of 2,000 tokens in", "300 tokens out", "2 compactions", "≈ 10.0k tokens saved (estimate)"]);
    expect(sessionFigures({ ...s, promptTokens: 0, compactions: 0, savedChars: 0 })).toEqual([]);
    expect(sessionFigures({ ...s, promptTokens: 0, compactions: 0, savedChars: 0, costUsd: 0.0421, unpricedCalls: 2 })).toEqual(["$0.042100 + 2 unpriced"]);
  });
});

describe("appendAfter", () => {
  it("adds only what comes after the last shown message, so racing appends never duplicate", () => {
    seq = 0;
    const [a, b, c, d] = [msg({}), msg({}), msg({}), msg({})];
    expect(appendAfter([a, b], [c, d]).map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(appendAfter([a, b, c], [c, d]).map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(appendAfter([a, b, c, d], [c, d]).map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(appendAfter([], [a]).map((m) => m.seq)).toEqual([1]);
  });
});

describe("imported sessions", () => {
  it("are read-only with the source named, and own sessions are not", () => {
    expect(readOnlyReason({ source: "codex", sourcePath: "/h/.codex/sessions/r.jsonl" })).toContain("Imported from codex (/h/.codex/sessions/r.jsonl)");
    expect(readOnlyReason({})).toBeNull();
    expect(readOnlyReason(null)).toBeNull();
  });

  it("notes what the source recorded about a message", () => {
    expect(sourceNotes(msg({ meta: { exec: { exitCode: 2 } } }))).toEqual(["exit 2"]);
    expect(sourceNotes(msg({ meta: { sidechain: true }, offView: true }))).toEqual(["sub-agent"]);
    expect(sourceNotes(msg({ meta: { subtype: "local_command" }, offView: true }))).toEqual(["not sent to the model"]);
    expect(sourceNotes(msg({ meta: { exit: 0, status: "error" } }))).toEqual(["exit 0", "tool error"]);
    expect(sourceNotes(msg({}))).toEqual([]);
  });

  it("a watched source's appends grow the shown session in place, a new compaction reloads it", () => {
    const event = { kind: "imported" as const, sessions: ["a", "b"], reload: ["b"] };
    expect(reduceUiEvent(IDLE, event, "a")[1]).toEqual({ refresh: "append" });
    expect(reduceUiEvent(IDLE, event, "b")[1]).toEqual({ refresh: "full" });
    expect(reduceUiEvent(IDLE, event, "c")[1]).toEqual({ refresh: "sessions" });
  });
});

describe("fidelity in the proposal editor", () => {
  it("adds a missing item to its section once, keeping the others", () => {
    const text = JSON.stringify({ goal: "g", instructions: ["a"], currentState: "", relevantFiles: [] });
    const once = addToCheckpoint(text, "relevantFiles", "src/parser.rs");
    expect(JSON.parse(once).relevantFiles).toEqual(["src/parser.rs"]);
    expect(JSON.parse(addToCheckpoint(once, "relevantFiles", "src/parser.rs")).relevantFiles).toEqual(["src/parser.rs"]);
    expect(JSON.parse(addToCheckpoint(text, "instructions", "never change the API")).instructions).toEqual(["a", "never change the API"]);
    expect(JSON.parse(addToCheckpoint(text, "currentState", "tests fail")).currentState).toEqual(["tests fail"]);
    expect(JSON.parse(addToCheckpoint(JSON.stringify({ goal: "g" }), "goal", "more")).goal).toBe("g\nmore");
    expect(JSON.parse(addToCheckpoint(text, "nextSteps", "x")).goal).toBe("g");
  });

  it("appends a line to a plain-text checkpoint", () => {
    expect(addToCheckpoint("We did things.", "relevantFiles", "src/a.rs")).toBe("We did things.\n- src/a.rs\n");
  });

  it("labels the score with what was kept", () => {
    expect(fidelityLabel({ score: 0.75, checked: 4, missing: [{}] })).toBe("0.75 · 3 of 4 kept");
  });
});

describe("found servers", () => {
  it("become an active profile, keeping the other profiles and settings", () => {
    const raw = { provider: { model: "x" }, profiles: { cloud: { model: "big" } } };
    const next = withProfile(raw, { name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1", models: ["qwen"] });
    expect(profileName({ name: "LM Studio" })).toBe("lmstudio");
    expect(next).toEqual({
      provider: { model: "x" },
      profiles: { cloud: { model: "big" }, lmstudio: { baseUrl: "http://127.0.0.1:1234/v1", model: "qwen", apiKeyEnv: null } },
      activeProfile: "lmstudio",
    });
  });
});

describe("settings forms", () => {
  it("reads and writes nested keys without touching the original, and blank removes a key", () => {
    const doc = { provider: { model: "a" }, profiles: { local: { baseUrl: "http://127.0.0.1:8080/v1" } } };
    const next = setIn(doc, ["profiles", "local", "contextWindow"], 8192);
    expect(getIn(next, ["profiles", "local", "contextWindow"])).toBe(8192);
    expect(getIn(next, ["profiles", "local", "baseUrl"])).toBe("http://127.0.0.1:8080/v1");
    expect(getIn(doc, ["profiles", "local", "contextWindow"])).toBeUndefined();
    expect(getIn(setIn(next, ["profiles", "local", "contextWindow"], undefined), ["profiles", "local"])).toEqual({ baseUrl: "http://127.0.0.1:8080/v1" });
    expect(getIn(setIn({}, ["limits", "maxTokens"], 5), ["limits"])).toEqual({ maxTokens: 5 });
    expect(getIn(doc, ["nothing", "here"])).toBeUndefined();
  });

  it("turns number fields into values: blank is unset, garbage is refused", () => {
    expect(numberValue(" 32768 ")).toBe(32768);
    expect(numberValue("")).toBeUndefined();
    expect(numberValue("12k")).toBeNull();
  });
});


describe("settings hints come from the engine's schema", () => {
  it("shows the engine's defaults, ranges and options", () => {
    expect(defaultHint(["compaction", "maxOutputTokens"])).toBe("16000");
    expect(defaultHint(["cacheCompact", "threshold"])).toBe("68");
    expect(defaultHint(["cacheCompact", "summaryMaxTokens"])).toBe("1200");
    expect(defaultHint(["limits", "maxOutputTokens"])).toBe("8192");
    expect(defaultHint(["limits", "maxTokens"])).toBe("none");
    expect(rangeHint(["compaction", "threshold"])).toBe("0.1–0.99");
    expect(rangeHint(["mcpServers", "any", "startupTimeoutMs"])).toBe("100–600000");
    expect(optionsAt(["compaction", "strategy"])).toEqual(["native", "cache", "mask", "hybrid"]);
    expect(optionsAt(["profiles", "local", "api"])).toEqual(["chat", "responses", "anthropic"]);
  });
});

describe("exact and reconstructed requests", () => {
  it("badges every source, exact only where the body is the one sent", () => {
    expect(sourceBadge("alisio")).toMatchObject({ label: "exact", exact: true });
    expect(sourceBadge("agent-log")).toMatchObject({ label: "exact", exact: true });
    expect(sourceBadge("proxy").title).toContain("alisio proxy");
    expect(sourceBadge("reconstructed")).toMatchObject({ label: "reconstructed", exact: false });
  });

  it("names what the agent did not record, with its estimate", () => {
    expect(missingLabel({ part: "tools", estimatedTokens: 3200 }, "codex")).toBe("tools not recorded by Codex: ≈ 3,200 tokens");
    expect(missingLabel({ part: "system", estimatedTokens: 950 }, "opencode")).toBe("system prompt not recorded by OpenCode: ≈ 950 tokens");
    expect(missingLabel({ part: "system", estimatedTokens: 3900 }, "roo")).toBe("system prompt not recorded by Roo Code: ≈ 3,900 tokens");
    expect(agentName(undefined)).toBe("the agent");
  });

  it("stacks each part with its missing estimate on top of what is shown", () => {
    const share = (tokens: number) => ({ chars: tokens * 4, tokens });
    const row: CallComposition = {
      n: 2, purpose: "turn", exact: false, promptTokens: 5000, cachedTokens: 0, cacheBreak: true,
      composition: {
        system: share(0), tools: [{ server: "agent", chars: 0, tokens: 0 }], checkpoint: share(0), injected: share(0),
        user: share(100), assistant: share(50), toolResults: share(800),
      },
      missing: [{ part: "system", estimatedTokens: 1200 }, { part: "tools", estimatedTokens: 2800 }],
    };
    const [bar] = compositionBars([row]);
    expect(bar.segments).toEqual([
      { part: "system", tokens: 1200, missing: true },
      { part: "tools", tokens: 2800, missing: true },
      { part: "user", tokens: 100, missing: false },
      { part: "assistant", tokens: 50, missing: false },
      { part: "toolResults", tokens: 800, missing: false },
    ]);
    expect(bar.total).toBe(4950);
    expect(bar.cacheBreak).toBe(true);
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

describe("cost and cache forensics", () => {
  it("shows money to the micro-dollar under a dollar, to the cent above, and unpriced as such", () => {
    expect(formatUsd(0.004213)).toBe("$0.004213");
    expect(formatUsd(12.345)).toBe("$12.35");
    expect(formatUsd(0)).toBe("$0.000000");
    expect(formatUsd(null)).toBe("unpriced");
  });

  it("says a break's cause, what was processed again and what it cost", () => {
    expect(breakLabel({ n: 4, against: 3, cause: "tools", agentReason: null, lostTokens: 1200, missCostUsd: 0.0018, divergence: null })).toBe(
      "the tools changed: 1,200 tokens processed again, $0.001800",
    );
    expect(breakLabel({ n: 4, against: 3, cause: "expired", agentReason: "ttl", lostTokens: 10, missCostUsd: null, divergence: null })).toBe(
      "the cache expired between the calls: 10 tokens processed again, unpriced (Claude Code says: ttl)",
    );
  });

  it("rates the cache over the last calls", () => {
    const call = (prompt: number | null, cached: number | null) => ({ promptTokens: prompt, cachedTokens: cached });
    expect(recentHitRate([call(100, 0), call(1000, 900), call(1000, 800), call(null, null)], 2)).toBeCloseTo(0.85);
    expect(recentHitRate([], 5)).toBeNull();
  });

  it("stacks each day's cost by series, unpriced days at zero", () => {
    const row = (key: string, cost: number | null) => ({ key, label: null, calls: 1, promptTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, completionTokens: 0, costUsd: cost, cacheSavingsUsd: null, cacheHitRate: null, unpricedCalls: 0, sessions: 1 });
    const days = stackedUsage([
      { series: "codex", rows: [row("2026-11-30", 1.5), row("2026-12-01", 0.25)] },
      { series: "claude-code", rows: [row("2026-12-01", 2), row("2026-12-02", null)] },
    ]);
    expect(days).toEqual([
      { day: "2026-11-30", parts: [{ series: "codex", cost: 1.5 }], total: 1.5 },
      { day: "2026-12-01", parts: [{ series: "codex", cost: 0.25 }, { series: "claude-code", cost: 2 }], total: 2.25 },
      { day: "2026-12-02", parts: [{ series: "claude-code", cost: 0 }], total: 0 },
    ]);
  });
});

describe("the search box", () => {
  it("sends plain words as prefixes and FTS5 syntax as typed", () => {
    expect(ftsQuery("pars error")).toBe('"pars"* "error"*');
    expect(ftsQuery('  "exact phrase" ')).toBe('"exact phrase"');
    expect(ftsQuery("lexer OR parser")).toBe("lexer OR parser");
    expect(ftsQuery('say "hi')).toBe('say "hi');
  });
});

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

describe("why a compaction fired", () => {
  it("says the figures it fired on, or what asked for it", async () => {
    const { triggerText } = await import("./logic");
    expect(triggerText({ kind: "threshold", promptTokens: 7010, window: 10000, threshold: 0.68 })).toBe(
      "the request reached ≈ 7,010 tokens of 10.0k tokens (70 %; fires at 68 %)",
    );
    expect(triggerText({ kind: "threshold", promptTokens: 1700, window: null, threshold: 0.85 })).toBe(
      "the conversation reached ≈ 1,700 tokens, 85 % of limits.maxContextChars",
    );
    expect(triggerText({ kind: "manual", promptTokens: null, window: null, threshold: null })).toBe("asked for");
    expect(triggerText({ kind: "mask", promptTokens: null, window: null, threshold: null })).toBe("masking, asked for");
    expect(triggerText({ kind: "budget", promptTokens: 900, window: null, threshold: null })).toBe(
      "the hard limit (limits.maxContextChars): ≈ 900 tokens after reductions",
    );
    expect(triggerText(null)).toBe("");
  });
});

describe("the compaction dialog's strategy previews", () => {
  const base = { strategy: "mask" as const, isDefault: false, unavailable: null, beforeTokens: 12_300, afterTokens: 4_100, checkpointMaxTokens: null, checkpointLastTokens: null, summarizerTokens: null, summarized: 0, masked: 6, pinnedTokens: 40 };
  it("says before → after, with the checkpoint the model writes apart", async () => {
    const { strategyEffect, strategyWork } = await import("./logic");
    expect(strategyEffect(base)).toBe("≈ 12.3k tokens → 4,100 tokens");
    expect(strategyWork(base)).toBe("masks 6 tool results · no model call");
    const summary = { ...base, strategy: "native" as const, masked: 0, checkpointMaxTokens: 1200, summarizerTokens: 12_300, summarized: 14 };
    expect(strategyEffect(summary)).toBe("≈ 12.3k tokens → 4,100 tokens + a checkpoint ≤ 1,200 tokens");
    expect(strategyWork(summary)).toBe("summarizes 14 messages (the summarizer reads 12.3k tokens) · pins carried: 40 tokens");
    expect(strategyEffect({ ...summary, checkpointLastTokens: 420 })).toBe("≈ 12.3k tokens → 4,100 tokens + a checkpoint ≤ 1,200 tokens; the last one was 420 tokens");
    expect(strategyEffect({ ...base, unavailable: "nothing to mask" })).toBe("not now: nothing to mask");
  });
});

describe("the Compare table", () => {
  it("shows each total with its change, cost in whole micro-dollars, the files each side alone touched", async () => {
    const { compareRows } = await import("./logic");
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

describe("money in the window", () => {
  it("adds costs in whole micro-dollars, never as accumulated floats", async () => {
    const { sumUsd } = await import("./logic");
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumUsd([0.1, 0.2])).toBe(0.3);
    expect(sumUsd([0.000001, null, 0.000002])).toBe(0.000003);
    expect(sumUsd([null, null])).toBeNull();
  });
});
