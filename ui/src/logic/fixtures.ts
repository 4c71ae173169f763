// Test fixtures shared by the logic tests: stored messages numbered in transcript order.
import type { StoredMessage } from "../bindings";

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
