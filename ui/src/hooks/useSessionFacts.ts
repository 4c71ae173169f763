// What the window reads off the stored view of the session shown: tool calls whose result is not
// known, messages whose output was trimmed, and the checkpoint Undo would revert.
import { useMemo } from "preact/hooks";
import type { JournalEntry, StoredView } from "../bindings";

export function useSessionFacts(stored: StoredView | null) {
  const pending = useMemo<JournalEntry[]>(
    () => (stored?.toolCalls ?? []).filter((t) => t.state === "started" || t.state === "uncertain"),
    [stored],
  );
  const trimmed = useMemo(() => (stored?.messages ?? []).filter((m) => m.truncated), [stored]);
  const latestCheckpoint = [...(stored?.compactions ?? [])].reverse().find((c) => c.kind === "checkpoint" && c.status === "applied");
  return { pending, trimmed, latestCheckpoint };
}
