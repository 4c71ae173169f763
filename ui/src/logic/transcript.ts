// The stored transcript as the window shows it: rows grouped by the compaction that hid them, tool
// results folded into their call, appends after the last message shown, and what an imported
// session's source recorded.
import type { CompactionView, StoredMessage, StoredView } from "../bindings";

/** One row of the stored transcript. */
export type Row =
  | { kind: "message"; message: StoredMessage; results: Map<string, StoredMessage>; depth: number }
  | { kind: "group"; compaction: number; reason: string; count: number; chars: number; firstSeq: number; open: boolean; depth: number };

/** What a row shows for a tool call's result. */
export function resultsFor(view: StoredView): Map<string, StoredMessage[]> {
  const byCall = new Map<string, StoredMessage[]>();
  for (const m of view.messages) {
    if (m.role === "tool" && m.toolCallId) {
      const list = byCall.get(m.toolCallId) ?? [];
      list.push(m);
      byCall.set(m.toolCallId, list);
    }
  }
  return byCall;
}

/**
 * Stored-view rows: compacted messages grouped by the compaction that hid them (collapsed unless
 * `open` has its id), tool results folded into the assistant message that called them.
 */
export function storedRows(view: StoredView, open: Set<number>): Row[] {
  const compactions = new Map<number, CompactionView>(view.compactions.map((c) => [c.id, c]));
  const rows: Row[] = [];
  const results = resultsFor(view);
  const shownAsResult = new Set<number>();
  const pick = (m: StoredMessage): Map<string, StoredMessage> => {
    const map = new Map<string, StoredMessage>();
    for (const call of m.toolCalls) {
      const candidates = results.get(call.id) ?? [];
      // The result that sits in the same state (live / compacted) as the call.
      const match = candidates.find((r) => r.compacted === m.compacted && !shownAsResult.has(r.seq)) ?? candidates[0];
      if (match) {
        map.set(call.id, match);
        shownAsResult.add(match.seq);
      }
    }
    return map;
  };
  const messages = view.messages;
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (m.compacted && m.compactedBy !== null) {
      // A run of hidden messages can interleave records (an older checkpoint or a reduced original
      // inside a later span): each record's messages show as one group, in order of first appearance.
      const groups = new Map<number, StoredMessage[]>();
      while (i < messages.length && messages[i].compacted && messages[i].compactedBy !== null) {
        const by = messages[i].compactedBy as number;
        const list = groups.get(by) ?? [];
        list.push(messages[i]);
        groups.set(by, list);
        i++;
      }
      for (const [by, span] of groups) {
        const record = compactions.get(by);
        const isOpen = open.has(by);
        rows.push({
          kind: "group",
          compaction: by,
          reason: record ? `${record.kind === "reduction" ? "reduction" : "compaction"} · ${record.reason}` : "compaction",
          count: span.length,
          chars: span.reduce((n, x) => n + x.chars, 0),
          firstSeq: span[0].seq,
          open: isOpen,
          depth: 0,
        });
        if (isOpen) {
          for (const x of span) {
            if (x.role === "tool" && shownAsResult.has(x.seq)) continue;
            rows.push({ kind: "message", message: x, results: pick(x), depth: 1 });
          }
        }
      }
      continue;
    }
    if (!(m.role === "tool" && shownAsResult.has(m.seq))) {
      rows.push({ kind: "message", message: m, results: pick(m), depth: 0 });
    }
    i++;
  }
  // Results follow their call, so they were folded into it above; orphans stay as their own rows.
  return rows;
}

/**
 * `shown` followed by the messages of `fresh` that come after its last one in transcript order
 * (two appends racing each other never duplicate a message).
 */
export function appendAfter(shown: StoredMessage[], fresh: StoredMessage[]): StoredMessage[] {
  const tail = shown[shown.length - 1];
  if (!tail) return fresh;
  const later = fresh.filter((m) => m.anchor > tail.anchor || (m.anchor === tail.anchor && m.seq > tail.seq));
  return later.length ? [...shown, ...later] : shown;
}

/** Why an imported session cannot be run or compacted (null for Alisio's own sessions). */
export function readOnlyReason(s: { source?: string; sourcePath?: string } | null | undefined): string | null {
  if (!s?.source) return null;
  return `Imported from ${s.source}${s.sourcePath ? ` (${s.sourcePath})` : ""}: read-only. Run and compact work on Alisio's own sessions.`;
}

/** Short notes about an imported message from what its source recorded: exit codes, errors, origin. */
export function sourceNotes(m: { meta?: Record<string, unknown>; offView: boolean }): string[] {
  const meta = (m.meta ?? {}) as Record<string, unknown>;
  const exec = (meta.exec ?? {}) as Record<string, unknown>;
  const notes: string[] = [];
  if (meta.sidechain === true) notes.push("sub-agent");
  else if (m.offView) notes.push("not sent to the model");
  const exit = meta.exit ?? exec.exitCode;
  if (typeof exit === "number") notes.push(`exit ${exit}`);
  if (meta.isError === true || meta.status === "error") notes.push("tool error");
  if (meta.synthetic === true) notes.push("synthetic");
  if (meta.generated === true) notes.push("generated by the agent, not stored");
  if (meta.isMeta === true) notes.push("meta");
  if (typeof meta.attachment === "string") notes.push(`attachment: ${meta.attachment}`);
  if (typeof meta.role === "string") notes.push(`role: ${meta.role}`);
  return notes;
}
