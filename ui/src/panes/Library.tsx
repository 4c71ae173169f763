// The library: every session, grouped by project or agent, newest activity first, filtered by
// agent (user and machine too over a team's archive), date, compactions and cost, virtualized
// (thousands of sessions scroll like ten). F2 renames the session shown in place (not served: the
// archive is read-only).
import { useCallback, useMemo, useRef, useState } from "preact/hooks";
import type { SessionSummary } from "../bindings";
import { ago, formatTokens, formatUsd, libraryChoices, libraryRows, NO_LIBRARY_FILTERS, pushedBy, sessionFigures, type LibraryChoices, type LibraryFilters, type LibraryGrouping, type LibraryRow } from "../logic";
import { servedReadOnly } from "../transport";
import { VirtualList } from "../VirtualList";
import { FilterCount, FilterSelects, isFiltered } from "./LibraryFilters";
import { RenameInput } from "./RenameInput";

const GROUPING_KEY = "alisio.library.grouping";

function storedGrouping(): LibraryGrouping {
  const value = localStorage.getItem(GROUPING_KEY);
  return value === "agent" || value === "none" ? value : "project";
}

export function Library(props: {
  sessions: SessionSummary[];
  query: string;
  selected: string | null;
  onSelect: (id: string) => void;
  /** A new title (blank: the agent's own) for a session. */
  onRename: (id: string, title: string) => unknown;
}) {
  const [grouping, setGrouping] = useState<LibraryGrouping>(storedGrouping);
  const [filters, setFilters] = useState<LibraryFilters>(NO_LIBRARY_FILTERS);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [renaming, setRenaming] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const now = Date.now();
  const rows = useMemo(
    () => libraryRows(props.sessions, { grouping, filters, query: props.query, collapsed, now }),
    // `now` moves each render; the rows need only follow the inputs.
    [props.sessions, grouping, filters, props.query, collapsed],
  );
  const choices = useMemo(() => libraryChoices(props.sessions), [props.sessions]);
  const shown = rows.reduce((n, r) => n + (r.kind === "session" ? 1 : r.collapsed ? r.count : 0), 0);
  const group = (value: LibraryGrouping) => {
    localStorage.setItem(GROUPING_KEY, value);
    setGrouping(value);
    setCollapsed(new Set());
  };
  const toggle = (key: string) => {
    const next = new Set(collapsed);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setCollapsed(next);
  };
  const keyOf = useCallback((i: number) => rows[i]?.key ?? String(i), [rows]);
  const estimate = useCallback((i: number) => (rows[i]?.kind === "group" ? 37 : 66), [rows]);
  // Back on the session's button once the field closes, so the arrow keys go on walking the list.
  const renamed = (id: string, title: string | null) => {
    setRenaming(null);
    if (title !== null) props.onRename(id, title);
    requestAnimationFrame(() => root.current?.querySelector<HTMLElement>(".session.active")?.focus());
  };
  // Arrow keys walk the sessions shown; Enter is the button's own; F2 renames the one shown.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "F2" && props.selected && !servedReadOnly) {
      e.preventDefault();
      setRenaming(props.selected);
      return;
    }
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const ids = rows.flatMap((r) => (r.kind === "session" ? [r.session.id] : []));
    if (!ids.length) return;
    const at = props.selected ? ids.indexOf(props.selected) : -1;
    const next = e.key === "ArrowDown" ? Math.min(ids.length - 1, at + 1) : Math.max(0, at - 1);
    e.preventDefault();
    props.onSelect(ids[next]);
  };
  // The session opened is brought into view: opened from search, Usage or the arrow keys, the list
  // follows (once per opening; rows arriving later do not pull the list back).
  const selectedRow = useMemo(
    () => ({ index: props.selected ? rows.findIndex((r) => r.kind === "session" && r.session.id === props.selected) : -1 }),
    [props.selected],
  );
  return (
    <div class="library" ref={root} onKeyDown={onKeyDown} data-testid="library">
      <LibraryControls
        grouping={grouping}
        onGroup={group}
        filters={filters}
        onFilters={setFilters}
        choices={choices}
        groups={rows.filter((r) => r.kind === "group").length}
        shown={shown}
        total={props.sessions.length}
      />
      <VirtualList
        count={rows.length}
        keyOf={keyOf}
        estimate={estimate}
        testId="sessions"
        recycle
        reveal={selectedRow}
        render={(i) => <LibraryItem row={rows[i]} selected={props.selected} now={now} onSelect={props.onSelect} onToggle={toggle} renaming={renaming} onRenamed={renamed} />}
      />
    </div>
  );
}

/** Grouping, the filters, and how many sessions are shown of how many (with a clear button). */
function LibraryControls(props: {
  grouping: LibraryGrouping;
  onGroup: (grouping: LibraryGrouping) => void;
  filters: LibraryFilters;
  onFilters: (filters: LibraryFilters) => void;
  choices: LibraryChoices;
  /** The groups among the rows (the end-to-end tests read it). */
  groups: number;
  shown: number;
  total: number;
}) {
  const { grouping, filters } = props;
  return (
    <div class="library-controls">
      <label class="small">
        Group{" "}
        <select value={grouping} onChange={(e) => props.onGroup((e.target as HTMLSelectElement).value as LibraryGrouping)} data-testid="library-grouping">
          <option value="project">by project</option>
          <option value="agent">by agent</option>
          <option value="none">none</option>
        </select>
      </label>
      <FilterSelects filters={filters} onFilters={props.onFilters} agents={props.choices.agents} users={props.choices.users} machines={props.choices.machines} testPrefix="library" />
      <span class="muted small" data-testid="library-count" data-groups={props.groups}>
        <FilterCount shown={props.shown} total={props.total} filtered={isFiltered(filters)} onClear={() => props.onFilters(NO_LIBRARY_FILTERS)} />
      </span>
    </div>
  );
}

function LibraryItem(props: {
  row: LibraryRow;
  selected: string | null;
  now: number;
  onSelect: (id: string) => void;
  onToggle: (key: string) => void;
  renaming: string | null;
  /** The field closed: the title typed, or null when cancelled. */
  onRenamed: (id: string, title: string | null) => void;
}) {
  const { row } = props;
  if (row.kind === "group") {
    const key = row.key.slice("group:".length);
    return (
      <button class="library-group" onClick={() => props.onToggle(key)} title={key} aria-expanded={!row.collapsed} data-testid="library-group">
        <span>{row.collapsed ? "▸" : "▾"}</span> <span class="group-label">{row.label}</span>
        <span class="muted small">
          {row.count} · {ago(row.lastActivity, props.now)}
        </span>
      </button>
    );
  }
  const s = row.session;
  const messages = s.liveMessages + s.compactedMessages;
  const who = pushedBy(s);
  if (props.renaming === s.id) {
    return (
      <div class="session active renaming">
        <RenameInput key={s.id} title={s.title} agentTitle={s.agentTitle} onSave={(title) => props.onRenamed(s.id, title)} onCancel={() => props.onRenamed(s.id, null)} />
      </div>
    );
  }
  return (
    <button class={`session ${s.id === props.selected ? "active" : ""}`} onClick={() => props.onSelect(s.id)} data-testid="session-item">
      <span class="title" title={s.agentTitle ? `${s.title}\nAgent's title: ${s.agentTitle}` : s.title}>
        {s.source && (
          <span class="badge source" data-testid="source-badge" title={s.sourcePath}>
            {s.source}
          </span>
        )}{" "}
        {s.title || "(untitled)"}
      </span>
      <span class="muted small session-columns" title={[s.project, ...sessionFigures(s), who && `pushed by ${who}`].filter(Boolean).join(" · ")} data-testid="session-figures">
        <span title={`${s.liveMessages} live · ${s.compactedMessages} compacted`}>{messages} msgs</span>
        {s.promptTokens > 0 && <span>{formatTokens(s.promptTokens)} in</span>}
        {s.costUsd !== null && <span>{formatUsd(s.costUsd)}</span>}
        <span title={new Date(s.lastActivity).toLocaleString()}>{ago(s.lastActivity, props.now)}</span>
        {who && (
          <span class="session-who" title={`Pushed by ${who}`} data-testid="session-pushed-by">
            {who}
          </span>
        )}
      </span>
      {s.uncertainToolCalls > 0 && <span class="badge" data-testid="uncertain-badge">{s.uncertainToolCalls} uncertain</span>}
      {s.runningToolCalls > 0 && <span class="badge running" data-testid="running-badge">{s.runningToolCalls} running</span>}
    </button>
  );
}
