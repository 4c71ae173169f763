// The window: sessions on the left, the transcript (stored / model / timeline / diffs) in the
// middle, the inspector (context meter, checkpoint, model calls) on the right, the composer below.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, errorMessage, onUiEvent } from "./api";
import type {
  CompactOutcome,
  ContextMeter,
  JournalEntry,
  ModelCallRecord,
  SessionSummary,
  StoredMessage,
  StoredView,
  ToolCall,
  TrimmedDiff,
  WireItem,
} from "./bindings";
import { CheckpointCard, Collapsible, Dialog, Flags, Meter, WireCard } from "./components";
import { CompactDialog, ProposalDialog, SettingsDialog } from "./dialogs";
import { Timeline, TrimmedOutputs } from "./panes";
import { filterSessions, formatChars, formatTokens, parseSlashCompact, searchMessages, storedRows, type Row } from "./logic";
import { VirtualList } from "./VirtualList";

type Tab = "stored" | "model" | "timeline" | "diffs";
type Permission = { id: number; session: string; call: ToolCall; permission: string };
type DialogState = { kind: "compact" } | { kind: "proposal"; proposal: number; text: string; partial: boolean } | { kind: "settings" } | null;

/** Messages shown at once when a session opens; older ones follow in pages. */
const FIRST_PAGE = 1500;
const OLDER_PAGE = 10_000;

const TABS: Array<[Tab, string, string]> = [
  ["stored", "Stored", "Ctrl+1"],
  ["model", "Model view", "Ctrl+2"],
  ["timeline", "Compactions", "Ctrl+3"],
  ["diffs", "Trimmed outputs", "Ctrl+4"],
];

export function App() {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [query, setQuery] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>("stored");
  const [stored, setStored] = useState<StoredView | null>(null);
  const [wire, setWire] = useState<{ messages: WireItem[]; label: string; chars: number; catalog: number } | null>(null);
  const [callChoice, setCallChoice] = useState<number | null>(null);
  const [meter, setMeter] = useState<ContextMeter | null>(null);
  const [open, setOpen] = useState<Set<number>>(new Set());
  const [search, setSearch] = useState("");
  const [scrollTo, setScrollTo] = useState<{ index: number } | null>(null);
  const [diff, setDiff] = useState<TrimmedDiff | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [loading, setLoading] = useState<string | null>(null);
  const [streaming, setStreaming] = useState("");
  const [running, setRunning] = useState<string | null>(null);
  const [dialog, setDialog] = useState<DialogState>(null);
  const [permission, setPermission] = useState<Permission | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const sessionSearch = useRef<HTMLInputElement>(null);
  const messageSearch = useRef<HTMLInputElement>(null);
  const composer = useRef<HTMLTextAreaElement>(null);
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selected;

  const fail = (e: unknown) => setError(errorMessage(e));

  const loadSessions = useCallback(async () => {
    try {
      const list = await api.listSessions();
      setSessions(list);
      if (!selectedRef.current && list.length) setSelected(list[0].id);
    } catch (e) {
      fail(e);
    }
  }, []);

  const loadSession = useCallback(async (id: string, first: boolean) => {
    try {
      // A long session is shown from its end at once, then completed page by page; the model
      // view and the meter follow without holding up the first paint.
      const view = await api.storedView(id, FIRST_PAGE);
      if (selectedRef.current !== id) return;
      setStored(view);
      if (first) setScrollTo({ index: Number.MAX_SAFE_INTEGER });
      api
        .modelView(id)
        .then((next) => {
          if (selectedRef.current !== id) return;
          setWire({ messages: next.messages, label: "Next request", chars: next.chars, catalog: next.toolCatalogChars });
          setCallChoice(null);
        })
        .catch(fail);
      api.contextMeter(id).then((m) => selectedRef.current === id && setMeter(m)).catch(fail);
      if (view.hasOlder) loadOlder(id, view);
    } catch (e) {
      fail(e);
    }
  }, []);

  const paging = useRef(0);
  const loadOlder = async (id: string, view: StoredView) => {
    const generation = ++paging.current;
    let messages = view.messages;
    let more = view.hasOlder;
    while (more && messages.length > 0 && paging.current === generation && selectedRef.current === id) {
      setLoading(`Loading earlier messages… ${messages.length.toLocaleString("en-US")} shown`);
      const older = await api.olderMessages(id, messages[0].anchor, messages[0].seq, OLDER_PAGE).catch((e) => {
        fail(e);
        return [];
      });
      if (paging.current !== generation || selectedRef.current !== id) return;
      more = older.length === OLDER_PAGE;
      messages = [...older, ...messages];
      setStored((current) => (current ? { ...current, messages, hasOlder: more } : current));
    }
    if (paging.current === generation) setLoading(null);
  };

  const refresh = useCallback(async () => {
    await loadSessions();
    if (selectedRef.current) await loadSession(selectedRef.current, false);
  }, [loadSessions, loadSession]);

  useEffect(() => {
    // On a first start the engine produces the demo session before the list is shown.
    setBusy("Preparing…");
    api
      .ensureDemo()
      .catch(fail)
      .finally(() => {
        setBusy(null);
        loadSessions();
      });
    const unlisten = [
      onUiEvent((event) => {
        if (event.kind === "permissionRequest") {
          setPermission({ id: event.id, session: event.session, call: event.call, permission: event.permission });
          return;
        }
        if (event.kind === "turnFinished") {
          setRunning(null);
          setStreaming("");
          setBusy(null);
          if (event.error) setError(event.error);
          refresh();
          return;
        }
        const e = event.envelope;
        switch (e.type) {
          case "text_delta":
            setStreaming((s) => s + e.text);
            break;
          case "session":
            if (selectedRef.current !== e.id) setSelected(e.id);
            break;
          case "compaction_started":
            setBusy(`Compacting (${e.reason})…`);
            break;
          case "compaction_completed":
          case "compaction_skipped":
          case "compaction_failed":
          case "context_reduced":
          case "compaction_reverted":
          case "tool_finished":
          case "model_call":
            setBusy(null);
            if (e.type === "compaction_skipped") setNotice(`Nothing compacted: ${e.reason}`);
            if (e.type === "compaction_failed") setError(`Compaction failed: ${e.error}`);
            if (e.type === "model_call") setStreaming("");
            refresh();
            break;
          case "tool_started":
            setBusy(`Running ${e.name}…`);
            break;
          default:
            break;
        }
      }),
    ];
    return () => unlisten.forEach((p) => p.then((f) => f()));
  }, []);

  useEffect(() => {
    setStored(null);
    setWire(null);
    setMeter(null);
    setDiff(null);
    setOpen(new Set());
    if (selected) loadSession(selected, true);
  }, [selected]);

  const compactions = useMemo(() => new Map((stored?.compactions ?? []).map((c) => [c.id, c])), [stored]);
  const rows = useMemo<Row[]>(() => (stored ? storedRows(stored, open) : []), [stored, open]);
  const rowKey = useCallback((i: number) => {
    const row = rows[i];
    return row.kind === "group" ? `g${row.compaction}-${row.firstSeq}` : `m${row.message.seq}`;
  }, [rows]);
  const rowEstimate = useCallback((i: number) => (rows[i].kind === "group" ? 40 : 90), [rows]);
  const wireKey = useCallback((i: number) => `w${callChoice ?? "next"}-${i}`, [callChoice, wire]);
  const wireEstimate = useCallback(() => 90, []);
  const hits = useMemo(() => new Set(stored ? searchMessages(stored.messages, search) : []), [stored, search]);
  const pending = useMemo<JournalEntry[]>(
    () => (stored?.toolCalls ?? []).filter((t) => t.state === "started" || t.state === "uncertain"),
    [stored],
  );
  const trimmed = useMemo(() => (stored?.messages ?? []).filter((m) => m.truncated), [stored]);
  const shownSessions = filterSessions(sessions, query);
  const current = sessions.find((s) => s.id === selected) ?? null;

  const jumpToSeq = (seq: number) => {
    if (!stored) return;
    const m = stored.messages.find((x) => x.seq === seq);
    if (m?.compactedBy != null && !open.has(m.compactedBy)) setOpen(new Set([...open, m.compactedBy]));
    setTab("stored");
    setTimeout(() => {
      const index = storedRows(stored, new Set([...open, ...(m?.compactedBy != null ? [m.compactedBy] : [])])).findIndex(
        (r) => (r.kind === "message" && r.message.seq === seq) || (r.kind === "group" && r.firstSeq === seq),
      );
      setScrollTo(index >= 0 ? { index } : null);
    }, 0);
  };

  const doCompact = async (focus: string | null, preview: boolean) => {
    if (!selected) return;
    setDialog(null);
    setBusy("Compacting…");
    try {
      const outcome: CompactOutcome = await api.compact({ session: selected, focus, preview });
      if (outcome.outcome === "proposed") {
        const text = JSON.stringify(outcome.checkpoint.sections ?? { text: outcome.checkpoint.text }, null, 2);
        setDialog({ kind: "proposal", proposal: outcome.proposal, text, partial: outcome.partial });
      } else if (outcome.outcome === "skipped") {
        setNotice(`Nothing compacted: ${outcome.reason}`);
      } else if (outcome.outcome === "failed") {
        setError(`Compaction failed: ${outcome.error}`);
      } else {
        setNotice(`Compaction #${outcome.compaction} applied${outcome.partial ? " (partial checkpoint)" : ""}`);
      }
    } catch (e) {
      fail(e);
    } finally {
      setBusy(null);
      refresh();
    }
  };

  const undo = async () => {
    if (!selected) return;
    try {
      const ids = await api.undoCompaction(selected);
      setNotice(`Reverted ${ids.map((i) => `#${i}`).join(", ")}`);
    } catch (e) {
      fail(e);
    }
    refresh();
  };

  const acknowledge = async () => {
    if (!selected) return;
    try {
      const report = await api.acknowledgeUncertain(selected);
      setNotice(`Recorded "result unknown" for ${report.acknowledged.map((e) => e.callId).join(", ") || "nothing"}`);
    } catch (e) {
      fail(e);
    }
    refresh();
  };

  const send = async () => {
    const text = draft.trim();
    if (!text) return;
    const slash = parseSlashCompact(text);
    setDraft("");
    if (slash) {
      await doCompact(slash.focus, false);
      return;
    }
    try {
      setStreaming("");
      setRunning(selected ?? "new");
      setBusy("Waiting for the model…");
      const id = await api.runTurn(selected, text);
      setRunning(id);
      if (id !== selected) setSelected(id);
      loadSessions();
    } catch (e) {
      setRunning(null);
      setBusy(null);
      fail(e);
    }
  };

  const stop = async () => {
    if (running && running !== "new") await api.cancelTurn(running).catch(fail);
  };

  const chooseCall = async (value: string) => {
    if (!selected) return;
    if (value === "next") {
      const next = await api.modelView(selected).catch(fail);
      if (next) setWire({ messages: next.messages, label: "Next request", chars: next.chars, catalog: next.toolCatalogChars });
      setCallChoice(null);
      return;
    }
    const id = Number(value);
    const past = await api.pastRequest(selected, id).catch(fail);
    if (past) {
      setWire({ messages: past.messages, label: `Model call #${id} (${past.call.purpose})`, chars: past.call.requestChars - past.call.toolCatalogChars, catalog: past.call.toolCatalogChars });
      setCallChoice(id);
    }
  };

  const openDiff = async (seq: number) => {
    if (!selected) return;
    setTab("diffs");
    setDiff(null);
    try {
      setDiff(await api.trimmedDiff(selected, seq));
    } catch (e) {
      fail(e);
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (e.key === "Escape") {
        setDialog(null);
        setError(null);
        setNotice(null);
      }
      if (!mod) return;
      const digit = ["1", "2", "3", "4"].indexOf(e.key);
      if (digit >= 0) {
        e.preventDefault();
        setTab(TABS[digit][0]);
      } else if (e.key.toLowerCase() === "k") {
        e.preventDefault();
        sessionSearch.current?.focus();
      } else if (e.key.toLowerCase() === "f") {
        e.preventDefault();
        setTab("stored");
        messageSearch.current?.focus();
      } else if (e.shiftKey && e.key.toLowerCase() === "c") {
        e.preventDefault();
        setDialog({ kind: "compact" });
      } else if (e.shiftKey && e.key.toLowerCase() === "z") {
        e.preventDefault();
        undo();
      } else if (e.key === "l") {
        e.preventDefault();
        composer.current?.focus();
      } else if (e.key === ".") {
        e.preventDefault();
        stop();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  const renderRow = (index: number) => {
    const row = rows[index];
    if (row.kind === "group") {
      return (
        <div class="group" data-testid="compacted-group">
          <button
            class="group-toggle"
            aria-expanded={row.open}
            onClick={() => {
              const next = new Set(open);
              if (next.has(row.compaction)) next.delete(row.compaction);
              else next.add(row.compaction);
              setOpen(next);
            }}
          >
            {row.open ? "▾" : "▸"} {row.count} message{row.count === 1 ? "" : "s"} hidden from the model by {row.reason} #{row.compaction} ·{" "}
            {formatChars(row.chars)}
          </button>
        </div>
      );
    }
    return MessageRow({ m: row.message, results: row.results, depth: row.depth, hit: hits.has(row.message.seq) });
  };

  function MessageRow(props: { m: StoredMessage; results: Map<string, StoredMessage>; depth: number; hit: boolean }) {
    const { m } = props;
    const checkpoint = m.summary && m.createdBy !== null ? compactions.get(m.createdBy) : undefined;
    const isCheckpoint = m.summary && (m.content.startsWith("## Checkpoint") || m.content.startsWith("## Prior work summary"));
    return (
      <div class={`msg role-${m.role} ${m.compacted ? "is-compacted" : ""} ${props.hit ? "hit" : ""}`} style={{ marginLeft: `${props.depth * 16}px` }} data-testid="message" data-seq={m.seq}>
        <div class="msg-head">
          <span class="role">{m.summary ? (isCheckpoint ? "checkpoint" : "injected context") : m.role}</span>
          <span class="muted">#{m.seq}</span>
          <Flags m={m} />
          {m.truncated && (
            <button class="link" data-testid="open-diff" onClick={() => openDiff(m.seq)}>
              trimmed to {formatChars(m.chars)} — compare with the original
            </button>
          )}
        </div>
        {isCheckpoint ? <CheckpointCard compaction={checkpoint} fallback={m.content} /> : m.content && <Collapsible text={m.content} />}
        {m.toolCalls.map((call) => {
          const result = props.results.get(call.id);
          const uncertain = pending.find((p) => p.callId === call.id);
          return (
            <div class={`tool ${uncertain ? "uncertain" : ""}`} data-testid="tool-card">
              <div class="tool-head">
                → <strong>{call.name}</strong> <span class="muted">{call.id}</span>
              </div>
              <pre class="content args">{call.arguments}</pre>
              {uncertain ? (
                <div class="uncertain-box">
                  This call was running when the process stopped: its result is unknown and it will not be re-run.
                  <button class="danger" data-testid="acknowledge-card" onClick={acknowledge}>
                    Acknowledge (record "result unknown")
                  </button>
                </div>
              ) : result ? (
                <div class="tool-result">
                  <span class="muted">
                    result #{result.seq} · {formatChars(result.chars)}
                    {result.truncated ? " · trimmed" : ""}
                  </span>
                  <Collapsible text={result.content} />
                  {result.truncated && (
                    <button class="link" onClick={() => openDiff(result.seq)}>
                      compare with the original
                    </button>
                  )}
                </div>
              ) : (
                <div class="muted">no result yet</div>
              )}
            </div>
          );
        })}
      </div>
    );
  }

  const latestCheckpoint = [...(stored?.compactions ?? [])].reverse().find((c) => c.kind === "checkpoint" && c.status === "applied");
  const modelCalls: ModelCallRecord[] = stored?.modelCalls ?? [];

  return (
    <div class="app">
      <aside class="sidebar">
        <div class="brand">Alisio</div>
        <input ref={sessionSearch} class="search" placeholder="Search sessions (Ctrl+K)" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} data-testid="session-search" />
        <ul class="sessions" data-testid="sessions">
          {shownSessions.map((s) => (
            <li key={s.id}>
              <button class={`session ${s.id === selected ? "active" : ""}`} onClick={() => setSelected(s.id)} data-testid="session-item">
                <span class="title">{s.title || "(untitled)"}</span>
                <span class="muted small">
                  {s.liveMessages} live · {s.compactedMessages} compacted · {new Date(s.lastActivity).toLocaleString()}
                </span>
                {s.uncertainToolCalls > 0 && <span class="badge" data-testid="uncertain-badge">{s.uncertainToolCalls} uncertain</span>}
              </button>
            </li>
          ))}
        </ul>
        <button class="secondary" onClick={() => { setSelected(null); setStored(null); composer.current?.focus(); }}>
          New session
        </button>
        <button class="secondary" onClick={() => setDialog({ kind: "settings" })} data-testid="open-settings">
          Settings
        </button>
      </aside>

      <main class="main">
        <header class="toolbar">
          <nav class="tabs" role="tablist">
            {TABS.map(([id, label, key]) => (
              <button role="tab" aria-selected={tab === id} class={tab === id ? "tab active" : "tab"} onClick={() => setTab(id)} title={key} data-testid={`tab-${id}`}>
                {label}
              </button>
            ))}
          </nav>
          <div class="actions">
            <button onClick={() => setDialog({ kind: "compact" })} disabled={!selected} data-testid="compact-button" title="Ctrl+Shift+C">
              Compact…
            </button>
            <button class="secondary" onClick={undo} disabled={!latestCheckpoint} data-testid="undo-button" title="Ctrl+Shift+Z">
              Undo
            </button>
          </div>
        </header>

        {pending.length > 0 && (
          <div class="banner" data-testid="uncertain-banner">
            <div>
              <strong>Uncertain tool result{pending.length > 1 ? "s" : ""}.</strong> The process stopped while{" "}
              {pending.map((p) => (
                <code>
                  {p.name} {p.arguments}
                </code>
              ))}{" "}
              ran. Alisio never re-runs it: inspect its effects, then record the uncertainty as its result.
            </div>
            <button class="danger" onClick={acknowledge} data-testid="acknowledge-banner">
              Acknowledge
            </button>
          </div>
        )}
        {busy && <div class="progress" data-testid="progress">{busy}</div>}
        {loading && <div class="progress" data-testid="loading">{loading}</div>}
        {error && (
          <div class="error" role="alert" data-testid="error">
            {error} <button class="link" onClick={() => setError(null)}>dismiss</button>
          </div>
        )}
        {notice && (
          <div class="notice" data-testid="notice">
            {notice} <button class="link" onClick={() => setNotice(null)}>dismiss</button>
          </div>
        )}

        <section class="pane">
          {!selected && <div class="empty">Start a session from the composer below, or pick one on the left.</div>}
          {selected && tab === "stored" && (
            <>
              <div class="pane-head">
                <input ref={messageSearch} class="search" placeholder="Search this session (Ctrl+F)" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} data-testid="message-search" />
                <span class="muted">{search ? `${hits.size} match${hits.size === 1 ? "" : "es"}` : `${stored?.messages.length ?? 0} stored messages`}</span>
                {search && hits.size > 0 && <button class="link" onClick={() => jumpToSeq([...hits][0])}>first match</button>}
              </div>
              <VirtualList
                testId="stored-view"
                count={rows.length}
                keyOf={rowKey}
                estimate={rowEstimate}
                render={renderRow}
                scrollTo={scrollTo}
              />
            </>
          )}
          {selected && tab === "model" && wire && (
            <>
              <div class="pane-head">
                <select value={callChoice === null ? "next" : String(callChoice)} onChange={(e) => chooseCall((e.target as HTMLSelectElement).value)} data-testid="call-select">
                  <option value="next">Next request</option>
                  {modelCalls.map((c) => (
                    <option value={String(c.id)}>
                      #{c.id} {c.purpose} · {c.startedAt}
                    </option>
                  ))}
                </select>
                <span class="muted" data-testid="model-summary">
                  {wire.label}: {wire.messages.length} messages · {formatChars(wire.chars)} + tool catalog {formatChars(wire.catalog)} ≈{" "}
                  {formatTokens(Math.ceil((wire.chars + wire.catalog) / 4))}
                </span>
              </div>
              <VirtualList testId="model-view" count={wire.messages.length} keyOf={wireKey} estimate={wireEstimate} render={(i) => <WireCard item={wire.messages[i]} index={i} />} />
            </>
          )}
          {selected && tab === "timeline" && <Timeline compactions={stored?.compactions ?? []} onJump={jumpToSeq} />}
          {selected && tab === "diffs" && <TrimmedOutputs trimmed={trimmed} diff={diff} onOpen={openDiff} />}
        </section>

        {streaming && (
          <div class="streaming" data-testid="streaming">
            <span class="role">assistant</span> {streaming}
          </div>
        )}
        <footer class="composer">
          <textarea
            ref={composer}
            placeholder={selected ? "Message the agent, or /compact <focus> (Enter to send, Shift+Enter for a new line, Ctrl+L to focus)" : "Start a new session (runs in the current directory)"}
            value={draft}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                send();
              }
            }}
            data-testid="composer"
          />
          {running ? (
            <button class="danger" onClick={stop} data-testid="stop" title="Ctrl+.">
              Stop
            </button>
          ) : (
            <button onClick={send} disabled={!draft.trim()} data-testid="send">
              Send
            </button>
          )}
        </footer>
      </main>

      <aside class="inspector">
        <h3>Context</h3>
        <Meter meter={meter} />
        <h3>Latest checkpoint</h3>
        {latestCheckpoint ? <CheckpointCard compaction={latestCheckpoint} fallback="" /> : <div class="muted">none applied</div>}
        <h3>Model calls</h3>
        <table class="calls" data-testid="model-calls">
          <thead>
            <tr>
              <th>#</th>
              <th>purpose</th>
              <th>prompt</th>
              <th>cached</th>
              <th>TTFT</th>
            </tr>
          </thead>
          <tbody>
            {modelCalls.map((c) => (
              <tr onClick={() => { setTab("model"); chooseCall(String(c.id)); }} class={c.error ? "failed" : ""} title={c.error ?? ""}>
                <td>{c.id}</td>
                <td>{c.purpose}</td>
                <td>{c.promptTokens ?? "–"}</td>
                <td>{c.cachedTokens ?? "–"}</td>
                <td>{c.ttftMs !== null ? `${c.ttftMs} ms` : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {current && <div class="muted small">workspace {current.workspace}</div>}
      </aside>

      {dialog?.kind === "compact" && <CompactDialog onClose={() => setDialog(null)} onCompact={doCompact} />}
      {dialog?.kind === "proposal" && selected && (
        <ProposalDialog
          proposal={dialog.proposal}
          initial={dialog.text}
          partial={dialog.partial}
          onClose={() => setDialog(null)}
          onApply={async (text) => {
            try {
              await api.applyProposal(selected, dialog.proposal, text);
              setNotice(`Proposal #${dialog.proposal} applied`);
              setDialog(null);
            } catch (e) {
              fail(e);
            }
            refresh();
          }}
          onDiscard={async () => {
            await api.discardProposal(selected, dialog.proposal).catch(fail);
            setDialog(null);
            refresh();
          }}
        />
      )}
      {dialog?.kind === "settings" && <SettingsDialog onClose={() => setDialog(null)} onSaved={() => { setNotice("Settings saved"); refresh(); }} />}
      {permission && (
        <Dialog title="Allow this tool call?" onClose={() => { api.answerPermission(permission.id, false); setPermission(null); }} testId="permission-dialog">
          <p>
            <strong>{permission.call.name}</strong> needs approval ({permission.permission} is "ask").
          </p>
          <pre class="content">{permission.call.arguments}</pre>
          <div class="row">
            <button onClick={() => { api.answerPermission(permission.id, true); setPermission(null); }} data-testid="allow">Allow</button>
            <button class="secondary" onClick={() => { api.answerPermission(permission.id, false); setPermission(null); }} data-testid="deny">Deny</button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
