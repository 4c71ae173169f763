// Searching and commands: messages and sessions matched by a query, `/compact` typed in the
// composer, and the full-text search's hits grouped by session.
import type { SearchHit, StoredMessage, ToolCall } from "../bindings";

/** Seqs of messages matching `query` (case-insensitive) in content, tool names or arguments. */
export function searchMessages(messages: StoredMessage[], query: string): number[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return messages
    .filter(
      (m) =>
        m.content.toLowerCase().includes(q) ||
        m.toolCalls.some((c: ToolCall) => c.name.toLowerCase().includes(q) || c.arguments.toLowerCase().includes(q)),
    )
    .map((m) => m.seq);
}

/** Sessions matching a search (title, id or workspace). */
export function filterSessions<T extends { id: string; title: string; workspace: string }>(sessions: T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  if (!q) return sessions;
  return sessions.filter((s) => [s.title, s.id, s.workspace].some((field) => field.toLowerCase().includes(q)));
}

/** `/compact focus words` typed in the composer. */
export function parseSlashCompact(text: string): { focus: string | null } | null {
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const focus = (match[1] ?? "").trim();
  return { focus: focus.length ? focus : null };
}


/** A session's hits in the sidebar's search: its title, agent, project and hits, best first. */
export type SearchGroup = { session: string; title: string; source: string; project: string; hits: SearchHit[] };

/**
 * Hits grouped by session, as `alisio search` prints them: the sessions in the order of their best
 * hit (the API returns the best first), the hits of each in the API's order. The title is the one
 * the session list shows (a rename included), else the hit's, else the id's first 8 characters.
 */
export function groupSearchHits(hits: readonly SearchHit[], sessions: ReadonlyArray<{ id: string; title: string }>): SearchGroup[] {
  const titles = new Map(sessions.map((s) => [s.id, s.title]));
  const groups = new Map<string, SearchGroup>();
  for (const hit of hits) {
    const group = groups.get(hit.session);
    if (group) {
      group.hits.push(hit);
      continue;
    }
    const title = titles.get(hit.session) || hit.title || hit.session.slice(0, 8);
    groups.set(hit.session, { session: hit.session, title, source: hit.source || "alisio", project: hit.project, hits: [hit] });
  }
  return [...groups.values()];
}

/** "1 match", "3 matches". */
export function matchCount(n: number): string {
  return n === 1 ? "1 match" : `${n} matches`;
}

/** The hit the arrow keys move to from hit `at` (-1: the search box) among `count`; -1 is the box. */
export function stepHit(at: number, count: number, key: string): number | null {
  if (key === "ArrowDown") return count ? Math.min(count - 1, at + 1) : null;
  if (key === "ArrowUp") return at >= 0 ? at - 1 : null;
  return null;
}
