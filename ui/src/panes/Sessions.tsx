// The sidebar: a full-text search over every message (Ctrl+K) whose hits, grouped by session
// (SearchHits.tsx), open the session at the message, the library of sessions (Library.tsx), other
// agents' session folders, new session and settings. Served (read-only) there is nothing to
// import, start or configure: the folders are not shown, the buttons are off.
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { SearchResult, SessionSummary, SourceSummary } from "../bindings";
import { errorMessage } from "../events";
import { servedReadOnly } from "../transport";
import { Library } from "./Library";
import { SearchHits, walkHits } from "./SearchHits";

export function SessionsPane(props: {
  sessions: SessionSummary[];
  /** A long import's progress line, while it runs. */
  importing: string | null;
  selected: string | null;
  searchRef: RefObject<HTMLInputElement>;
  onSelect: (id: string | null) => void;
  /** A new title (blank: the agent's own) for a session (F2 in the list). */
  onRename: (id: string, title: string) => unknown;
  onSettings: () => void;
  onImport: (path?: string) => void;
  /** A search hit was picked: open its session at the message. */
  onOpenMessage: (session: string, seq: number) => void;
}) {
  const [query, setQuery] = useState("");
  // Plain text by default (ids, paths, file names as typed; the last word as a prefix); FTS5 syntax
  // when toggled.
  const [fts, setFts] = useState(false);
  const [found, setFound] = useState<SearchResult | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  const hits = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Every stored message, searched as the query settles.
    setSearchError(null);
    if (query.trim().length < 2) return setFound(null);
    const timer = setTimeout(() => {
      api.searchMessages({ query, limit: 30, prefix: !fts, fts }).then(setFound, (e) => {
        setFound(null);
        setSearchError(errorMessage(e));
      });
    }, 200);
    return () => clearTimeout(timer);
  }, [query, fts]);
  return (
    <aside class="sidebar">
      <div class="brand">Alisio</div>
      <input
        ref={props.searchRef}
        class="search"
        placeholder="Search sessions and messages (Ctrl+K)"
        value={query}
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        // ↓ into the hits; from there ↑/↓ walk them and ↑ on the first comes back.
        onKeyDown={(e) => walkHits(hits.current, e.target, e.key) && e.preventDefault()}
        data-testid="session-search"
      />
      <label class="small muted search-mode" title="Search in SQLite FTS5 syntax: words, &quot;phrases&quot;, prefix*, AND / OR / NOT">
        <input type="checkbox" checked={fts} onChange={(e) => setFts((e.target as HTMLInputElement).checked)} data-testid="search-fts" /> FTS syntax
      </label>
      {(found || searchError) && (
        <SearchHits
          found={found}
          error={searchError}
          sessions={props.sessions}
          listRef={hits}
          onOpenMessage={props.onOpenMessage}
          onLeave={() => props.searchRef.current?.focus()}
        />
      )}
      <Library sessions={props.sessions} query={query} selected={props.selected} onSelect={props.onSelect} onRename={props.onRename} />
      {/* Served there is nothing to import: the agents' folders are the server's, and not shown. */}
      {!servedReadOnly && <AgentSources sessions={props.sessions} importing={props.importing} onImport={props.onImport} />}
      <button class="secondary" onClick={() => props.onSelect(null)} disabled={!!servedReadOnly} title={servedReadOnly ?? undefined}>
        New session
      </button>
      <button class="secondary" onClick={props.onSettings} disabled={!!servedReadOnly} title={servedReadOnly ?? undefined} data-testid="open-settings">
        Settings
      </button>
    </aside>
  );
}

/** Other agents' session folders (with what each holds and how much is imported), and Import…. */
function AgentSources(props: { sessions: SessionSummary[]; importing: string | null; onImport: (path?: string) => void }) {
  const [sources, setSources] = useState<SourceSummary[]>([]);
  const imported = props.sessions.filter((s) => s.source).length;
  useEffect(() => {
    // The counts follow what the watcher and imports add.
    api.importSources({}).then(setSources, () => setSources([]));
  }, [imported]);
  return (
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
  );
}
