// The Library view's table: its columns (User and Machine offered only over a team's archive), what
// each shows and sorts by, the sort (stable, nulls last both ways), and the column choice and sort as
// remembered in localStorage (a corrupt value falls back to the defaults instead of breaking the view).
import type { SessionSummary } from "../bindings";
import { formatUsd } from "./format";
import { agentOf } from "./library";

export type ColumnId =
  | "title"
  | "agent"
  | "project"
  | "user"
  | "machine"
  | "started"
  | "lastActive"
  | "messages"
  | "calls"
  | "tokensIn"
  | "tokensOut"
  | "cost"
  | "cacheHit"
  | "compactions"
  | "subagents";

/** How a column's values compare: text by collation, numbers numerically, dates as ISO strings. */
export type ColumnKind = "text" | "number" | "date";

export type Column = { id: ColumnId; label: string; kind: ColumnKind; /** CSS grid track. */ width: string };

/** Every column, in the order the table lays them out. */
export const LIBRARY_COLUMNS: readonly Column[] = [
  { id: "title", label: "Title", kind: "text", width: "minmax(220px, 3fr)" },
  { id: "agent", label: "Agent", kind: "text", width: "96px" },
  { id: "project", label: "Project", kind: "text", width: "minmax(140px, 2fr)" },
  { id: "user", label: "User", kind: "text", width: "104px" },
  { id: "machine", label: "Machine", kind: "text", width: "120px" },
  { id: "started", label: "Started", kind: "date", width: "128px" },
  { id: "lastActive", label: "Last active", kind: "date", width: "128px" },
  { id: "messages", label: "Messages", kind: "number", width: "80px" },
  { id: "calls", label: "Calls", kind: "number", width: "64px" },
  { id: "tokensIn", label: "Tokens in", kind: "number", width: "84px" },
  { id: "tokensOut", label: "Tokens out", kind: "number", width: "84px" },
  { id: "cost", label: "Cost", kind: "number", width: "96px" },
  { id: "cacheHit", label: "Cache hit", kind: "number", width: "76px" },
  { id: "compactions", label: "Compactions", kind: "number", width: "92px" },
  { id: "subagents", label: "Sub-agents", kind: "number", width: "84px" },
];

const COLUMN_IDS = new Set<string>(LIBRARY_COLUMNS.map((c) => c.id));

export function columnOf(id: ColumnId): Column {
  return LIBRARY_COLUMNS.find((c) => c.id === id) ?? LIBRARY_COLUMNS[0];
}

/** The share of input tokens read from the cache (0–1), or null when the session sent none. */
export function cacheHitRate(s: SessionSummary): number | null {
  return s.promptTokens > 0 ? s.cachedTokens / s.promptTokens : null;
}

/** What a column sorts `s` by; null (no cost, no tokens in, no date) sorts last both ways. */
export function columnValue(s: SessionSummary, id: ColumnId): string | number | null {
  switch (id) {
    case "title": return s.title;
    case "agent": return agentOf(s);
    case "project": return s.project || s.workspace;
    case "user": return s.user || null;
    case "machine": return s.machine || null;
    case "started": return s.createdAt || null;
    case "lastActive": return s.lastActivity || null;
    case "messages": return s.liveMessages + s.compactedMessages;
    case "calls": return s.calls;
    case "tokensIn": return s.promptTokens;
    case "tokensOut": return s.completionTokens;
    case "cost": return s.costUsd;
    case "cacheHit": return cacheHitRate(s);
    case "compactions": return s.compactions;
    case "subagents": return s.subagents;
  }
}

export type SortDir = "asc" | "desc";
export type LibrarySort = { column: ColumnId; dir: SortDir };

/** Most recently active first, as the sidebar lists them. */
export const DEFAULT_SORT: LibrarySort = { column: "lastActive", dir: "desc" };

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

function compareValues(a: string | number, b: string | number, kind: ColumnKind): number {
  if (kind === "number") return (a as number) - (b as number);
  // ISO timestamps order as strings; text by collation (case and accents aside, "a2" < "a10").
  if (kind === "date") return a < b ? -1 : a > b ? 1 : 0;
  return collator.compare(a as string, b as string);
}

/**
 * `sessions` sorted by `sort` (a new array): stable (ties keep the order given), numbers
 * numerically, dates as ISO strings, and sessions without a value last in both directions.
 */
export function sortSessions(sessions: readonly SessionSummary[], sort: LibrarySort): SessionSummary[] {
  const kind = columnOf(sort.column).kind;
  const sign = sort.dir === "asc" ? 1 : -1;
  // Values read once per session, not once per comparison: 5,000 rows sort in a few milliseconds.
  const keyed = sessions.map((s, i) => ({ s, i, v: columnValue(s, sort.column) }));
  keyed.sort((x, y) => {
    if (x.v === null || y.v === null) return x.v === y.v ? x.i - y.i : x.v === null ? 1 : -1;
    return sign * compareValues(x.v, y.v, kind) || x.i - y.i;
  });
  return keyed.map((k) => k.s);
}

/** The sort after a header is clicked: the same column flips; another starts ascending for text,
 * descending for numbers and dates (the biggest, the newest first). */
export function nextSort(sort: LibrarySort, column: ColumnId): LibrarySort {
  if (sort.column === column) return { column, dir: sort.dir === "asc" ? "desc" : "asc" };
  return { column, dir: columnOf(column).kind === "text" ? "asc" : "desc" };
}

/** The header's `aria-sort`. */
export function ariaSort(sort: LibrarySort, column: ColumnId): "ascending" | "descending" | "none" {
  return sort.column !== column ? "none" : sort.dir === "asc" ? "ascending" : "descending";
}

/** Every column shown, the default. */
export const DEFAULT_COLUMNS: readonly ColumnId[] = LIBRARY_COLUMNS.map((c) => c.id);

/** The columns only a team's archive fills: who pushed a session, and from which machine. */
const TEAM_COLUMNS: ReadonlySet<ColumnId> = new Set(["user", "machine"]);

/** The columns offered over `sessions`: User and Machine only when some session has one (served
 * over a team's archive), so the window's table and its Columns menu are unchanged. */
export function offeredColumns(sessions: readonly SessionSummary[]): ColumnId[] {
  const filled = new Set<ColumnId>();
  for (const s of sessions) {
    if (s.user) filled.add("user");
    if (s.machine) filled.add("machine");
  }
  return DEFAULT_COLUMNS.filter((id) => !TEAM_COLUMNS.has(id) || filled.has(id));
}

/** The columns shown: those chosen that are offered. The choice itself is kept whole (a column not
 * offered here stays chosen, to come back where it is). */
export function shownColumns(chosen: readonly ColumnId[], offered: readonly ColumnId[]): ColumnId[] {
  return chosen.filter((id) => offered.includes(id));
}

/** The sort applied: the one chosen, or the default while its column is not offered. */
export function offeredSort(sort: LibrarySort, offered: readonly ColumnId[]): LibrarySort {
  return offered.includes(sort.column) ? sort : DEFAULT_SORT;
}

/** The columns shown as stored (a JSON array of ids): unknown ids dropped, in the table's order,
 * the title always; anything unreadable gives every column. */
export function parseColumns(raw: string | null): ColumnId[] {
  let value: unknown;
  try {
    value = raw === null ? null : JSON.parse(raw);
  } catch {
    value = null;
  }
  if (!Array.isArray(value)) return [...DEFAULT_COLUMNS];
  const chosen = new Set(value.filter((v): v is ColumnId => typeof v === "string" && COLUMN_IDS.has(v)));
  chosen.add("title");
  return DEFAULT_COLUMNS.filter((id) => chosen.has(id));
}

/** The columns shown after `column`'s box is toggled (the title stays). */
export function toggleColumn(columns: readonly ColumnId[], column: ColumnId): ColumnId[] {
  if (column === "title") return [...columns];
  const chosen = new Set(columns);
  if (chosen.has(column)) chosen.delete(column);
  else chosen.add(column);
  return DEFAULT_COLUMNS.filter((id) => chosen.has(id));
}

/** The sort as stored (JSON `{column, dir}`); anything unreadable gives the default. */
export function parseSort(raw: string | null): LibrarySort {
  try {
    const value = raw === null ? null : JSON.parse(raw);
    if (value && COLUMN_IDS.has(value.column) && (value.dir === "asc" || value.dir === "desc")) return { column: value.column, dir: value.dir };
  } catch {
    // Corrupt: the default below.
  }
  return DEFAULT_SORT;
}

// One formatter for every cell: `toLocaleString` builds a new one per call, which a screenful of
// rows re-rendered at each scroll step pays for a thousand times.
const GROUPED = new Intl.NumberFormat("en-US");
const grouped = (n: number) => GROUPED.format(n);

/** "5,321", "12.3k", "4.56M": a count that fits a narrow column (the full number is its tooltip). */
export function compactCount(n: number): string {
  if (n < 10_000) return grouped(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** The cache hit column: "75.0 %", or "—" when the session sent no tokens in. */
export function formatCacheHit(s: SessionSummary): string {
  const rate = cacheHitRate(s);
  return rate === null ? "—" : `${(rate * 100).toFixed(1)} %`;
}

/** The cost column: "$1.23" or "—" (no priced call), marked with "*" when calls had no price
 * (their cost is left out, never guessed); `title` says so. */
export function formatCost(s: SessionSummary): { text: string; title: string } {
  const text = s.costUsd === null ? "—" : formatUsd(s.costUsd);
  if (s.unpricedCalls === 0) return { text, title: s.costUsd === null ? "No call of this session has a price" : text };
  const calls = `${s.unpricedCalls} call${s.unpricedCalls === 1 ? "" : "s"}`;
  return { text: `${text}*`, title: `${calls} without a price, left out of the cost` };
}

/** "2026-12-01 10:00" in local time: sortable-looking, and narrow. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "—";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** What a cell shows, and its tooltip (the full value where the cell shortens it). */
export function cellText(s: SessionSummary, id: ColumnId): { text: string; title: string } {
  const count = (n: number) => ({ text: compactCount(n), title: grouped(n) });
  switch (id) {
    case "title": return { text: s.title || "(untitled)", title: s.agentTitle ? `${s.title}\nAgent's title: ${s.agentTitle}` : s.title };
    case "agent": return { text: agentOf(s), title: s.sourcePath ?? agentOf(s) };
    case "project": return { text: s.project || s.workspace, title: s.project || s.workspace };
    case "user": return { text: s.user || "—", title: s.user ? `Pushed by ${s.user}` : "" };
    case "machine": return { text: s.machine || "—", title: s.machine ? `Pushed from ${s.machine}` : "" };
    case "started": return { text: formatDateTime(s.createdAt), title: s.createdAt };
    case "lastActive": return { text: formatDateTime(s.lastActivity), title: s.lastActivity };
    case "messages": return { text: compactCount(s.liveMessages + s.compactedMessages), title: `${s.liveMessages} live · ${s.compactedMessages} compacted` };
    case "cost": return formatCost(s);
    case "cacheHit": return { text: formatCacheHit(s), title: `${grouped(s.cachedTokens)} of ${grouped(s.promptTokens)} tokens in read from the cache` };
    case "calls": return count(s.calls);
    case "tokensIn": return count(s.promptTokens);
    case "tokensOut": return count(s.completionTokens);
    case "compactions": return count(s.compactions);
    case "subagents": return count(s.subagents);
  }
}

/** The grid's column tracks for the columns shown, and the width under which it scrolls sideways. */
export function gridTemplate(columns: readonly ColumnId[]): { template: string; minWidth: number } {
  const shown = columns.map(columnOf);
  const minWidth = shown.reduce((sum, c) => sum + Number(/(\d+)px/.exec(c.width)?.[1] ?? 80), 0);
  return { template: shown.map((c) => c.width).join(" "), minWidth };
}
