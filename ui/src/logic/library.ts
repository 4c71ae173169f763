// The library of sessions: filters, grouping by project or agent (newest first), the agents,
// projects, users and machines present, and how long ago a session was active.
import type { Removed, SessionSummary } from "../bindings";
import { filterSessions } from "./search";

/** How the library groups sessions. */
export type LibraryGrouping = "project" | "agent" | "none";

/** The library's filters; `null` / `false` / `0` leave a filter off. */
export interface LibraryFilters {
  /** `"alisio"` for Alisio's own sessions, else an importer's source name. */
  agent: string | null;
  /** Only sessions of this project (as `projectOf` names it). */
  project: string | null;
  /** Only sessions pushed by this user (a team's archive; elsewhere sessions carry none). */
  user: string | null;
  /** Only sessions pushed from this machine (a team's archive). */
  machine: string | null;
  /** Only sessions active in the last this many days. */
  days: number | null;
  hasCompactions: boolean;
  /** Only sessions that cost at least this many dollars. */
  minCostUsd: number;
}

export const NO_LIBRARY_FILTERS: LibraryFilters = { agent: null, project: null, user: null, machine: null, days: null, hasCompactions: false, minCostUsd: 0 };

/** One row of the library: a group's header or a session. */
export type LibraryRow =
  | { kind: "group"; key: string; label: string; count: number; collapsed: boolean; lastActivity: string }
  | { kind: "session"; key: string; session: SessionSummary };

/** The agent a session belongs to: its importer's source, or Alisio itself. */
export function agentOf(s: SessionSummary): string {
  return s.source ?? "alisio";
}

/** The project a session belongs to, as the library groups and filters by it. */
export function projectOf(s: SessionSummary): string {
  return s.project || s.workspace || "(no project)";
}

/** Who pushed a session to a team's archive, as the list shows it: "user@machine", either alone,
 * or null (a session of this machine's own, as every one is in the window). */
export function pushedBy(s: SessionSummary): string | null {
  if (s.user && s.machine) return `${s.user}@${s.machine}`;
  return s.user || s.machine || null;
}

/**
 * The sessions that pass `filters` and the text filter `query` (title, id or workspace), in the
 * order given: the sidebar's list and the Library view's table filter alike.
 */
export function filterLibrary(sessions: SessionSummary[], filters: LibraryFilters, query: string, now: number): SessionSummary[] {
  const since = filters.days === null ? null : now - filters.days * 86_400_000;
  return filterSessions(sessions, query).filter(
    (s) =>
      (filters.agent === null || agentOf(s) === filters.agent) &&
      (filters.project === null || projectOf(s) === filters.project) &&
      (filters.user === null || s.user === filters.user) &&
      (filters.machine === null || s.machine === filters.machine) &&
      (since === null || Date.parse(s.lastActivity) >= since) &&
      (!filters.hasCompactions || s.compactions > 0) &&
      (filters.minCostUsd <= 0 || (s.costUsd ?? 0) >= filters.minCostUsd),
  );
}

/**
 * The library's rows: the sessions that pass `filters` and the title filter `query`, grouped
 * (groups and sessions newest activity first; a collapsed group keeps its header alone).
 * Linear in the sessions but for sorting them.
 */
export function libraryRows(
  sessions: SessionSummary[],
  options: { grouping: LibraryGrouping; filters: LibraryFilters; query: string; collapsed: ReadonlySet<string>; now: number },
): LibraryRow[] {
  const { grouping, filters, collapsed, now } = options;
  const kept = filterLibrary(sessions, filters, options.query, now);
  const newest = (a: SessionSummary, b: SessionSummary) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0);
  kept.sort(newest);
  if (grouping === "none") return kept.map((s) => ({ kind: "session", key: s.id, session: s }));
  const groups = new Map<string, SessionSummary[]>();
  for (const s of kept) {
    const key = grouping === "agent" ? agentOf(s) : projectOf(s);
    const list = groups.get(key);
    if (list) list.push(s);
    else groups.set(key, [s]);
  }
  const rows: LibraryRow[] = [];
  // Map order is first-seen order over sessions sorted newest first: groups come newest first.
  for (const [key, list] of groups) {
    const isCollapsed = collapsed.has(key);
    rows.push({ kind: "group", key: `group:${key}`, label: key, count: list.length, collapsed: isCollapsed, lastActivity: list[0].lastActivity });
    if (!isCollapsed) for (const s of list) rows.push({ kind: "session", key: s.id, session: s });
  }
  return rows;
}

/** The agents present among `sessions`, for the agent filter. */
export function libraryAgents(sessions: SessionSummary[]): string[] {
  return [...new Set(sessions.map(agentOf))].sort();
}

/** The projects present among `sessions`, for the project filter. */
export function libraryProjects(sessions: SessionSummary[]): string[] {
  return [...new Set(sessions.map(projectOf))].sort();
}

/** The users who pushed `sessions`, for the user filter: none outside a team's archive (no filter). */
export function libraryUsers(sessions: SessionSummary[]): string[] {
  return present(sessions.map((s) => s.user));
}

/** The machines `sessions` were pushed from, for the machine filter: none outside a team's archive. */
export function libraryMachines(sessions: SessionSummary[]): string[] {
  return present(sessions.map((s) => s.machine));
}

/** What the library's filters offer: the agents, projects, users and machines present. */
export type LibraryChoices = { agents: string[]; projects: string[]; users: string[]; machines: string[] };

/** The choices of every filter over `sessions` (no user, no machine outside a team's archive). */
export function libraryChoices(sessions: SessionSummary[]): LibraryChoices {
  return { agents: libraryAgents(sessions), projects: libraryProjects(sessions), users: libraryUsers(sessions), machines: libraryMachines(sessions) };
}

/** The values set (not absent, not blank), once each, sorted. */
function present(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => !!v))].sort();
}

/** "3 min ago", "yesterday", "12 Nov": how long ago a session was last active. */
export function ago(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  const min = Math.floor(ms / 60_000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  const hours = Math.floor(min / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return new Date(iso).toLocaleDateString(undefined, { day: "numeric", month: "short", year: days > 300 ? "numeric" : undefined });
}

/** The notice after sessions were removed: the one by its title, or how many, with what went. */
export function removedNotice(removed: Removed[]): string {
  const messages = removed.reduce((n, r) => n + r.messages, 0);
  const calls = removed.reduce((n, r) => n + r.calls, 0);
  const what = `${messages.toLocaleString("en-US")} message${messages === 1 ? "" : "s"}, ${calls.toLocaleString("en-US")} call${calls === 1 ? "" : "s"}`;
  return removed.length === 1 ? `Removed “${removed[0].title}” (${what})` : `Removed ${removed.length} sessions (${what})`;
}
