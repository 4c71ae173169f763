// Test fixtures shared by the logic tests: stored messages numbered in transcript order, and
// session summaries.
import type { SessionSummary, StoredMessage } from "../bindings";

let seq = 0;

/** Numbering starts again at 1 (each test that counts seqs calls this first). */
export function resetSeq() {
  seq = 0;
}

export function msg(partial: Partial<StoredMessage>): StoredMessage {
  seq += 1;
  return {
    seq, anchor: seq, role: "user", kind: "user", content: "", chars: 0, toolCalls: [], toolCallId: null, compacted: false, summary: false,
    truncated: false, uncertain: false, reverted: false, createdBy: null, compactedBy: null, createdAt: "2026-11-30T00:00:00Z",
    offView: false, ...partial,
  };
}

/** A session summary with every figure zero, `partial` on top. */
export function summary(partial: Partial<SessionSummary> & { id: string }): SessionSummary {
  return {
    title: partial.id, workspace: "/w", project: "/w", liveMessages: 0, compactedMessages: 0, uncertainToolCalls: 0, runningToolCalls: 0,
    promptTokens: 0, cachedTokens: 0, completionTokens: 0, calls: 0, compactions: 0, savedChars: 0, createdAt: "2026-12-01T00:00:00Z",
    lastActivity: "2026-12-01T00:00:00Z", costUsd: null, unpricedCalls: 0, subagents: 0, parent: null, ...partial,
  };
}
