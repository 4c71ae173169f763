// The stored view's rows: compacted groups open or closed, and scrolling to a message by seq
// (opening the group that hides it).
import { useMemo, useState } from "preact/hooks";
import type { StoredView } from "../bindings";
import { storedRows, type Row } from "../logic";

export function useStoredRows(stored: StoredView | null) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  const [scrollTo, setScrollTo] = useState<{ index: number } | null>(null);
  const rows = useMemo<Row[]>(() => (stored ? storedRows(stored, open) : []), [stored, open]);

  const toggle = (compaction: number) => {
    const next = new Set(open);
    if (next.has(compaction)) next.delete(compaction);
    else next.add(compaction);
    setOpen(next);
  };

  /** Scrolls to `seq`, opening the compacted group it is in (`view`: a window just loaded around it). */
  const jumpTo = (seq: number, view: StoredView | null = stored) => {
    const stored = view;
    if (!stored) return;
    const m = stored.messages.find((x) => x.seq === seq);
    const nextOpen = m?.compactedBy != null ? new Set([...open, m.compactedBy]) : open;
    if (nextOpen !== open) setOpen(nextOpen);
    const index = storedRows(stored, nextOpen).findIndex(
      (r) => (r.kind === "message" && r.message.seq === seq) || (r.kind === "group" && r.firstSeq === seq),
    );
    setScrollTo(index >= 0 ? { index } : null);
  };

  return {
    rows,
    scrollTo,
    toggle,
    jumpTo,
    scrollToEnd: () => setScrollTo({ index: Number.MAX_SAFE_INTEGER }),
    reset: () => setOpen(new Set()),
  };
}
