// The window: sessions on the left, the transcript (stored / model / timeline / diffs) in the
// middle, the inspector on the right, the composer below. State lives in the hooks; each pane is
// its own component; every action goes through `feedback.act` (progress, error, refresh).
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "./api";
import type { FoundServer, JournalEntry, JsonValue, Pin, TrimmedDiff } from "./bindings";
import { CompactDialog, ExportDialog, ImportDialog, ProposalDialog, ProxyDialog } from "./dialogs";
import { SettingsDialog } from "./settings";
import { useFeedback } from "./hooks/useAction";
import { useEngineEvents } from "./hooks/useEngineEvents";
import { useActions, type DialogState } from "./hooks/useActions";
import { useSessions } from "./hooks/useSessions";
import { useSessionView } from "./hooks/useSessionView";
import { useShortcuts } from "./hooks/useShortcuts";
import { useStoredRows } from "./hooks/useStoredRows";
import { profileName, readOnlyReason, withProfile } from "./logic";
import { FoundServersBanner, StatusLines, UncertainBanner } from "./panes/Banners";
import { Composer } from "./panes/Composer";
import { Inspector } from "./panes/Inspector";
import { ModelPane } from "./panes/ModelPane";
import { PermissionDialog } from "./panes/PermissionDialog";
import { RequestsPane } from "./panes/RequestsPane";
import { SessionsPane } from "./panes/Sessions";
import { StoredPane } from "./panes/StoredPane";
import { Timeline } from "./panes/Timeline";
import { Toolbar } from "./panes/Toolbar";
import type { Tab } from "./tabs";
import { TrimmedOutputs } from "./panes/TrimmedOutputs";
import { CacheHeader } from "./panes/CacheHeader";
import { UsageView } from "./panes/UsageView";
import { ComparePane } from "./panes/ComparePane";


const TABS: Array<[Tab, string, string]> = [
  ["stored", "Stored", "Ctrl+1"],
  ["model", "Model view", "Ctrl+2"],
  ["timeline", "Compactions", "Ctrl+3"],
  ["diffs", "Trimmed outputs", "Ctrl+4"],
  ["requests", "Requests", "Ctrl+5"],
  ["usage", "Usage", "Ctrl+6"],
  ["compare", "Compare", "Ctrl+7"],
];

export function App() {
  const refreshRef = useRef<() => unknown>(() => undefined);
  const feedback = useFeedback(() => refreshRef.current());
  const { sessions, selected, setSelected, selectedRef, loadSessions } = useSessions(feedback.fail);
  const view = useSessionView(selectedRef, feedback.fail);
  const storedRows = useStoredRows(view.stored);
  const [tab, setTab] = useState<Tab>("stored");
  const [diff, setDiff] = useState<TrimmedDiff | null>(null);
  const [dialog, setDialog] = useState<DialogState>(null);
  const sessionSearch = useRef<HTMLInputElement>(null);
  const messageSearch = useRef<HTMLInputElement>(null);
  const composer = useRef<HTMLTextAreaElement>(null);
  const pendingJump = useRef<number | null>(null);

  const refresh = async () => {
    await loadSessions();
    if (selectedRef.current) await view.load(selectedRef.current);
  };
  refreshRef.current = refresh;

  const { live, update: updateLive } = useEngineEvents(selectedRef, (effect) => {
    if (effect.select) setSelected(effect.select);
    if (effect.notice) feedback.setNotice(effect.notice);
    if (effect.error) feedback.setError(effect.error);
    if (effect.refresh === "full") refresh();
    if (effect.refresh === "sessions") loadSessions();
    if (effect.refresh === "append") {
      loadSessions();
      if (selectedRef.current) view.appendNewer(selectedRef.current);
    }
  });

  useEffect(() => {
    // On a first start the engine produces the demo session before the list is shown.
    feedback.act(() => api.sessionsEnsureDemo({}), { busy: "Preparing…" });
    // With no config file yet, the usual local ports are asked for a model server to use.
    api.configGet({}).then((doc) => {
      if (Object.keys((doc.raw ?? {}) as object).length === 0) api.configFindServers({}).then(setFound, () => {});
    }, () => {});
  }, []);
  const [found, setFound] = useState<FoundServer[]>([]);
  const [proxyRunning, setProxyRunning] = useState(false);
  useEffect(() => {
    api.proxyStatus({}).then((s) => setProxyRunning(s.running), () => {});
  }, []);
  const useFound = (server: FoundServer) =>
    feedback.act(async () => {
      await api.configSave({ raw: withProfile({}, server) as JsonValue });
      setFound([]);
      return server;
    }, { notice: (s) => `Profile "${profileName(s)}" saved and active: ${s.baseUrl}, model ${s.models[0] ?? "default"}.` });

  useEffect(() => {
    view.clear();
    setDiff(null);
    storedRows.reset();
    if (selected)
      view.load(selected).then(() => {
        // Opened from a search hit: at its message; otherwise at the end.
        const seq = pendingJump.current;
        pendingJump.current = null;
        if (seq !== null) jumpTo(seq);
        else storedRows.scrollToEnd();
      });
  }, [selected]);

  const pending = useMemo<JournalEntry[]>(
    () => (view.stored?.toolCalls ?? []).filter((t) => t.state === "started" || t.state === "uncertain"),
    [view.stored],
  );
  const trimmed = useMemo(() => (view.stored?.messages ?? []).filter((m) => m.truncated), [view.stored]);
  const latestCheckpoint = [...(view.stored?.compactions ?? [])].reverse().find((c) => c.kind === "checkpoint" && c.status === "applied");
  const current = sessions.find((s) => s.id === selected) ?? null;
  const readOnly = readOnlyReason(current);

  const { compact, undo, acknowledge, send, stop } = useActions({ selected, setSelected, loadSessions, feedback, live, updateLive, setDialog });

  // Pins: carried verbatim right after every checkpoint.
  const [pins, setPins] = useState<Pin[]>([]);
  useEffect(() => {
    setPins([]);
    if (selected) api.pinsList({ session: selected }).then(setPins, () => {});
  }, [selected]);
  const pin = (seq: number) =>
    selected &&
    feedback.act(
      async () => {
        const added = await api.pinsAdd({ session: selected, seq, text: null });
        setPins(await api.pinsList({ session: selected }));
        return added;
      },
      { notice: (p) => `Pinned #${seq} (pin ${p.id}): every request after a checkpoint carries it verbatim` },
    );
  // Fork from here: a new session from what the model saw after message `seq`; it opens.
  const fork = (seq: number) =>
    selected &&
    feedback.act(() => api.forksFork({ session: selected, at: seq }), {
      notice: (f) => {
        loadSessions().then(() => setSelected(f.id));
        return `Forked at #${seq}: a new session of ${f.messages} messages (the source is unchanged)`;
      },
    });
  const removePin = (id: number) =>
    selected && feedback.act(async () => setPins(await api.pinsRemove({ session: selected, id })), { notice: () => `Pin ${id} removed` });

  const openDiff = async (seq: number) => {
    if (!selected) return;
    setTab("diffs");
    setDiff(null);
    await feedback.act(async () => setDiff(await api.viewsTrimmedDiff({ session: selected, seq })));
  };

  const jumpTo = async (seq: number) => {
    setTab("stored");
    if (!selected) return;
    // A message outside the loaded window: load the window around it first.
    const around = await view.showAround(selected, seq);
    if (around) storedRows.jumpTo(seq, around);
  };

  useShortcuts({
    escape: () => {
      setDialog(null);
      feedback.setError(null);
      feedback.setNotice(null);
    },
    tab: (index) => setTab(TABS[index][0]),
    sessions: () => sessionSearch.current?.focus(),
    search: () => {
      setTab("stored");
      setTimeout(() => messageSearch.current?.focus(), 0);
    },
    compact: () => !readOnly && setDialog({ kind: "compact" }),
    importSessions: () => setDialog({ kind: "import" }),
    exportSession: () => selected && setDialog({ kind: "export" }),
    proxy: () => setDialog({ kind: "proxy" }),
    undo,
    composer: () => composer.current?.focus(),
    stop,
  });

  return (
    <div class="app">
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
        onOpenMessage={(id, seq) => {
          setTab("stored");
          if (id === selected) return jumpTo(seq);
          pendingJump.current = seq;
          setSelected(id);
        }}
      />

      <main class="main">
        <Toolbar
          tabs={TABS}
          tab={tab}
          onTab={setTab}
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

        <FoundServersBanner found={found} onUse={useFound} onDismiss={() => setFound([])} />
        <UncertainBanner pending={pending} onAcknowledge={acknowledge} />
        <StatusLines
          busy={feedback.busy ?? live.progress}
          loading={view.loading}
          error={feedback.error}
          notice={feedback.notice}
          onDismissError={() => feedback.setError(null)}
          onDismissNotice={() => feedback.setNotice(null)}
        />

        {selected && tab !== "usage" && (
          <CacheHeader session={selected} version={view.stored?.modelCalls.length ?? 0} agent={current?.source} onOpenRequests={() => setTab("requests")} />
        )}
        <section class="pane">
          {tab === "usage" && (
            <UsageView
              fail={feedback.fail}
              onOpen={(id) => {
                setSelected(id);
                setTab("stored");
              }}
            />
          )}
          {!selected && tab !== "usage" && <div class="empty">Start a session from the composer below, or pick one on the left.</div>}
          {selected && tab === "stored" && (
            <StoredPane
              stored={view.stored}
              rows={storedRows.rows}
              scrollTo={storedRows.scrollTo}
              pending={pending}
              searchRef={messageSearch}
              onToggle={storedRows.toggle}
              onJump={jumpTo}
              onNearStart={() => selected && view.loadOlder(selected)}
              onNearEnd={() => selected && view.loadNewer(selected)}
              hasNewer={view.hasNewer}
              actions={{ openDiff, acknowledge, pin, fork }}
            />
          )}
          {selected && tab === "model" && view.wire && (
            <ModelPane
              wire={view.wire}
              callChoice={view.callChoice}
              calls={view.stored?.modelCalls ?? []}
              source={current?.source}
              onChoose={(value) => view.chooseCall(selected, value)}
              onRows={(from, to) => view.wantRows(selected, from, to)}
            />
          )}
          {selected && tab === "compare" && (
            <ComparePane
              session={selected}
              forkedFrom={view.stored?.forkedFrom?.session ?? null}
              sessions={sessions}
              onOpen={(id, seq) => {
                pendingJump.current = seq;
                setTab("stored");
                if (id !== selected) setSelected(id);
                else jumpTo(seq);
              }}
            />
          )}
          {selected && tab === "timeline" && <Timeline session={selected} compactions={view.stored?.compactions ?? []} onJump={jumpTo} />}
          {selected && tab === "diffs" && <TrimmedOutputs trimmed={trimmed} diff={diff} onOpen={openDiff} />}
          {selected && tab === "requests" && (
            <RequestsPane
              session={selected}
              source={current?.source}
              version={view.stored?.modelCalls.length ?? 0}
              meter={view.meter}
              compactions={view.stored?.compactions ?? []}
              modelCalls={view.stored?.modelCalls ?? []}
              fail={feedback.fail}
              onNotice={feedback.setNotice}
            />
          )}
        </section>

        <Composer inputRef={composer} hasSession={selected !== null} readOnly={readOnly} running={live.running !== null} streaming={live.streaming} onSend={send} onStop={stop} />
      </main>

      <Inspector
        meter={view.meter}
        latestCheckpoint={latestCheckpoint}
        calls={view.stored?.modelCalls ?? []}
        session={current}
        pins={pins}
        onRemovePin={removePin}
        onOpenCall={(id) => {
          if (!selected) return;
          setTab("model");
          view.chooseCall(selected, String(id));
        }}
      />

      {dialog?.kind === "compact" && selected && <CompactDialog session={selected} onClose={() => setDialog(null)} onCompact={compact} />}
      {dialog?.kind === "proposal" && selected && (
        <ProposalDialog
          proposal={dialog.proposal}
          initial={dialog.text}
          partial={dialog.partial}
          fidelity={dialog.fidelity}
          onClose={() => setDialog(null)}
          onApply={(text) =>
            feedback.act(() => api.compactionApply({ session: selected, proposal: dialog.proposal, edited: text }), {
              notice: () => {
                setDialog(null);
                return `Proposal #${dialog.proposal} applied`;
              },
            })
          }
          onDiscard={() => feedback.act(() => api.compactionDiscard({ session: selected, proposal: dialog.proposal })).then(() => setDialog(null))}
        />
      )}
      {dialog?.kind === "export" && selected && (
        <ExportDialog session={selected} title={sessions.find((s) => s.id === selected)?.title ?? selected} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "import" && (
        <ImportDialog
          initial={dialog.path}
          onClose={() => setDialog(null)}
          onImported={(first) => {
            loadSessions();
            if (first && !selected) setSelected(first);
          }}
        />
      )}
      {dialog?.kind === "proxy" && (
        <ProxyDialog
          onClose={() => setDialog(null)}
          onStatus={(s) => setProxyRunning(s.running)}
          onOpen={(id) => {
            setDialog(null);
            loadSessions();
            setSelected(id);
          }}
        />
      )}
      {dialog?.kind === "settings" && <SettingsDialog onClose={() => setDialog(null)} onSaved={() => feedback.act(async () => "Settings saved", { notice: (text) => text })} />}
      {live.permission && (
        <PermissionDialog
          permission={live.permission}
          onAnswer={(approve) => {
            if (live.permission) api.turnsAnswerPermission({ id: live.permission.id, approve });
            updateLive({ permission: null });
          }}
        />
      )}
    </div>
  );
}
