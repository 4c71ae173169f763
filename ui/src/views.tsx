// The views of the window, one table: each tab's id, label, Ctrl+key and what it renders. The
// toolbar, the pane and the keyboard shortcuts are all driven by `VIEWS`.
import type { ComponentChildren, Ref } from "preact";
import type { JournalEntry, SessionSummary, StoredMessage } from "./bindings";
import type { Feedback } from "./hooks/useAction";
import type { useNavigation } from "./hooks/useNavigation";
import type { SessionEdits } from "./hooks/useSessionEdits";
import type { useSessionView } from "./hooks/useSessionView";
import type { useStoredRows } from "./hooks/useStoredRows";
import { ComparePane } from "./panes/ComparePane";
import { LibraryView } from "./panes/LibraryView";
import type { RowActions } from "./panes/MessageRow";
import { ModelPane } from "./panes/ModelPane";
import { RequestsPane } from "./panes/RequestsPane";
import { StoredPane } from "./panes/StoredPane";
import { Timeline } from "./panes/Timeline";
import { TrimmedOutputs } from "./panes/TrimmedOutputs";
import { UsageView } from "./panes/UsageView";
import type { Tab } from "./tabs";
import { served } from "./transport";

/** What the views render from: the window's state and actions. */
export type ViewContext = {
  /** The summary of the session shown (null when none is, or the list has not loaded it). */
  current: SessionSummary | null;
  sessions: SessionSummary[];
  view: ReturnType<typeof useSessionView>;
  storedRows: ReturnType<typeof useStoredRows>;
  nav: ReturnType<typeof useNavigation>;
  /** Tool calls started but not finished (or of unknown result). */
  pending: JournalEntry[];
  /** Messages whose output was trimmed. */
  trimmed: StoredMessage[];
  messageSearch: Ref<HTMLInputElement>;
  feedback: Feedback;
  setSelected: (id: string) => void;
  /** Renaming and removing sessions. */
  edits: SessionEdits;
  actions: RowActions;
};

/** One tab: opened by its button or Ctrl+`key`; a view of a session renders only with one shown. */
export type View = { id: Tab; label: string; key: string } & (
  | { perSession: true; render: (c: ViewContext, session: string) => ComponentChildren }
  | { perSession: false; render: (c: ViewContext) => ComponentChildren }
);

export const VIEWS: View[] = [
  {
    id: "stored",
    label: "Stored",
    key: "1",
    perSession: true,
    render: (c, session) => (
      <StoredPane
        stored={c.view.stored}
        rows={c.storedRows.rows}
        scrollTo={c.storedRows.scrollTo}
        pending={c.pending}
        searchRef={c.messageSearch}
        onToggle={c.storedRows.toggle}
        onJump={c.nav.jumpTo}
        onNearStart={() => c.view.loadOlder(session)}
        onNearEnd={() => c.view.loadNewer(session)}
        hasNewer={c.view.hasNewer}
        actions={c.actions}
      />
    ),
  },
  {
    id: "model",
    label: "Model view",
    key: "2",
    perSession: true,
    render: (c, session) =>
      c.view.wire && (
        <ModelPane
          wire={c.view.wire}
          callChoice={c.view.callChoice}
          calls={c.view.stored?.modelCalls ?? []}
          source={c.current?.source}
          onChoose={(value) => c.view.chooseCall(session, value)}
          onRows={(from, to) => c.view.wantRows(session, from, to)}
        />
      ),
  },
  {
    id: "timeline",
    label: "Compactions",
    key: "3",
    perSession: true,
    render: (c, session) => (
      <Timeline session={session} imported={!!(c.current?.source ?? c.view.stored?.session.source)} compactions={c.view.stored?.compactions ?? []} version={c.view.stored?.modelCalls.length ?? 0} onJump={c.nav.jumpTo} />
    ),
  },
  {
    id: "diffs",
    label: "Trimmed outputs",
    key: "4",
    perSession: true,
    render: (c) => <TrimmedOutputs trimmed={c.trimmed} diff={c.nav.diff} onOpen={c.nav.openDiff} />,
  },
  {
    id: "requests",
    label: "Requests",
    key: "5",
    perSession: true,
    render: (c, session) => (
      <RequestsPane
        session={session}
        source={c.current?.source}
        version={c.view.stored?.modelCalls.length ?? 0}
        meter={c.view.meter}
        compactions={c.view.stored?.compactions ?? []}
        modelCalls={c.view.stored?.modelCalls ?? []}
        fail={c.feedback.fail}
        onNotice={c.feedback.setNotice}
      />
    ),
  },
  {
    id: "usage",
    label: "Usage",
    key: "6",
    perSession: false,
    render: (c) => (
      <UsageView
        fail={c.feedback.fail}
        onOpen={(id) => {
          c.setSelected(id);
          c.nav.setTab("stored");
        }}
      />
    ),
  },
  {
    id: "compare",
    label: "Compare",
    key: "7",
    perSession: true,
    render: (c, session) => (
      <ComparePane
        session={session}
        forkedFrom={c.view.stored?.forkedFrom?.session ?? null}
        compareWith={c.nav.compareWith}
        sessions={c.sessions}
        onOpen={c.nav.openCompared}
      />
    ),
  },
  {
    id: "library",
    label: "Library",
    key: "8",
    perSession: false,
    render: (c) => (
      <LibraryView
        sessions={c.sessions}
        current={c.current?.id ?? null}
        onOpen={(id) => {
          c.setSelected(id);
          c.nav.setTab("stored");
        }}
        onCompare={c.nav.openCompare}
        edits={c.edits}
      />
    ),
  },
];

/** The view of `tab`. */
export function viewOf(tab: Tab): View {
  return VIEWS.find((v) => v.id === tab) ?? VIEWS[0];
}

/** What the pane shows: the view, or a hint where a view of a session has none to show. */
export function renderView(view: View, c: ViewContext, selected: string | null): ComponentChildren {
  if (!view.perSession) return view.render(c);
  if (selected) return view.render(c, selected);
  // Served (read-only) no session starts here.
  return <div class="empty">{served ? "Pick a session on the left." : "Start a session from the composer below, or pick one on the left."}</div>;
}
