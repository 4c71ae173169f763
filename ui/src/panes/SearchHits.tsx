// The sidebar search's hits (Ctrl+K), grouped by session as `alisio search` prints them: a header per
// session (title, agent, project, its matches) over its hits, the sessions in the order of their best
// hit. Headers are labels, not results: ↑/↓ walk the hits alone, Enter (or a click) opens the session
// at the message.
import type { Ref } from "preact";
import { useMemo } from "preact/hooks";
import type { SearchHit, SearchResult } from "../bindings";
import { ago, groupSearchHits, matchCount, stepHit } from "../logic";

const HIT = "[data-testid=search-hit]";

/**
 * Moves the focus among the hits of `list` for an arrow key, from `from` (a hit, or the search box:
 * anything else). Returns whether the key was used; `leave` is called when ↑ leaves the first hit.
 */
export function walkHits(list: HTMLElement | null, from: EventTarget | null, key: string, leave?: () => void): boolean {
  if (!list) return false;
  const hits = [...list.querySelectorAll<HTMLElement>(HIT)];
  const next = stepHit(hits.indexOf(from as HTMLElement), hits.length, key);
  if (next === null) return false;
  if (next < 0) {
    if (!leave) return false;
    leave();
    return true;
  }
  hits[next].focus();
  hits[next].scrollIntoView({ block: "nearest" });
  return true;
}

export function SearchHits(props: {
  found: SearchResult | null;
  error: string | null;
  /** The session list, for the titles shown (a rename included). */
  sessions: ReadonlyArray<{ id: string; title: string }>;
  listRef: Ref<HTMLDivElement>;
  onOpenMessage: (session: string, seq: number) => void;
  /** ↑ on the first hit: back to the search box. */
  onLeave: () => void;
}) {
  const { found } = props;
  const groups = useMemo(() => (found ? groupSearchHits(found.hits, props.sessions) : []), [found, props.sessions]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (walkHits(e.currentTarget as HTMLElement, e.target, e.key, props.onLeave)) e.preventDefault();
  };
  return (
    <div class="search-hits" ref={props.listRef} onKeyDown={onKeyDown} data-testid="search-hits">
      {props.error && <div class="muted small">{props.error}</div>}
      {found && (
        <div class="muted small" data-testid="search-total">
          {found.total === 0 ? "No message matches" : `${found.total} message${found.total === 1 ? "" : "s"} match${found.total === 1 ? "es" : ""}`}
          {found.total > found.hits.length ? ` (best ${found.hits.length} shown)` : ""}
        </div>
      )}
      {groups.map((g) => (
        <div class="search-group" role="group" aria-label={g.title} key={g.session}>
          <div class="search-group-head small" title={`${g.session}\n${g.project}`} data-testid="search-group" data-session={g.session}>
            <span class="badge source">{g.source}</span>
            <span class="search-group-title">{g.title}</span>
            <span class="muted search-group-project">{g.project}</span>
            <span class="muted search-group-count">{matchCount(g.hits.length)}</span>
          </div>
          {g.hits.map((h) => (
            <Hit key={`${h.session}-${h.seq}`} hit={h} onOpen={props.onOpenMessage} />
          ))}
        </div>
      ))}
    </div>
  );
}

/** One hit: its message and role over the snippet, the terms marked. */
function Hit(props: { hit: SearchHit; onOpen: (session: string, seq: number) => void }) {
  const h = props.hit;
  return (
    <button class="search-hit" onClick={() => props.onOpen(h.session, h.seq)} title={`${h.title} · ${h.project} · ${h.at}`} data-testid="search-hit">
      <span class="small">
        #{h.seq} {h.role}
        {ago(h.at, Date.now()) && <span class="muted"> · {ago(h.at, Date.now())}</span>}
      </span>
      <span class="snippet small">
        {h.snippet.split(/(\[[^\]]*\])/).map((part) => (part.startsWith("[") && part.endsWith("]") ? <mark>{part.slice(1, -1)}</mark> : part))}
      </span>
    </button>
  );
}
