// Tests of selection.ts: clicks, Ctrl-clicks, Shift ranges by mouse and keyboard, select all.
import { describe, expect, it } from "vitest";
import { clearSelection, clickRow, moveFocus, NO_SELECTION, rangeOf, selectAll, selectedIds, toggleFocused, type RowSelection } from "./selection";

const ids = ["a", "b", "c", "d", "e"];
const picked = (sel: RowSelection) => selectedIds(sel, ids);

describe("selection", () => {
  it("selects the row clicked alone, toggles with Ctrl, ranges from the anchor with Shift", () => {
    let sel = clickRow(NO_SELECTION, ids, "b", {});
    expect(picked(sel)).toEqual(["b"]);
    sel = clickRow(sel, ids, "d", { range: true });
    expect(picked(sel)).toEqual(["b", "c", "d"]);
    // The anchor stays: a second Shift-click re-ranges from it, upwards too.
    sel = clickRow(sel, ids, "a", { range: true });
    expect(picked(sel)).toEqual(["a", "b"]);
    sel = clickRow(sel, ids, "e", { toggle: true });
    expect(picked(sel)).toEqual(["a", "b", "e"]);
    sel = clickRow(sel, ids, "a", { toggle: true });
    expect(picked(sel)).toEqual(["b", "e"]);
    expect(clickRow(sel, ids, "c", {})).toMatchObject({ focus: "c", anchor: "c" });
  });
  it("Shift-click without an anchor selects the row alone", () => {
    expect(picked(clickRow(NO_SELECTION, ids, "c", { range: true }))).toEqual(["c"]);
  });
  it("moves the focus with the arrows without selecting, clamped to the list", () => {
    let sel = moveFocus(NO_SELECTION, ids, 1, false);
    expect(sel.focus).toBe("a");
    sel = moveFocus(sel, ids, 1, false);
    expect(sel).toMatchObject({ focus: "b" });
    expect(picked(sel)).toEqual([]);
    expect(moveFocus(sel, ids, -5, false).focus).toBe("a");
    expect(moveFocus(sel, ids, Infinity, false).focus).toBe("e");
    expect(moveFocus(NO_SELECTION, [], 1, false)).toBe(NO_SELECTION);
  });
  it("extends the selection with Shift+arrows from the anchor, or from the focus", () => {
    let sel = moveFocus(moveFocus(NO_SELECTION, ids, 1, false), ids, 1, false); // focus b, no anchor
    sel = moveFocus(sel, ids, 1, true);
    expect(picked(sel)).toEqual(["b", "c"]);
    sel = moveFocus(sel, ids, 1, true);
    expect(picked(sel)).toEqual(["b", "c", "d"]);
    sel = moveFocus(sel, ids, -3, true);
    expect(picked(sel)).toEqual(["a", "b"]);
    const clicked = clickRow(NO_SELECTION, ids, "d", {});
    expect(picked(moveFocus(clicked, ids, -1, true))).toEqual(["c", "d"]);
  });
  it("toggles the focused row with Space, selects all, clears", () => {
    let sel = moveFocus(NO_SELECTION, ids, 1, false);
    sel = toggleFocused(sel);
    expect(picked(sel)).toEqual(["a"]);
    sel = toggleFocused(sel);
    expect(picked(sel)).toEqual([]);
    expect(toggleFocused(NO_SELECTION)).toBe(NO_SELECTION);
    sel = selectAll(sel, ids);
    expect(picked(sel)).toEqual(ids);
    sel = clearSelection(sel);
    expect(picked(sel)).toEqual([]);
    expect(sel.focus).toBe("a");
  });
  it("counts only the rows shown, in list order", () => {
    const sel = { ...NO_SELECTION, selected: new Set(["e", "x", "a"]) };
    expect(selectedIds(sel, ids)).toEqual(["a", "e"]);
    expect(rangeOf(ids, "d", "b")).toEqual(["b", "c", "d"]);
    expect(rangeOf(ids, "d", "gone")).toEqual([]);
  });
});
