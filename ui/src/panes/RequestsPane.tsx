// Requests (Ctrl+5): every model call; the picked one against the previous (or any other): the
// shared prefix, the first divergence, what changed in messages, tools and params, whether the
// prompt cache could be reused and what the server reported — and the answer as received.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { CacheBreak, CallCache, CallComposition, CallDetail, CallSummary, CompactionView, ContextMeter, JsonValue, ModelCallRecord, RequestDiff } from "../bindings";
import { LineTable } from "../components";
import { agentName, breakLabel, cacheVerdict, chartBars, formatChars, formatUsd, missingLabel, prefixParts, sourceBadge, tokensOf } from "../logic";
import { CompositionChart } from "./CompositionChart";
import { ContextChart } from "./ContextChart";

export function RequestsPane(props: {
  session: string;
  /** The agent the session came from (`codex`, `claude-code`…), absent for Alisio's own. */
  source?: string;
  version: number;
  meter: ContextMeter | null;
  compactions: CompactionView[];
  modelCalls: ModelCallRecord[];
  fail: (e: unknown) => void;
  onNotice: (text: string) => void;
}) {
  const [calls, setCalls] = useState<CallSummary[]>([]);
  const [cache, setCache] = useState<CallCache[]>([]);
  const [n, setN] = useState<number | null>(null);
  const [against, setAgainst] = useState<number | null>(null);
  const [diff, setDiff] = useState<RequestDiff | null>(null);
  const [detail, setDetail] = useState<CallDetail | null>(null);
  const [chart, setChart] = useState<"tokens" | "composition">("tokens");
  const [compositions, setCompositions] = useState<CallComposition[] | null>(null);
  const [causes, setCauses] = useState<CacheBreak[]>([]);

  useEffect(() => {
    api.callsList({ session: props.session }).then((list) => {
      setCalls(list);
      setN((current) => (current !== null && current <= list.length ? current : list.length || null));
    }, props.fail);
    api.callsCacheReport({ session: props.session }).then(setCache, props.fail);
    api.callsBreaks({ session: props.session }).then(setCauses, props.fail);
    setCompositions(null);
  }, [props.session, props.version]);

  useEffect(() => {
    if (chart === "composition" && compositions === null) api.callsCompositions({ session: props.session }).then(setCompositions, props.fail);
  }, [chart, compositions, props.session]);
  const select = (next: number) => { setN(next); setAgainst(null); };
  const breaks = new Map(cache.map((c) => [c.n, c.cacheBreak]));
  const causeOf = new Map(causes.map((b) => [b.n, b]));
  const agent = agentName(props.source);

  useEffect(() => {
    setDiff(null);
    setDetail(null);
    if (n === null) return;
    api.callsShow({ session: props.session, n }).then(setDetail, props.fail);
    const base = against ?? n - 1;
    if (base >= 1 && base !== n) api.callsDiff({ session: props.session, n, against: base }).then(setDiff, props.fail);
  }, [props.session, n, against, props.version]);

  if (calls.length === 0) return <div class="empty">No model calls yet.</div>;
  return (
    <div class="requests-pane">
    <div class="chart-switch" role="tablist">
      <button role="tab" class={chart === "tokens" ? "tab active" : "tab"} aria-selected={chart === "tokens"} onClick={() => setChart("tokens")} data-testid="chart-tokens">Tokens</button>
      <button role="tab" class={chart === "composition" ? "tab active" : "tab"} aria-selected={chart === "composition"} onClick={() => setChart("composition")} data-testid="chart-composition">Composition</button>
    </div>
    {chart === "tokens" ? (
      <ContextChart
        session={props.session}
        bars={chartBars(calls, cache)}
        causes={causeOf}
        agent={agent}
        windowTokens={props.meter?.windowTokens ?? null}
        threshold={props.meter?.threshold ?? 0.85}
        compactions={props.compactions}
        modelCalls={props.modelCalls}
        selected={n}
        onSelect={select}
        onExported={(path) => props.onNotice(`Chart saved to ${path}`)}
        fail={props.fail}
      />
    ) : compositions ? (
      <CompositionChart rows={compositions} compactions={props.compactions} modelCalls={props.modelCalls} selected={n} onSelect={select} />
    ) : (
      <div class="muted">Measuring each request…</div>
    )}
    <div class="requests" data-testid="requests">
      <table class="calls request-list" data-testid="request-list">
        <thead>
          <tr><th>#</th><th>purpose</th><th>body</th><th>prompt</th><th>cached</th><th>out</th><th>cost</th><th>cache</th></tr>
        </thead>
        <tbody>
          {calls.map((c) => (
            <tr class={`${c.n === n ? "active" : ""} ${c.error ? "failed" : ""}`} onClick={() => select(c.n)} data-testid="request-row" title={c.error ?? c.startedAt}>
              <td>{c.n}</td>
              <td>{c.purpose}</td>
              <td><SourceBadge source={c.requestSource} /></td>
              <td>{c.promptTokens ?? "–"}</td>
              <td>{c.cachedTokens ?? "–"}</td>
              <td>{c.completionTokens ?? "–"}</td>
              <td class="small" title={c.model}>{c.costUsd === null ? "–" : formatUsd(c.costUsd)}</td>
              <td>
                {causeOf.get(c.n) ? (
                  <span class="flag cache-break" data-testid="row-cache-break" title={breakLabel(causeOf.get(c.n) as CacheBreak, agent)}>{causeOf.get(c.n)?.cause}</span>
                ) : breaks.get(c.n) ? (
                  <span class="flag cache-break" data-testid="row-cache-break">break</span>
                ) : c.n > 1 ? (
                  <span class="flag cache-reused">kept</span>
                ) : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="request-detail">
        {n !== null && (
          <div class="pane-head">
            <strong data-testid="request-title">Call #{n}</strong>
            <label>
              against{" "}
              <select value={String(against ?? n - 1)} onChange={(e) => setAgainst(Number((e.target as HTMLSelectElement).value))} data-testid="against-select">
                {calls.filter((c) => c.n !== n).map((c) => <option value={String(c.n)}>#{c.n} {c.purpose}</option>)}
              </select>
            </label>
          </div>
        )}
        {detail && <Provenance detail={detail} source={props.source} />}
        {n !== null && causeOf.get(n) && (
          <div class="warning small" data-testid="break-cause">
            Cache {causeOf.get(n)?.cause} against call #{causeOf.get(n)?.against}: {breakLabel(causeOf.get(n) as CacheBreak, agent)}
          </div>
        )}
        {diff && <DiffSummary diff={diff} />}
        {detail && <RawResponse detail={detail} />}
      </div>
    </div>
    </div>
  );
}

function SourceBadge(props: { source: CallSummary["requestSource"] }) {
  const badge = sourceBadge(props.source);
  return <span class={`flag ${badge.exact ? "exact" : "reconstructed"}`} title={badge.title} data-testid="source-badge">{badge.label}</span>;
}

/**
 * Where the shown body comes from: exact (sent by Alisio, the agent's own log, the proxy) or
 * reconstructed — then what the agent did not record, with estimates, and what a rebuilt body
 * leaves out.
 */
function Provenance(props: { detail: CallDetail; source?: string }) {
  const d = props.detail;
  const badge = sourceBadge(d.requestSource);
  return (
    <div class="provenance" data-testid="provenance">
      <SourceBadge source={d.requestSource} /> <span class="muted small">{badge.title}.</span>
      {d.missing.length > 0 && (
        <ul class="missing" data-testid="missing-parts">
          {d.missing.map((m) => <li>{missingLabel(m, props.source)}</li>)}
        </ul>
      )}
      {d.omitted.length > 0 && <div class="muted small" data-testid="omitted">Left out of the shown body: {d.omitted.join("; ")}</div>}
    </div>
  );
}

function DiffSummary(props: { diff: RequestDiff }) {
  const d = props.diff.diff;
  const parts = prefixParts(d);
  const verdict = cacheVerdict(d);
  const pct = (x: number) => `${(100 * x) / parts.total}%`;
  const div = d.firstDivergence;
  return (
    <div class="request-diff" data-testid="request-diff">
      <div class={`flag cache-${verdict.status}`} data-testid="cache-badge">{verdict.label}</div>
      <div class="prefix-bar" title="shared / new / dropped">
        <span class="shared" style={{ width: pct(parts.shared) }} />
        <span class="added" style={{ width: pct(parts.added) }} />
        <span class="dropped" style={{ width: pct(parts.dropped) }} />
      </div>
      <div class="muted small" data-testid="prefix-summary">
        shared {formatChars(parts.shared)} (≈ {tokensOf(parts.shared)} tokens) · new {formatChars(parts.added)} · dropped {formatChars(parts.dropped)}
      </div>
      {div.part !== "none" && (
        <div class="divergence" data-testid="divergence">
          First divergence in <strong>{div.part}{div.index !== null ? ` ${div.index}` : ""}</strong> at <code>{div.path || "/"}</code>
          <div class="old">− {div.before}</div>
          <div class="new">+ {div.after}</div>
        </div>
      )}
      <div class="muted small">{d.sameMessages} messages unchanged</div>
      {d.messageChanges.map((c) => {
        const lines = props.diff.lines.find((l) => l.index === c.index);
        return (
          <div class={`message-change ${c.change}`} data-testid="message-change">
            <div><strong>{c.change}</strong> message {c.index} ({c.role})</div>
            {lines ? <LineTable lines={lines.lines} before={`#${d.against}`} after={`#${d.n}`} /> : <pre class="content">{c.after ?? c.before}</pre>}
          </div>
        );
      })}
      {(d.toolChanges.added.length > 0 || d.toolChanges.removed.length > 0 || d.toolChanges.changed.length > 0 || d.toolChanges.reordered) && (
        <div data-testid="tool-changes">
          Tools: {d.toolChanges.added.map((t) => `+${t} `)}{d.toolChanges.removed.map((t) => `−${t} `)}{d.toolChanges.changed.map((t) => `~${t} `)}{d.toolChanges.reordered ? "(reordered)" : ""}
        </div>
      )}
      {d.paramChanges.length > 0 && (
        <div data-testid="param-changes">
          Params: {d.paramChanges.map((p) => <code>{p.key}: {JSON.stringify(p.before)} → {JSON.stringify(p.after)} </code>)}
        </div>
      )}
    </div>
  );
}

function RawResponse(props: { detail: CallDetail }) {
  const r = props.detail.response as { [key: string]: JsonValue } | null;
  if (!r) return <div class="muted" data-testid="raw-response">No answer recorded for this call.</div>;
  const calls = (r.toolCalls as Array<{ id: string; name: string; arguments: string }>) ?? [];
  return (
    <div class="raw-response" data-testid="raw-response">
      <h4>Answer as received</h4>
      <div class="muted small">
        finish {String(r.finishReason ?? "–")} · usage {JSON.stringify(r.usage)} · TTFT {String(r.ttftMs ?? "–")} ms · {String(r.durationMs ?? "–")} ms
      </div>
      {typeof r.text === "string" && r.text && <pre class="content">{r.text}</pre>}
      {calls.map((c) => (
        <div class="tool"><strong>{c.name}</strong> <span class="muted">{c.id}</span><pre class="content args">{c.arguments}</pre></div>
      ))}
    </div>
  );
}
