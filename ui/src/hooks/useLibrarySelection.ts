// The Library view's selection and its keyboard and mouse: ↑/↓ (Page, Home, End) move the focused
// row, Shift extends, Space toggles, Ctrl+A selects all shown, Escape clears, Enter opens, F2
// renames; click selects, Ctrl/Cmd-click toggles, Shift-click ranges, double-click opens. Handlers
// sit on the table, not on each row: rows stay stateless, so thousands of them recycle cheaply.
import { useMemo, useRef, useState } from "preact/hooks";
import { clearSelection, clickRow, moveFocus, NO_SELECTION, selectAll, selectedIds, toggleFocused, type RowSelection } from "../logic";

/** Rows PageUp / PageDown move. */
const PAGE = 20;

/** The session of the row an event happened in. */
function rowOf(e: Event): string | null {
  return (e.target as HTMLElement).closest<HTMLElement>("[data-session]")?.dataset.session ?? null;
}

/** The focus moves of the keys that move it, as a row delta. */
function focusDelta(key: string): number | null {
  const deltas: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: PAGE, PageUp: -PAGE, Home: -Infinity, End: Infinity };
  return key in deltas ? deltas[key] : null;
}

export function useLibrarySelection(ids: string[], actions: { open: (id: string) => void; rename: (id: string) => void }) {
  const [selection, setSelection] = useState<RowSelection>(NO_SELECTION);
  // Keys repeat faster than the table renders: each key acts on the selection the last one left.
  const latest = useRef(selection);
  latest.current = selection;
  const [reveal, setReveal] = useState<{ index: number } | null>(null);
  const [scrollTo, setScrollTo] = useState<{ index: number } | null>(null);

  const apply = (next: RowSelection, scroll: boolean) => {
    latest.current = next;
    setSelection(next);
    if (scroll && next.focus !== null) setReveal({ index: ids.indexOf(next.focus) });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    // Keys typed in a field or on a button are theirs, Enter and Space on a header sort by it; the
    // arrows from a header just clicked walk the rows.
    const target = e.target as HTMLElement;
    if (target.closest("input, select, textarea, button")) return;
    if (target.closest("[role=columnheader]") && (e.key === "Enter" || e.key === " ")) return;
    const sel = latest.current;
    const ctrl = e.ctrlKey || e.metaKey;
    const delta = focusDelta(e.key);
    if (delta !== null) apply(moveFocus(sel, ids, delta, e.shiftKey), true);
    else if (e.key === " ") apply(toggleFocused(sel), false);
    else if (ctrl && e.key.toLowerCase() === "a") apply(selectAll(sel, ids), false);
    else if (e.key === "Escape" && sel.selected.size > 0) apply(clearSelection(sel), false);
    else if (e.key === "Enter" && sel.focus !== null) actions.open(sel.focus);
    else if (e.key === "F2" && sel.focus !== null) actions.rename(sel.focus);
    else return;
    e.preventDefault();
  };

  const onClick = (e: MouseEvent) => {
    const id = rowOf(e);
    if (id) apply(clickRow(latest.current, ids, id, { toggle: e.ctrlKey || e.metaKey, range: e.shiftKey }), false);
  };

  const onDblClick = (e: MouseEvent) => {
    const id = rowOf(e);
    if (id) actions.open(id);
  };

  /** After a new sort or filter: the focused row kept in view, else the top of the list. */
  const follow = () => {
    const at = latest.current.focus === null ? -1 : ids.indexOf(latest.current.focus);
    if (at >= 0) setReveal({ index: at });
    else if (ids.length) setScrollTo({ index: 0 });
  };

  const chosen = useMemo(() => selectedIds(selection, ids), [selection, ids]);
  return { selection, chosen, reveal, scrollTo, follow, onKeyDown, onClick, onDblClick, clear: () => apply(NO_SELECTION, false) };
}
