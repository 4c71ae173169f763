// The session list: searchable (Ctrl+K), newest first, with live / compacted counts and a badge
// for uncertain tool results.
import type { Ref } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { SearchResult, SessionSummary, SourceSummary } from "../bindings";
import { errorMessage } from "../events";
import { filterSessions, ftsQuery, sessionFigures } from "../logic";

export function SessionsPane(props: {
  sessions: SessionSummary[];
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
      <ul class="sessions" data-testid="sessions">
        {filterSessions(props.sessions, query).map((s) => (
          <li key={s.id}>
            <button class={`session ${s.id === props.selected ? "active" : ""}`} onClick={() => props.onSelect(s.id)} data-testid="session-item">
              <span class="title">
                {s.source && (
                  <span class="badge source" data-testid="source-badge" title={s.sourcePath}>
                    {s.source}
                  </span>
                )}{" "}
                {s.title || "(untitled)"}
              </span>
              <span class="muted small">
                {s.liveMessages} live · {s.compactedMessages} compacted · {new Date(s.lastActivity).toLocaleString()}
              </span>
              {sessionFigures(s).length > 0 && <span class="muted small" data-testid="session-figures">{sessionFigures(s).join(" · ")}</span>}
              {s.uncertainToolCalls > 0 && <span class="badge" data-testid="uncertain-badge">{s.uncertainToolCalls} uncertain</span>}
              {s.runningToolCalls > 0 && <span class="badge running" data-testid="running-badge">{s.runningToolCalls} running</span>}
            </button>
          </li>
        ))}
      </ul>
      <div class="sources" data-testid="sources">
        <div class="muted small">Other agents' sessions (followed while open)</div>
        {sources
          .filter((s) => s.exists)
          .map((s) => (
            <button class="link small" key={s.path} title={`Import ${s.path}`} onClick={() => props.onImport(s.path)} data-testid="source-location">
              {s.source}: {s.sessions} session{s.sessions === 1 ? "" : "s"} · {s.imported} imported
            </button>
          ))}
        {!sources.some((s) => s.exists) && <div class="muted small">No Codex, Claude Code or OpenCode sessions in their default places.</div>}
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
