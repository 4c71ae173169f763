// The library: every session, grouped by project or agent, newest activity first, filtered by
// agent, date, compactions and cost, virtualized (thousands of sessions scroll like ten); a
// full-text search over every message (Ctrl+K) whose hits open the session at the message.
import type { Ref } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../api";
import type { SearchResult, SessionSummary, SourceSummary } from "../bindings";
import { errorMessage } from "../events";
import { ago, formatTokens, formatUsd, ftsQuery, libraryAgents, libraryRows, NO_LIBRARY_FILTERS, sessionFigures, type LibraryFilters, type LibraryGrouping, type LibraryRow } from "../logic";
import { VirtualList } from "../VirtualList";

const GROUPING_KEY = "alisio.library.grouping";

function storedGrouping(): LibraryGrouping {
  const value = localStorage.getItem(GROUPING_KEY);
  return value === "agent" || value === "none" ? value : "project";
}

export function SessionsPane(props: {
  sessions: SessionSummary[];
  /** A long import's progress line, while it runs. */
  importing: string | null;
  selected: string | null;
  searchRef: Ref<HTMLInputElement>;
  onSelect: (id: string | null) => void;
  onSettings: () => void;
  onImport: (path?: string) => void;
  /** A search hit was picked: open its session at the message. */
  onOpenMessage: (session: string, seq: number) => void;
}) {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<SearchResult | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  useEffect(() => {
    // Every stored message, searched as the query settles.
    setSearchError(null);
    if (query.trim().length < 2) return setFound(null);
    const timer = setTimeout(() => {
      api.searchMessages({ query: ftsQuery(query), source: null, project: null, limit: 30 }).then(setFound, (e) => {
        setFound(null);
        setSearchError(errorMessage(e));
      });
    }, 200);
    return () => clearTimeout(timer);
  }, [query]);
  const [sources, setSources] = useState<SourceSummary[]>([]);
  const imported = props.sessions.filter((s) => s.source).length;
  useEffect(() => {
    // The counts follow what the watcher and imports add.
    api.importSources({}).then(setSources, () => setSources([]));
  }, [imported]);
  return (
    <aside class="sidebar">
      <div class="brand">Alisio</div>
      <input ref={props.searchRef} class="search" placeholder="Search sessions and messages (Ctrl+K)" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} data-testid="session-search" />
      {(found || searchError) && (
        <div class="search-hits" data-testid="search-hits">
          {searchError && <div class="muted small">{searchError}</div>}
          {found && (
            <div class="muted small" data-testid="search-total">
              {found.total === 0 ? "No message matches" : `${found.total} message${found.total === 1 ? "" : "s"} match${found.total === 1 ? "es" : ""}`}
              {found.total > found.hits.length ? ` (best ${found.hits.length} shown)` : ""}
            </div>
          )}
          {found?.hits.map((h) => (
            <button class="search-hit" onClick={() => props.onOpenMessage(h.session, h.seq)} title={`${h.project} · ${h.at}`} data-testid="search-hit">
              <span class="small"><span class="badge source">{h.source}</span> {h.title} · #{h.seq} {h.role}</span>
              <span class="snippet small">
                {h.snippet.split(/(\[[^\]]*\])/).map((part) => (part.startsWith("[") && part.endsWith("]") ? <mark>{part.slice(1, -1)}</mark> : part))}
              </span>
            </button>
          ))}
        </div>
      )}
      <Library sessions={props.sessions} query={query} selected={props.selected} onSelect={props.onSelect} />
      <div class="sources" data-testid="sources">
        <div class="muted small">Other agents' sessions (followed while open)</div>
        {props.importing && (
          <div class="small import-progress" role="status" data-testid="import-progress">
            {props.importing}
          </div>
        )}
        {sources
          .filter((s) => s.exists)
          .map((s) => (
            <button class="link small" key={s.path} title={`Import ${s.path}`} onClick={() => props.onImport(s.path)} data-testid="source-location">
              {s.source}: {s.sessions} session{s.sessions === 1 ? "" : "s"} · {s.imported} imported
            </button>
          ))}
        {!sources.some((s) => s.exists) && <div class="muted small">No agent sessions in their default places.</div>}
        <button class="secondary" onClick={() => props.onImport()} data-testid="open-import" title="Ctrl+I">
          Import…
        </button>
      </div>
      <button class="secondary" onClick={() => props.onSelect(null)}>
        New session
      </button>
      <button class="secondary" onClick={props.onSettings} data-testid="open-settings">
        Settings
      </button>
    </aside>
  );
}

function Library(props: { sessions: SessionSummary[]; query: string; selected: string | null; onSelect: (id: string) => void }) {
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
  const filtered = filters !== NO_LIBRARY_FILTERS;
  // The session opened is brought into view: opened from search, Usage or the arrow keys, the list
  // follows (once per opening; rows arriving later do not pull the list back).
  const selectedRow = useMemo(
    () => ({ index: props.selected ? rows.findIndex((r) => r.kind === "session" && r.session.id === props.selected) : -1 }),
    [props.selected],
  );
  return (
    <div class="library" onKeyDown={onKeyDown} data-testid="library">
      <div class="library-controls">
        <label class="small">
          Group{" "}
          <select value={grouping} onChange={(e) => group((e.target as HTMLSelectElement).value as LibraryGrouping)} data-testid="library-grouping">
            <option value="project">by project</option>
            <option value="agent">by agent</option>
            <option value="none">none</option>
          </select>
        </label>
        <select
          value={filters.agent ?? ""}
          title="Agent"
          onChange={(e) => setFilters({ ...filters, agent: (e.target as HTMLSelectElement).value || null })}
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
            setFilters({ ...filters, days: v ? Number(v) : null });
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
          onChange={(e) => setFilters({ ...filters, minCostUsd: Number((e.target as HTMLSelectElement).value) })}
          data-testid="library-cost"
        >
          <option value="0">any cost</option>
          <option value="0.01">≥ $0.01</option>
          <option value="1">≥ $1</option>
          <option value="10">≥ $10</option>
        </select>
        <label class="small" title="Only sessions with a compaction">
          <input type="checkbox" checked={filters.hasCompactions} onChange={(e) => setFilters({ ...filters, hasCompactions: (e.target as HTMLInputElement).checked })} data-testid="library-compacted" />{" "}
          compacted
        </label>
        <span class="muted small" data-testid="library-count" data-groups={rows.filter((r) => r.kind === "group").length}>
          {shown === props.sessions.length ? `${shown} sessions` : `${shown} of ${props.sessions.length} sessions`}
          {filtered && (
            <button class="link small" onClick={() => setFilters(NO_LIBRARY_FILTERS)}>
              clear
            </button>
          )}
        </span>
      </div>
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
