// The session list: searchable (Ctrl+K), newest first, with live / compacted counts and a badge
// for uncertain tool results.
import type { Ref } from "preact";
import { useState } from "preact/hooks";
import type { SessionSummary } from "../bindings";
import { filterSessions, sessionFigures } from "../logic";

export function SessionsPane(props: {
  sessions: SessionSummary[];
  selected: string | null;
  searchRef: Ref<HTMLInputElement>;
  onSelect: (id: string | null) => void;
  onSettings: () => void;
}) {
  const [query, setQuery] = useState("");
  return (
    <aside class="sidebar">
      <div class="brand">Alisio</div>
      <input ref={props.searchRef} class="search" placeholder="Search sessions (Ctrl+K)" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} data-testid="session-search" />
      <ul class="sessions" data-testid="sessions">
        {filterSessions(props.sessions, query).map((s) => (
          <li key={s.id}>
            <button class={`session ${s.id === props.selected ? "active" : ""}`} onClick={() => props.onSelect(s.id)} data-testid="session-item">
              <span class="title">{s.title || "(untitled)"}</span>
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
      <button class="secondary" onClick={() => props.onSelect(null)}>
        New session
      </button>
      <button class="secondary" onClick={props.onSettings} data-testid="open-settings">
        Settings
      </button>
    </aside>
  );
}
