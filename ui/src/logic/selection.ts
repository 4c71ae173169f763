// Selection in a list of rows (the Library view's table), by id so it survives sorting and
// filtering: the focused row (moved by the arrow keys), the anchor a Shift range starts from, and
// the rows selected. Clicks, Ctrl-clicks and Shift ranges behave as in a file manager.

export type RowSelection = {
  selected: ReadonlySet<string>;
  /** The row the keyboard acts on. */
  focus: string | null;
  /** Where a Shift range starts: the row last clicked, Ctrl-clicked or toggled with Space. */
  anchor: string | null;
};

export const NO_SELECTION: RowSelection = { selected: new Set(), focus: null, anchor: null };

/** The ids from `a` to `b` inclusive, in list order (either may come first); none if one is gone. */
export function rangeOf(ids: readonly string[], a: string, b: string): string[] {
  const [i, j] = [ids.indexOf(a), ids.indexOf(b)];
  if (i < 0 || j < 0) return [];
  return ids.slice(Math.min(i, j), Math.max(i, j) + 1);
}

/** A click on `id`: alone selected; with `toggle` (Ctrl/Cmd) added or taken out; with `range`
 * (Shift) the rows from the anchor to it, replacing the selection. */
export function clickRow(sel: RowSelection, ids: readonly string[], id: string, mods: { toggle?: boolean; range?: boolean }): RowSelection {
  if (mods.range && sel.anchor !== null && ids.includes(sel.anchor)) {
    return { selected: new Set(rangeOf(ids, sel.anchor, id)), focus: id, anchor: sel.anchor };
  }
  if (mods.toggle) {
    const selected = new Set(sel.selected);
    if (selected.has(id)) selected.delete(id);
    else selected.add(id);
    return { selected, focus: id, anchor: id };
  }
  return { selected: new Set([id]), focus: id, anchor: id };
}

/**
 * The focus moved `delta` rows (clamped to the list; from nowhere, the first row). With `extend`
 * (Shift) the selection becomes the rows from the anchor (the old focus when there is none) to the
 * new focus; without, the selection stays as it is.
 */
export function moveFocus(sel: RowSelection, ids: readonly string[], delta: number, extend: boolean): RowSelection {
  if (!ids.length) return sel;
  const at = sel.focus === null ? -1 : ids.indexOf(sel.focus);
  const next = at < 0 ? 0 : Math.min(ids.length - 1, Math.max(0, at + delta));
  const focus = ids[next];
  if (!extend) return { ...sel, focus };
  const anchor = sel.anchor !== null && ids.includes(sel.anchor) ? sel.anchor : at < 0 ? focus : ids[at];
  return { selected: new Set(rangeOf(ids, anchor, focus)), focus, anchor };
}

/** Space: the focused row selected or not, and the anchor of the next range. */
export function toggleFocused(sel: RowSelection): RowSelection {
  if (sel.focus === null) return sel;
  return clickRow(sel, [], sel.focus, { toggle: true });
}

/** Ctrl+A: every row shown. */
export function selectAll(sel: RowSelection, ids: readonly string[]): RowSelection {
  return { ...sel, selected: new Set(ids) };
}

/** Escape: nothing selected (the focus stays). */
export function clearSelection(sel: RowSelection): RowSelection {
  return { ...sel, selected: new Set(), anchor: null };
}

/** The selected rows among those shown, in list order (a filter hides the others from actions). */
export function selectedIds(sel: RowSelection, ids: readonly string[]): string[] {
  if (sel.selected.size === 0) return [];
  return ids.filter((id) => sel.selected.has(id));
}
