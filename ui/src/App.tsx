// The window: sessions on the left, the view of the tab picked (the table in views.tsx) in the
// middle, the inspector on the right, the composer below. State lives in the hooks; each pane is
// its own component; every action goes through `feedback.act` (progress, error, refresh).
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { AppDialogs } from "./AppDialogs";
import { useFeedback, type Feedback } from "./hooks/useAction";
import { useActions, type DialogState } from "./hooks/useActions";
import { useLive } from "./hooks/useLive";
import { useMessageActions } from "./hooks/useMessageActions";
import { useNavigation } from "./hooks/useNavigation";
import { useSessionFacts } from "./hooks/useSessionFacts";
import { useSessionEdits } from "./hooks/useSessionEdits";
import { useSessions } from "./hooks/useSessions";
import { useSessionView } from "./hooks/useSessionView";
import { useShortcuts } from "./hooks/useShortcuts";
import { useSidebarWidth } from "./hooks/useSidebarWidth";
import { useStartup } from "./hooks/useStartup";
import { useStoredRows } from "./hooks/useStoredRows";
import { readOnlyReason } from "./logic";
import { FoundServersBanner, StatusLines, UncertainBanner } from "./panes/Banners";
import { CacheHeader } from "./panes/CacheHeader";
import { Composer } from "./panes/Composer";
import { Inspector } from "./panes/Inspector";
import { SessionsPane } from "./panes/Sessions";
import { Toolbar } from "./panes/Toolbar";
import type { Tab } from "./tabs";
import { servedReadOnly } from "./transport";
import { renderView, viewOf, VIEWS, type ViewContext } from "./views";

const VIEW_KEYS = VIEWS.map((v) => v.key);

export function App() {
  const refreshRef = useRef<() => unknown>(() => undefined);
  const feedback = useFeedback(() => refreshRef.current());
  const { sessions, selected, setSelected, selectedRef, loadSessions } = useSessions(feedback.fail);
  const view = useSessionView(selectedRef, feedback.fail);
  const storedRows = useStoredRows(view.stored);
  const [dialog, setDialog] = useState<DialogState>(null);
  const sessionSearch = useRef<HTMLInputElement>(null);
  const messageSearch = useRef<HTMLInputElement>(null);
  const composer = useRef<HTMLTextAreaElement>(null);

  const { live, updateLive, refresh } = useLive({ selectedRef, setSelected, loadSessions, view, feedback });
  refreshRef.current = refresh;
  const { found, setFound, adoptServer, proxyRunning, setProxyRunning } = useStartup(feedback);
  const nav = useNavigation({ selected, setSelected, view, storedRows, feedback });

  const { pending, trimmed, latestCheckpoint } = useSessionFacts(view.stored);
  const current = sessions.find((s) => s.id === selected) ?? null;
  const readOnly = servedReadOnly ?? readOnlyReason(current);

  const { compact, undo, acknowledge, send, stop } = useActions({ selected, setSelected, loadSessions, feedback, live, updateLive, setDialog });
  const { pins, pin, fork, removePin } = useMessageActions({ selected, setSelected, loadSessions, feedback });
  const edits = useSessionEdits({ selectedRef, setSelected, loadSessions, feedback });
  useWindowShortcuts({ setDialog, feedback, setTab: nav.setTab, sessionSearch, messageSearch, composer, readOnly, selected, undo, stop });

  const [sidebarWidth, startSidebarDrag] = useSidebarWidth();
  const active = viewOf(nav.tab);
  const context: ViewContext = { current, sessions, view, storedRows, nav, pending, trimmed, messageSearch, feedback, setSelected, edits, actions: { openDiff: nav.openDiff, acknowledge, pin, fork } };
  return (
    <div class="app" style={{ "--sidebar": `${sidebarWidth}px` }}>
      <div class="sidebar-resizer" onMouseDown={startSidebarDrag} title="Drag to resize the session list" data-testid="sidebar-resizer" />
      <SessionsPane
        sessions={sessions}
        importing={live.importing}
        selected={selected}
        searchRef={sessionSearch}
        onSelect={(id) => {
          setSelected(id);
          if (!id) composer.current?.focus();
        }}
        onSettings={() => setDialog({ kind: "settings" })}
        onImport={(path) => setDialog({ kind: "import", path })}
        onOpenMessage={nav.openMessage}
        onRename={edits.rename}
      />

      <main class="main">
        <Toolbar
          tabs={VIEWS}
          tab={nav.tab}
          onTab={nav.setTab}
          canCompact={selected !== null && !readOnly}
          compactBlocked={readOnly}
          canUndo={latestCheckpoint !== undefined}
          onCompact={() => setDialog({ kind: "compact" })}
          onUndo={undo}
          canExport={selected !== null}
          onExport={() => setDialog({ kind: "export" })}
          proxyRunning={proxyRunning}
          onProxy={() => setDialog({ kind: "proxy" })}
        />

        <FoundServersBanner found={found} onUse={adoptServer} onDismiss={() => setFound([])} />
        <UncertainBanner pending={pending} onAcknowledge={acknowledge} />
        <StatusLines
          busy={feedback.busy ?? live.progress}
          loading={view.loading}
          error={feedback.error}
          notice={feedback.notice}
          onDismissError={() => feedback.setError(null)}
          onDismissNotice={() => feedback.setNotice(null)}
        />

        {selected && active.perSession && (
          <CacheHeader session={selected} version={view.stored?.modelCalls.length ?? 0} agent={current?.source} onOpenRequests={() => nav.setTab("requests")} />
        )}
        <section class="pane">{renderView(active, context, selected)}</section>

        <Composer inputRef={composer} hasSession={selected !== null} readOnly={readOnly} running={live.running !== null} streaming={live.streaming} onSend={send} onStop={stop} />
      </main>

      <Inspector meter={view.meter} latestCheckpoint={latestCheckpoint} calls={view.stored?.modelCalls ?? []} session={current} pins={pins} onRemovePin={removePin} onOpenCall={nav.openCall} />

      <AppDialogs
        dialog={dialog}
        setDialog={setDialog}
        selected={selected}
        setSelected={setSelected}
        sessions={sessions}
        loadSessions={loadSessions}
        feedback={feedback}
        compact={compact}
        onProxyStatus={(s) => setProxyRunning(s.running)}
        live={live}
        updateLive={updateLive}
      />
    </div>
  );
}

/** The window's keyboard shortcuts (useShortcuts binds the keys): tabs, focus, dialogs, undo, stop. */
function useWindowShortcuts(deps: {
  setDialog: (dialog: DialogState) => void;
  feedback: Feedback;
  setTab: (tab: Tab) => void;
  sessionSearch: RefObject<HTMLInputElement>;
  messageSearch: RefObject<HTMLInputElement>;
  composer: RefObject<HTMLTextAreaElement>;
  readOnly: string | null;
  selected: string | null;
  undo: () => unknown;
  stop: () => void;
}) {
  const { setDialog, feedback, setTab, sessionSearch, messageSearch, composer, readOnly, selected, undo, stop } = deps;
  useShortcuts({
    escape: () => {
      setDialog(null);
      feedback.setError(null);
      feedback.setNotice(null);
    },
    tabKeys: VIEW_KEYS,
    tab: (index) => setTab(VIEWS[index].id),
    sessions: () => sessionSearch.current?.focus(),
    search: () => {
      setTab("stored");
      setTimeout(() => messageSearch.current?.focus(), 0);
    },
    // Served (read-only), the shortcuts that write do nothing, as their buttons are off.
    compact: () => !readOnly && setDialog({ kind: "compact" }),
    importSessions: () => !servedReadOnly && setDialog({ kind: "import" }),
    exportSession: () => !servedReadOnly && selected && setDialog({ kind: "export" }),
    proxy: () => !servedReadOnly && setDialog({ kind: "proxy" }),
    undo: () => !servedReadOnly && undo(),
    composer: () => composer.current?.focus(),
    stop,
  });
}
