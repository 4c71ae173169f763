// Library (Ctrl+8): every session, own and imported, in one table — sortable by any column, the
// columns chosen, filtered as the sidebar filters — and what to do with those selected: open,
// compare two, export, rename, remove. Keyboard first (useLibrarySelection has the keys).
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { SessionSummary } from "../bindings";
import { BatchExportDialog, RemoveDialog } from "../dialogs";
import { useLibraryPrefs } from "../hooks/useLibraryPrefs";
import { useLibrarySelection } from "../hooks/useLibrarySelection";
import type { SessionEdits } from "../hooks/useSessionEdits";
import { filterLibrary, libraryChoices, NO_LIBRARY_FILTERS, offeredColumns, sortSessions, type LibraryFilters } from "../logic";
import { servedReadOnly } from "../transport";
import { LibraryActions, LibraryFilterBar } from "./LibraryBar";
import { LibraryTable } from "./LibraryTable";

export function LibraryView(props: {
  sessions: SessionSummary[];
  /** The session shown in the other tabs. */
  current: string | null;
  /** Opens a session in the Stored tab. */
  onOpen: (id: string) => void;
  /** Opens Compare with `a` shown and `b` beside it. */
  onCompare: (a: string, b: string) => void;
  edits: SessionEdits;
}) {
  // User and Machine (columns and filters) only over a team's archive: the window's view is unchanged.
  const offered = useMemo(() => offeredColumns(props.sessions), [props.sessions]);
  const choices = useMemo(() => libraryChoices(props.sessions), [props.sessions]);
  const prefs = useLibraryPrefs(offered);
  const [query, setQuery] = useState("");
  const [filters, setFilters] = useState<LibraryFilters>(NO_LIBRARY_FILTERS);
  const shown = useMemo(
    () => sortSessions(filterLibrary(props.sessions, filters, query, Date.now()), prefs.sort),
    [props.sessions, filters, query, prefs.sort],
  );
  const ids = useMemo(() => shown.map((s) => s.id), [shown]);
  const byId = useMemo(() => new Map(props.sessions.map((s) => [s.id, s])), [props.sessions]);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [dialog, setDialog] = useState<"export" | "remove" | null>(null);
  const table = useRef<HTMLDivElement>(null);
  // Served (read-only) F2 renames nothing.
  const sel = useLibrarySelection(ids, { open: props.onOpen, rename: (id) => !servedReadOnly && setRenaming(id) });
  const chosen = sel.chosen.flatMap((id) => byId.get(id) ?? []);

  useFollowOrder(sel.follow, [prefs.sort, filters, query]);
  // Keyboard first: the table has the keys from the moment the view opens.
  useEffect(() => table.current?.focus(), []);

  /** Back to the table after a field or a dialog closes, so the keys go on working. */
  const refocus = () => requestAnimationFrame(() => table.current?.focus());
  const renamed = (id: string, title: string | null) => {
    setRenaming(null);
    refocus();
    if (title !== null) props.edits.rename(id, title);
  };
  const remove = () => {
    const gone = chosen.map((s) => s.id);
    setDialog(null);
    sel.clear();
    refocus();
    props.edits.remove(gone);
  };
  const close = () => {
    setDialog(null);
    refocus();
  };
  return (
    <div class="library-view" data-testid="library-view">
      <LibraryFilterBar
        query={query}
        onQuery={setQuery}
        filters={filters}
        onFilters={setFilters}
        choices={choices}
        shown={shown.length}
        total={props.sessions.length}
        selected={chosen.length}
        columns={prefs.columns}
        offered={offered}
        onToggleColumn={prefs.toggleColumn}
      />
      <LibraryActions
        selected={chosen.length}
        allOwn={chosen.every((s) => !s.source)}
        onCompare={() => chosen.length === 2 && props.onCompare(chosen[0].id, chosen[1].id)}
        onExport={() => setDialog("export")}
        onRename={() => chosen.length === 1 && setRenaming(chosen[0].id)}
        onRemove={() => setDialog("remove")}
      />
      <LibraryTable
        sessions={shown}
        columns={prefs.columns}
        sort={prefs.sort}
        onSort={prefs.sortBy}
        selection={sel.selection}
        current={props.current}
        reveal={sel.reveal}
        scrollTo={sel.scrollTo}
        renaming={renaming}
        onRenamed={renamed}
        tableRef={table}
        onKeyDown={sel.onKeyDown}
        onClick={sel.onClick}
        onDblClick={sel.onDblClick}
      />
      {dialog === "export" && chosen.length > 0 && <BatchExportDialog sessions={chosen} onClose={close} />}
      {dialog === "remove" && chosen.length > 0 && <RemoveDialog sessions={chosen} onRemove={remove} onClose={close} />}
    </div>
  );
}

/** Calls `follow` when the order or the filters change (not when the list merely refreshes, as it
 * does after every turn: the view must not jump while it is read). */
function useFollowOrder(follow: () => void, deps: unknown[]) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    follow();
  }, deps);
}
