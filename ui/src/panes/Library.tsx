// The library: every session, grouped by project or agent, newest activity first, filtered by
// agent, date, compactions and cost, virtualized (thousands of sessions scroll like ten).
import { useCallback, useMemo, useState } from "preact/hooks";
import type { SessionSummary } from "../bindings";
import { ago, formatTokens, formatUsd, libraryAgents, libraryRows, NO_LIBRARY_FILTERS, sessionFigures, type LibraryFilters, type LibraryGrouping, type LibraryRow } from "../logic";
import { VirtualList } from "../VirtualList";

const GROUPING_KEY = "alisio.library.grouping";

function storedGrouping(): LibraryGrouping {
  const value = localStorage.getItem(GROUPING_KEY);
  return value === "agent" || value === "none" ? value : "project";
}

export function Library(props: { sessions: SessionSummary[]; query: string; selected: string | null; onSelect: (id: string) => void }) {
  const [grouping, setGrouping] = useState<LibraryGrouping>(storedGrouping);
  const [filters, setFilters] = useState<LibraryFilters>(NO_LIBRARY_FILTERS);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const now = Date.now();
  const rows = useMemo(
    () => libraryRows(props.sessions, { grouping, filters, query: props.query, collapsed, now }),
    // `now` moves each render; the rows need only follow the inputs.
    [props.sessions, grouping, filters, props.query, collapsed],
  );
  const agents = useMemo(() => libraryAgents(props.sessions), [props.sessions]);
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
  // Arrow keys walk the sessions shown; Enter is the button's own.
  const onKeyDown = (e: KeyboardEvent) => {
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
    <div class="library" onKeyDown={onKeyDown} data-testid="library">
      <LibraryControls
        grouping={grouping}
        onGroup={group}
        filters={filters}
        onFilters={setFilters}
        agents={agents}
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
        render={(i) => <LibraryItem row={rows[i]} selected={props.selected} now={now} onSelect={props.onSelect} onToggle={toggle} />}
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
  agents: string[];
  /** The groups among the rows (the end-to-end tests read it). */
  groups: number;
  shown: number;
  total: number;
}) {
  const { grouping, filters, agents, shown } = props;
  const filtered = filters !== NO_LIBRARY_FILTERS;
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
      <select
        value={filters.agent ?? ""}
        title="Agent"
        onChange={(e) => props.onFilters({ ...filters, agent: (e.target as HTMLSelectElement).value || null })}
        data-testid="library-agent"
      >
        <option value="">every agent</option>
        {agents.map((a) => (
          <option value={a}>{a}</option>
        ))}
      </select>
      <select
        value={filters.days ?? ""}
        title="Last active"
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          props.onFilters({ ...filters, days: v ? Number(v) : null });
        }}
        data-testid="library-days"
      >
        <option value="">any time</option>
        <option value="1">last day</option>
        <option value="7">last 7 days</option>
        <option value="30">last 30 days</option>
      </select>
      <select
        value={String(filters.minCostUsd)}
        title="Cost"
        onChange={(e) => props.onFilters({ ...filters, minCostUsd: Number((e.target as HTMLSelectElement).value) })}
        data-testid="library-cost"
      >
        <option value="0">any cost</option>
        <option value="0.01">≥ $0.01</option>
        <option value="1">≥ $1</option>
        <option value="10">≥ $10</option>
      </select>
      <label class="small" title="Only sessions with a compaction">
        <input type="checkbox" checked={filters.hasCompactions} onChange={(e) => props.onFilters({ ...filters, hasCompactions: (e.target as HTMLInputElement).checked })} data-testid="library-compacted" />{" "}
        compacted
      </label>
      <span class="muted small" data-testid="library-count" data-groups={props.groups}>
        {shown === props.total ? `${shown} sessions` : `${shown} of ${props.total} sessions`}
        {filtered && (
          <button class="link small" onClick={() => props.onFilters(NO_LIBRARY_FILTERS)}>
            clear
          </button>
        )}
      </span>
    </div>
  );
}

function LibraryItem(props: { row: LibraryRow; selected: string | null; now: number; onSelect: (id: string) => void; onToggle: (key: string) => void }) {
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
  return (
    <button class={`session ${s.id === props.selected ? "active" : ""}`} onClick={() => props.onSelect(s.id)} data-testid="session-item">
      <span class="title">
        {s.source && (
          <span class="badge source" data-testid="source-badge" title={s.sourcePath}>
            {s.source}
          </span>
        )}{" "}
        {s.title || "(untitled)"}
      </span>
      <span class="muted small session-columns" title={[s.project, ...sessionFigures(s)].filter(Boolean).join(" · ")} data-testid="session-figures">
        <span title={`${s.liveMessages} live · ${s.compactedMessages} compacted`}>{messages} msgs</span>
        {s.promptTokens > 0 && <span>{formatTokens(s.promptTokens)} in</span>}
        {s.costUsd !== null && <span>{formatUsd(s.costUsd)}</span>}
        <span title={new Date(s.lastActivity).toLocaleString()}>{ago(s.lastActivity, props.now)}</span>
      </span>
      {s.uncertainToolCalls > 0 && <span class="badge" data-testid="uncertain-badge">{s.uncertainToolCalls} uncertain</span>}
      {s.runningToolCalls > 0 && <span class="badge running" data-testid="running-badge">{s.runningToolCalls} running</span>}
    </button>
  );
}
