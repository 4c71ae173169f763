// The Library view's bars: the filters (the sidebar's, plus a text filter and the project) with the
// count, the columns menu (the columns offered), and the actions on the sessions selected (served,
// only Compare: the others write).
import { useEffect, useRef, useState } from "preact/hooks";
import { columnOf, NO_LIBRARY_FILTERS, type ColumnId, type LibraryChoices, type LibraryFilters } from "../logic";
import { servedReadOnly } from "../transport";
import { FilterCount, FilterSelects, isFiltered } from "./LibraryFilters";

export function LibraryFilterBar(props: {
  query: string;
  onQuery: (query: string) => void;
  filters: LibraryFilters;
  onFilters: (filters: LibraryFilters) => void;
  choices: LibraryChoices;
  shown: number;
  total: number;
  selected: number;
  columns: ColumnId[];
  /** The columns the menu offers (User and Machine only over a team's archive). */
  offered: ColumnId[];
  onToggleColumn: (column: ColumnId) => void;
}) {
  const filtered = isFiltered(props.filters) || props.query.trim() !== "";
  return (
    <div class="pane-head library-controls library-bar">
      <input
        class="search"
        type="search"
        placeholder="Filter by title, id or folder"
        value={props.query}
        onInput={(e) => props.onQuery((e.target as HTMLInputElement).value)}
        aria-label="Filter sessions"
        data-testid="library-filter"
      />
      <FilterSelects filters={props.filters} onFilters={props.onFilters} {...props.choices} testPrefix="library-view" />
      <span class="muted small" data-testid="library-count" data-selected={props.selected}>
        <FilterCount
          shown={props.shown}
          total={props.total}
          filtered={filtered}
          onClear={() => {
            props.onFilters(NO_LIBRARY_FILTERS);
            props.onQuery("");
          }}
        />
        {props.selected > 0 && ` · ${props.selected} selected`}
      </span>
      <ColumnsMenu columns={props.columns} offered={props.offered} onToggle={props.onToggleColumn} />
    </div>
  );
}

/** "Columns": a box per column offered (the title always shown); closes on Escape or a click elsewhere. */
function ColumnsMenu(props: { columns: ColumnId[]; offered: ColumnId[]; onToggle: (column: ColumnId) => void }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => root.current && !root.current.contains(e.target as Node) && setOpen(false);
    window.addEventListener("mousedown", away);
    return () => window.removeEventListener("mousedown", away);
  }, [open]);
  const shown = new Set(props.columns);
  return (
    <div
      class="columns-menu"
      ref={root}
      onKeyDown={(e) => {
        if (e.key !== "Escape" || !open) return;
        e.stopPropagation();
        setOpen(false);
      }}
    >
      <button class="secondary" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="library-columns">
        Columns
      </button>
      {open && (
        <div class="columns-popover" role="group" aria-label="Columns shown" data-testid="library-columns-menu">
          {props.offered.map(columnOf).map((c) => (
            <label class="check small" key={c.id}>
              <input
                type="checkbox"
                checked={shown.has(c.id)}
                disabled={c.id === "title"}
                onChange={() => props.onToggle(c.id)}
                data-testid={`library-column-${c.id}`}
              />{" "}
              {c.label}
            </label>
          ))}
        </div>
      )}
    </div>
  );
}

/** The actions on the sessions selected, each enabled only where it applies (the title says why). */
export function LibraryActions(props: {
  selected: number;
  /** Every session selected is Alisio's own (imported ones are read-only, and never removed). */
  allOwn: boolean;
  onCompare: () => void;
  onExport: () => void;
  onRename: () => void;
  onRemove: () => void;
}) {
  const n = props.selected;
  return (
    <div class="library-actions" role="toolbar" aria-label="Selected sessions">
      <button class="secondary" disabled={n !== 2} onClick={props.onCompare} title={n === 2 ? "Compare the two sessions selected" : "Select exactly two sessions"} data-testid="library-compare">
        Compare
      </button>
      <button
        class="secondary"
        disabled={n === 0 || !!servedReadOnly}
        onClick={props.onExport}
        title={servedReadOnly ?? (n ? `Export ${n} session${n === 1 ? "" : "s"}` : "Select sessions to export")}
        data-testid="library-export"
      >
        Export…
      </button>
      <button class="secondary" disabled={n !== 1 || !!servedReadOnly} onClick={props.onRename} title={servedReadOnly ?? (n === 1 ? "F2" : "Select one session")} data-testid="library-rename">
        Rename
      </button>
      <button
        class="secondary"
        disabled={n === 0 || !props.allOwn || !!servedReadOnly}
        onClick={props.onRemove}
        title={servedReadOnly ?? (n === 0 ? "Select sessions to remove" : props.allOwn ? "Remove the sessions selected" : "Only Alisio's own sessions can be removed; imported ones stay with their agent")}
        data-testid="library-remove"
      >
        Remove…
      </button>
      <span class="muted small">Enter opens · Space selects · Shift+↑/↓ extends · Ctrl+A all{servedReadOnly ? "" : " · F2 renames"}</span>
    </div>
  );
}
