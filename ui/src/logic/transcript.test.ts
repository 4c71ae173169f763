// Tests of transcript.ts: the stored view's rows, appends, imported sessions' notes.
import { describe, expect, it } from "vitest";
import type { CompactionView, StoredMessage, StoredView } from "../bindings";
import { msg, resetSeq } from "./fixtures";
import { appendAfter, readOnlyReason, sourceNotes, storedRows } from "./transcript";

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
    resetSeq();
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
    resetSeq();
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
    resetSeq();
    const rows = storedRows(view([msg({ role: "tool", toolCallId: "lost", content: "orphan" })]), new Set());
    expect(rows).toHaveLength(1);
  });
});

describe("appendAfter", () => {
  it("adds only what comes after the last shown message, so racing appends never duplicate", () => {
    resetSeq();
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
});
