// The session list: searchable (Ctrl+K), newest first, with live / compacted counts and a badge
// for uncertain tool results.
import type { Ref } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { SessionSummary, SourceSummary } from "../bindings";
import { filterSessions, sessionFigures } from "../logic";

export function SessionsPane(props: {
  sessions: SessionSummary[];
  selected: string | null;
  searchRef: Ref<HTMLInputElement>;
  onSelect: (id: string | null) => void;
  onSettings: () => void;
  onImport: (path?: string) => void;
}) {
  const [query, setQuery] = useState("");
  const [sources, setSources] = useState<SourceSummary[]>([]);
  const imported = props.sessions.filter((s) => s.source).length;
  useEffect(() => {
    // The counts follow what the watcher and imports add.
    api.importSources({}).then(setSources, () => setSources([]));
  }, [imported]);
  return (
    <aside class="sidebar">
      <div class="brand">Alisio</div>
      <input ref={props.searchRef} class="search" placeholder="Search sessions (Ctrl+K)" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} data-testid="session-search" />
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
