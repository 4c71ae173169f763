// The Library view's table: a header per column shown (click, Enter or Space sorts by it) over the
// virtualized rows. Rows have one fixed height and no state of their own (selection lives in the
// view, events are handled on the table), so 5,000 sessions scroll like fifty.
import type { Ref } from "preact";
import { useCallback } from "preact/hooks";
import type { SessionSummary } from "../bindings";
import { ariaSort, cellText, columnOf, gridTemplate, type ColumnId, type LibrarySort, type RowSelection } from "../logic";
import { VirtualList } from "../VirtualList";
import { RenameInput } from "./RenameInput";

/** Every row's height in pixels (styles.css `.lib-row` holds the same). */
export const ROW_HEIGHT = 28;
const estimate = () => ROW_HEIGHT;

export function LibraryTable(props: {
  sessions: SessionSummary[];
  columns: ColumnId[];
  sort: LibrarySort;
  onSort: (column: ColumnId) => void;
  selection: RowSelection;
  /** The session shown in the other tabs, marked in the table. */
  current: string | null;
  reveal: { index: number } | null;
  scrollTo: { index: number } | null;
  renaming: string | null;
  /** The rename field closed: the title typed, or null when cancelled. */
  onRenamed: (id: string, title: string | null) => void;
  tableRef: Ref<HTMLDivElement>;
  onKeyDown: (e: KeyboardEvent) => void;
  onClick: (e: MouseEvent) => void;
  onDblClick: (e: MouseEvent) => void;
}) {
  const { sessions, columns, selection } = props;
  const { template, minWidth } = gridTemplate(columns);
  const keyOf = useCallback((i: number) => sessions[i]?.id ?? String(i), [sessions]);
  return (
    <div class="library-scroll">
      <div
        class="library-grid"
        role="grid"
        aria-label="Sessions"
        aria-multiselectable="true"
        aria-rowcount={sessions.length + 1}
        aria-activedescendant={selection.focus ? rowId(selection.focus) : undefined}
        tabIndex={0}
        ref={props.tableRef}
        style={{ "--lib-cols": template, minWidth: `${minWidth}px` }}
        onKeyDown={props.onKeyDown}
        onClick={props.onClick}
        onDblClick={props.onDblClick}
        // Shift-click ranges rows; it must not select the text between them.
        onMouseDown={(e) => e.shiftKey && e.preventDefault()}
        data-testid="library-table"
      >
        <div class="lib-row lib-head" role="row" aria-rowindex={1}>
          {columns.map((id) => (
            <Header key={id} column={id} sort={props.sort} onSort={props.onSort} />
          ))}
        </div>
        {sessions.length === 0 ? (
          <div class="empty">No session matches these filters.</div>
        ) : (
          <VirtualList
            count={sessions.length}
            keyOf={keyOf}
            estimate={estimate}
            recycle
            reveal={props.reveal}
            scrollTo={props.scrollTo}
            render={(i) => (
              <Row
                session={sessions[i]}
                index={i}
                columns={columns}
                selected={selection.selected.has(sessions[i].id)}
                focused={selection.focus === sessions[i].id}
                current={props.current === sessions[i].id}
                renaming={props.renaming === sessions[i].id}
                onRenamed={props.onRenamed}
              />
            )}
          />
        )}
      </div>
    </div>
  );
}

/** A row's element id, for `aria-activedescendant`. */
function rowId(session: string): string {
  return `library-row-${session}`;
}

function Header(props: { column: ColumnId; sort: LibrarySort; onSort: (column: ColumnId) => void }) {
  const { label, kind } = columnOf(props.column);
  const sorted = ariaSort(props.sort, props.column);
  return (
    <div
      class={`lib-cell lib-header ${kind}`}
      role="columnheader"
      tabIndex={0}
      aria-sort={sorted}
      title={`Sort by ${label.toLowerCase()}`}
      onClick={() => props.onSort(props.column)}
      onKeyDown={(e) => {
        if (e.key !== "Enter" && e.key !== " ") return;
        e.preventDefault();
        props.onSort(props.column);
      }}
      data-testid={`library-header-${props.column}`}
    >
      {label}
      <span class="sort-mark" aria-hidden="true">
        {sorted === "ascending" ? " ▲" : sorted === "descending" ? " ▼" : ""}
      </span>
    </div>
  );
}

function Row(props: {
  session: SessionSummary;
  index: number;
  columns: ColumnId[];
  selected: boolean;
  focused: boolean;
  current: boolean;
  renaming: boolean;
  onRenamed: (id: string, title: string | null) => void;
}) {
  const s = props.session;
  const state = `${props.selected ? " selected" : ""}${props.focused ? " focused" : ""}${props.current ? " current" : ""}`;
  return (
    <div class={`lib-row${state}`} role="row" id={rowId(s.id)} aria-rowindex={props.index + 2} aria-selected={props.selected} data-session={s.id} data-testid="library-row">
      {props.columns.map((id) => {
        if (id === "title") return <TitleCell key={id} session={s} renaming={props.renaming} onRenamed={props.onRenamed} />;
        const { text, title } = cellText(s, id);
        return (
          <div key={id} class={`lib-cell ${columnOf(id).kind}`} role="gridcell" title={title}>
            {text}
          </div>
        );
      })}
    </div>
  );
}

/** The title, single-line with an ellipsis (the full one and the agent's own on hover), or the
 * rename field while renaming. */
function TitleCell(props: { session: SessionSummary; renaming: boolean; onRenamed: (id: string, title: string | null) => void }) {
  const s = props.session;
  if (props.renaming) {
    return (
      <div class="lib-cell text" role="gridcell">
        <RenameInput key={s.id} title={s.title} agentTitle={s.agentTitle} onSave={(title) => props.onRenamed(s.id, title)} onCancel={() => props.onRenamed(s.id, null)} />
      </div>
    );
  }
  const { text, title } = cellText(s, "title");
  return (
    <div class="lib-cell text lib-title" role="gridcell" title={title}>
      <span class="lib-title-text">{text}</span>
      {s.agentTitle && (
        <span class="muted small lib-agent-title" title={`Agent's title: ${s.agentTitle}`} data-testid="agent-title">
          Agent's title: {s.agentTitle}
        </span>
      )}
    </div>
  );
}
