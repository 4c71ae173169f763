// The window's dialogs: compact with a focus, a proposed checkpoint to edit, import (settings: settings.tsx).
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { errorMessage } from "./events";
import type { ExportFormat, ExportResult, ExportReview, Fidelity, ImportOutcome, Missing, ProxyEvent, ProxyStatus, Strategy, StrategyPreview } from "./bindings";
import { addToCheckpoint, STRATEGY_TEXT, strategyEffect, strategyWork } from "./logic";
import { Dialog, FidelityReport } from "./components";

/**
 * Compact… (Ctrl+K): every strategy with what it would make of the next request — tokens before
 * and after, what it summarizes or masks — computed without a model before anything is applied;
 * then a focus for the summarizer and, for the summary, a proposal to edit first.
 */
export function CompactDialog(props: {
  session: string;
  onClose: () => void;
  onCompact: (focus: string | null, preview: boolean, strategy?: Strategy) => void;
}) {
  const [focus, setFocus] = useState("");
  const [preview, setPreview] = useState(false);
  const [previews, setPreviews] = useState<StrategyPreview[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Strategy | null>(null);
  useEffect(() => {
    api
      .compactionStrategies({ session: props.session })
      .then((list) => {
        setPreviews(list);
        const pick = list.find((p) => p.isDefault && !p.unavailable) ?? list.find((p) => !p.unavailable);
        setChosen(pick?.strategy ?? null);
      })
      .catch((e) => setError(errorMessage(e)));
  }, [props.session]);
  const selected = previews?.find((p) => p.strategy === chosen) ?? null;
  // Until the previews arrive nothing is chosen: compacting then uses compaction.strategy.
  const summarizes = selected === null || selected.checkpointMaxTokens !== null;
  const canPreview = chosen === null || chosen === "native";
  const go = () =>
    !selected?.unavailable && props.onCompact(summarizes ? focus.trim() || null : null, canPreview && preview, chosen ?? undefined);
  const widest = Math.max(1, ...(previews ?? []).map((p) => p.beforeTokens));
  return (
    <Dialog title="Compact this session" onClose={props.onClose} testId="compact-dialog">
      <p class="muted">What each strategy would make of the next request; nothing is applied until you choose. The originals stay stored, and Undo reverts any of them.</p>
      {error && <div class="error">{error}</div>}
      {!previews && !error && <p class="muted">Measuring the request…</p>}
      <div class="strategies" role="radiogroup" aria-label="Strategy">
        {previews?.map((p) => {
          const text = STRATEGY_TEXT[p.strategy];
          const after = (100 * p.afterTokens) / widest;
          // The checkpoint drawn at the size of the session's last one (its budget is only a bound).
          const checkpoint = (100 * (p.checkpointLastTokens ?? 0)) / widest;
          return (
            <label class={`strategy${p.unavailable ? " unavailable" : ""}${chosen === p.strategy ? " chosen" : ""}`} key={p.strategy} data-testid={`strategy-${p.strategy}`}>
              <input type="radio" name="strategy" checked={chosen === p.strategy} disabled={!!p.unavailable} onChange={() => setChosen(p.strategy)} />
              <span class="strategy-text">
                <strong>{text.name}</strong>
                {p.isDefault && <span class="badge">compaction.strategy</span>} <span class="muted">— {text.what}</span>
                <span class="strategy-effect" data-testid="strategy-effect">{strategyEffect(p)}</span>
                {!p.unavailable && <span class="muted strategy-work">{strategyWork(p)}</span>}
                {!p.unavailable && (
                  <span class="meter-bar strategy-bar" title={strategyEffect(p)}>
                    <span class="meter-used" style={{ width: `${Math.min(100, after)}%` }} />
                    <span class="meter-catalog strategy-checkpoint" style={{ left: `${Math.min(100, after)}%`, width: `${Math.min(100 - Math.min(100, after), checkpoint)}%` }} />
                  </span>
                )}
              </span>
            </label>
          );
        })}
      </div>
      <label>
        Focus for the summarizer (optional)
        <input autoFocus value={focus} disabled={!summarizes} onInput={(e) => setFocus((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && go()} data-testid="focus-input" />
      </label>
      <label class="check">
        <input type="checkbox" checked={canPreview && preview} disabled={!canPreview} onChange={(e) => setPreview((e.target as HTMLInputElement).checked)} data-testid="preview-check" /> Preview and edit the checkpoint before applying
      </label>
      <div class="row">
        <button onClick={go} disabled={!!selected?.unavailable} data-testid="compact-confirm">
          {canPreview && preview ? "Preview" : selected ? `Compact: ${STRATEGY_TEXT[selected.strategy].name}` : "Compact now"}
        </button>
        <button class="secondary" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

export function ProposalDialog(props: {
  proposal: number;
  initial: string;
  partial: boolean;
  fidelity: Fidelity | null;
  onClose: () => void;
  onApply: (text: string) => void;
  onDiscard: () => void;
}) {
  const [text, setText] = useState(props.initial);
  // Missing items not yet added; each "add to checkpoint" puts one in its section of the editor.
  const [fidelity, setFidelity] = useState(props.fidelity);
  const add = (item: Missing) => {
    setText((current) => addToCheckpoint(current, item.section, item.value));
    setFidelity((f) => (f ? { ...f, missing: f.missing.filter((m) => m !== item) } : f));
  };
  return (
    <Dialog title={`Proposed checkpoint #${props.proposal}`} onClose={props.onClose} testId="proposal-dialog">
      {props.partial && <div class="warning">Partial: the summary was cut by compaction.maxOutputTokens.</div>}
      <p class="muted">Edit the sections (JSON) or the text, then apply. Nothing is hidden until you apply.</p>
      {fidelity && fidelity.missing.length > 0 && <p class="muted">The checkpoint leaves out what the history it replaces holds:</p>}
      <FidelityReport fidelity={fidelity} action={{ label: "add to checkpoint", run: add }} />
      <textarea class="editor" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} data-testid="proposal-editor" />
      <div class="row">
        <button onClick={() => props.onApply(text)} data-testid="proposal-apply">Apply</button>
        <button class="secondary" onClick={props.onDiscard} data-testid="proposal-discard">Discard</button>
      </div>
    </Dialog>
  );
}

/**
 * Import… (Ctrl+I): a file or folder of Codex, Claude Code or OpenCode sessions, imported as the
 * CLI's `alisio import` does; the result lists each session, skipped records and errors.
 */
export function ImportDialog(props: { initial?: string; onClose: () => void; onImported: (first: string | null) => void }) {
  const [path, setPath] = useState(props.initial ?? "");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ImportOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    if (!path.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result = await api.importPaths({ paths: [path.trim()] });
      setOutcome(result);
      props.onImported(result.report.imported[0]?.id ?? null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Import sessions of other agents" onClose={props.onClose} testId="import-dialog">
      <p class="muted">A Codex CLI rollout, a Claude Code session (.jsonl), an OpenCode database, or a folder holding them. Sources are only read; importing again appends what is new.</p>
      <label>
        File or folder
        <input autoFocus value={path} placeholder="~/.codex/sessions" onInput={(e) => setPath((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && run()} data-testid="import-path" />
      </label>
      <div class="row">
        <button onClick={run} disabled={busy || !path.trim()} data-testid="import-confirm">
          {busy ? "Importing…" : "Import"}
        </button>
        <button class="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
      {error && <div class="error" role="alert">{error}</div>}
      {outcome && (
        <div class="import-result" data-testid="import-result">
          {outcome.report.imported.map((s) => (
            <div key={s.id} data-testid="import-row">
              <span class="badge source">{s.source}</span> <strong>{s.title}</strong>{" "}
              <span class="muted">
                {s.messages} messages · {s.toolCalls} tool calls · {s.compactions} compaction{s.compactions === 1 ? "" : "s"}
              </span>
              {s.skipped.map((k) => (
                <div class="warning small" data-testid="import-skipped">
                  {typeof k.line === "number" ? `line ${k.line}` : `row ${k.line}`}: {k.reason}
                </div>
              ))}
            </div>
          ))}
          {outcome.report.errors.map((f) => (
            <div class="error small">
              {f.path}: {f.error}
            </div>
          ))}
          {outcome.unknown.map((p) => (
            <div class="warning small">
              {p} holds no session Alisio can read; it reads {outcome.formats}.
            </div>
          ))}
        </div>
      )}
    </Dialog>
  );
}

/**
 * Export… (Ctrl+E): the session as Markdown, one self-contained HTML page, or JSON written to a
 * file, or sent as OTLP traces. Before anything is written the review lists what will be redacted
 * (kind, where, a masked preview): a finding can be un-marked as a false positive, and more can be
 * added (a literal string, or a regex written /…/); the export then writes exactly that.
 */
export function ExportDialog(props: { session: string; title: string; onClose: () => void }) {
  const [format, setFormat] = useState<ExportFormat>("markdown");
  const [redact, setRedact] = useState(true);
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ExportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [extra, setExtra] = useState<string[]>([]);
  const [adding, setAdding] = useState("");
  const [review, setReview] = useState<ExportReview | null>(null);
  const [unmarked, setUnmarked] = useState<Set<number>>(new Set());
  useEffect(() => {
    if (!redact) return;
    let current = true;
    api
      .exportReview({ session: props.session, format, path: null, redact: true, extra })
      .then((r) => {
        if (!current) return;
        setReview(r);
        setUnmarked(new Set());
      })
      .catch((e) => current && setError(errorMessage(e)));
    return () => {
      current = false;
    };
  }, [props.session, extra, redact]);
  const add = () => {
    const pattern = adding.trim();
    if (!pattern || extra.includes(pattern)) return;
    setExtra([...extra, pattern]);
    setAdding("");
  };
  const toggle = (n: number) =>
    setUnmarked((u) => {
      const next = new Set(u);
      if (next.has(n)) next.delete(n);
      else next.add(n);
      return next;
    });
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(
        await api.exportSession({
          session: props.session,
          format,
          path: format === "otlp" ? null : path.trim() || null,
          redact,
          extra: redact ? extra : [],
          unmark: redact ? [...unmarked] : [],
        }),
      );
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const extension = format === "json" || format === "atif" ? "json" : format === "html" ? "html" : "md";
  return (
    <Dialog title={`Export “${props.title}”`} onClose={props.onClose} testId="export-dialog">
      <label>
        Format
        <select value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value as ExportFormat)} data-testid="export-format">
          <option value="markdown">Markdown — a readable transcript</option>
          <option value="html">HTML — one self-contained page, readable offline</option>
          <option value="json">JSON — stored view, compactions and ledger (v1)</option>
          <option value="atif">ATIF — an agent trajectory (trajectory.json) other tools read</option>
          <option value="otlp">OTLP traces — to telemetry.otlp.endpoint</option>
        </select>
      </label>
      {format !== "otlp" && (
        <label>
          Save as
          <input value={path} onInput={(e) => setPath((e.target as HTMLInputElement).value)} placeholder={`exports/${props.session}.${extension} in Alisio's data folder`} data-testid="export-path" />
        </label>
      )}
      <label class="check">
        <input type="checkbox" checked={redact} onChange={(e) => setRedact((e.target as HTMLInputElement).checked)} data-testid="export-redact" />
        Redact secrets (API keys, tokens, private keys, passwords) as [REDACTED:kind]
      </label>
      {redact && (
        <div class="review" data-testid="export-review">
          <div class="row">
            <input
              value={adding}
              onInput={(e) => setAdding((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => e.key === "Enter" && add()}
              placeholder="also redact: a word, or /a regex/"
              data-testid="export-extra"
            />
            <button class="secondary" onClick={add} disabled={!adding.trim()} data-testid="export-extra-add">
              Add
            </button>
          </div>
          {extra.map((p) => (
            <span class="chip" data-testid="export-extra-chip">
              {p}{" "}
              <button class="link" aria-label={`Stop redacting ${p}`} onClick={() => setExtra(extra.filter((x) => x !== p))}>
                ×
              </button>
            </span>
          ))}
          <div class="small muted" data-testid="export-review-summary">
            {review === null ? "Looking for secrets…" : `${review.summary}${unmarked.size ? `; ${unmarked.size} un-marked` : ""}`}
          </div>
          {review && review.findings.length > 0 && (
            <ul class="findings">
              {review.findings.slice(0, 500).map((f, n) => (
                <li data-testid="export-finding">
                  <label class="check">
                    <input type="checkbox" checked={!unmarked.has(n)} onChange={() => toggle(n)} />
                    <code>{f.kind}</code> in {f.where}: <code>{f.preview}</code>
                  </label>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && <div class="error" data-testid="export-error">{error}</div>}
      {result && <div class="notice" data-testid="export-result">{result.summary}</div>}
      <div class="row">
        <button onClick={run} disabled={busy} data-testid="export-run">
          {busy ? "Exporting…" : "Export"}
        </button>
      </div>
    </Dialog>
  );
}

/**
 * Proxy… (Ctrl+Shift+P): `alisio proxy` inside the window. Point an agent's base URL at the
 * address shown and every request it sends is recorded byte for byte, joined to the session it
 * belongs to; the panel lists the calls captured and the last errors while it runs (it keeps
 * running with the panel closed, until stopped or the window closes).
 */
export function ProxyDialog(props: { onClose: () => void; onOpen: (session: string) => void; onStatus: (status: ProxyStatus) => void }) {
  const [status, setStatus] = useState<ProxyStatus | null>(null);
  const [upstream, setUpstream] = useState("");
  const [listen, setListen] = useState("127.0.0.1:8788");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const show = (s: ProxyStatus) => {
    setStatus(s);
    props.onStatus(s);
    if (s.upstream) setUpstream((u) => u || (s.upstream as string));
  };
  useEffect(() => {
    const poll = () => api.proxyStatus({}).then(show, (e) => setError(errorMessage(e)));
    poll();
    const timer = setInterval(poll, 1000);
    return () => clearInterval(timer);
  }, []);
  const act = async (run: () => Promise<ProxyStatus>) => {
    setBusy(true);
    setError(null);
    try {
      show(await run());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const start = () => upstream.trim() && act(() => api.proxyStart({ upstream: upstream.trim(), listen: listen.trim() || null }));
  const copy = async () => {
    if (!status?.address) return;
    try {
      await navigator.clipboard.writeText(status.address);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch (e) {
      setError(`Could not copy (${errorMessage(e)}); select the address and copy it by hand.`);
    }
  };
  const running = status?.running ?? false;
  const captured = (status?.recent ?? []).filter((e): e is Extract<ProxyEvent, { type: "captured" }> => e.type === "captured");
  return (
    <Dialog title="Recording proxy" onClose={props.onClose} testId="proxy-dialog">
      <p class="muted">
        Requests sent to the proxy go on to the model server unchanged, answers come back as they stream; each call is recorded exactly as sent (credentials taken
        out) and joined to the agent's session.
      </p>
      <label>
        Model server (upstream)
        <input autoFocus value={upstream} placeholder="https://api.openai.com" disabled={running} onInput={(e) => setUpstream((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && !running && start()} data-testid="proxy-upstream" />
      </label>
      <label>
        Listen on
        <input value={listen} disabled={running} onInput={(e) => setListen((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && !running && start()} data-testid="proxy-listen" />
      </label>
      <div class="row">
        {running ? (
          <button onClick={() => act(() => api.proxyStop({}))} disabled={busy} data-testid="proxy-stop">Stop</button>
        ) : (
          <button onClick={start} disabled={busy || !upstream.trim()} data-testid="proxy-start">{busy ? "Starting…" : "Start"}</button>
        )}
        <button class="secondary" onClick={props.onClose}>Close</button>
      </div>
      {error && <div class="error" role="alert">{error}</div>}
      {running && status?.address && (
        <div class="proxy-address" data-testid="proxy-running">
          Point the agent's base URL at <input readOnly value={status.address} onFocus={(e) => (e.target as HTMLInputElement).select()} data-testid="proxy-address" />{" "}
          <button class="secondary" onClick={copy} data-testid="proxy-copy">{copied ? "Copied" : "Copy"}</button>
          <div class="muted small">forwarding to {status.upstream}</div>
        </div>
      )}
      {status && (
        <div class="proxy-calls">
          <div data-testid="proxy-captured"><strong>{status.captured}</strong> call{status.captured === 1 ? "" : "s"} captured</div>
          {captured.length > 0 && (
            <table class="calls">
              <thead><tr><th>session</th><th>#</th><th>path</th><th>status</th><th>prompt</th><th>cached</th></tr></thead>
              <tbody>
                {[...captured].reverse().map((c) => (
                  <tr onClick={() => props.onOpen(c.session)} title="Open the session" data-testid="proxy-call">
                    <td><code>{c.session.slice(0, 8)}</code></td>
                    <td>{c.n}</td>
                    <td>{c.path}</td>
                    <td class={c.status >= 400 ? "failed" : ""}>{c.status}</td>
                    <td>{c.promptTokens ?? "–"}</td>
                    <td>{c.cachedTokens ?? "–"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {status.errors.length > 0 && (
            <div data-testid="proxy-errors">
              <div class="muted small">Last errors</div>
              {status.errors.map((e) => <div class="error small">{e}</div>)}
            </div>
          )}
        </div>
      )}
    </Dialog>
  );
}
