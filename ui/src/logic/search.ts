// Searching and commands: messages and sessions matched by a query, `/compact` typed in the
// composer, and the full-text query the search box sends.
import type { StoredMessage, ToolCall } from "../bindings";

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

