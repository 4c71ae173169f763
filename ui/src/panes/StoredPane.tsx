// The stored view (Ctrl+1): every stored message in order, compacted ones grouped per compaction,
// searchable (Ctrl+F), virtualized.
import type { Ref } from "preact";
import { useCallback, useMemo, useState } from "preact/hooks";
import type { JournalEntry, StoredView } from "../bindings";
import { formatChars, searchMessages, type Row } from "../logic";
import { VirtualList } from "../VirtualList";
import { MessageRow, type RowActions } from "./MessageRow";

export function StoredPane(props: {
  stored: StoredView | null;
  rows: Row[];
  scrollTo: { index: number } | null;
  pending: JournalEntry[];
  searchRef: Ref<HTMLInputElement>;
  onToggle: (compaction: number) => void;
  onJump: (seq: number) => void;
  onNearStart?: () => void;
  onNearEnd?: () => void;
  /** The window stops before the session's end. */
  hasNewer?: boolean;
  actions: RowActions;
}) {
  const { stored, rows } = props;
  const [search, setSearch] = useState("");
  const hits = useMemo(() => new Set(stored ? searchMessages(stored.messages, search) : []), [stored, search]);
  const compactions = useMemo(() => new Map((stored?.compactions ?? []).map((c) => [c.id, c])), [stored]);
  const rowKey = useCallback((i: number) => {
    const row = rows[i];
    return row.kind === "group" ? `g${row.compaction}-${row.firstSeq}` : `m${row.message.seq}`;
  }, [rows]);
  const rowEstimate = useCallback((i: number) => (rows[i].kind === "group" ? 40 : 90), [rows]);

  const renderRow = (index: number) => {
    const row = rows[index];
    if (row.kind === "group") {
      return (
        <div class="group" data-testid="compacted-group">
          <button class="group-toggle" aria-expanded={row.open} onClick={() => props.onToggle(row.compaction)}>
            {row.open ? "▾" : "▸"} {row.count} message{row.count === 1 ? "" : "s"} hidden from the model by {row.reason} #{row.compaction} ·{" "}
            {formatChars(row.chars)}
          </button>
        </div>
      );
    }
    return (
      <MessageRow
        m={row.message}
        results={row.results}
        depth={row.depth}
        hit={hits.has(row.message.seq)}
        compactions={compactions}
        pending={props.pending}
        actions={props.actions}
      />
    );
  };

  return (
    <>
      <div class="pane-head">
        <input ref={props.searchRef} class="search" placeholder="Search this session (Ctrl+F)" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} data-testid="message-search" />
        <span class="muted" data-testid="stored-count">
          {search
            ? `${hits.size} match${hits.size === 1 ? "" : "es"} in the messages loaded`
            : `${stored?.messages.length ?? 0} messages loaded${stored?.hasOlder ? " · older ones load as you scroll up" : ""}${props.hasNewer ? " · newer ones as you scroll down" : ""}`}
        </span>
        {search && hits.size > 0 && <button class="link" onClick={() => props.onJump([...hits][0])}>first match</button>}
      </div>
      <VirtualList testId="stored-view" count={rows.length} keyOf={rowKey} estimate={rowEstimate} render={renderRow} scrollTo={props.scrollTo} onNearStart={props.onNearStart} onNearEnd={props.onNearEnd} />
    </>
  );
}
