// The detail of one request in Requests: the call against another, where its body comes from,
// the cache break that hit it, the diff against the other call, and the answer as received.
import type { CacheBreak, CallDetail, CallSummary, JsonValue, RequestDiff } from "../bindings";
import { LineTable } from "../components";
import { breakLabel, cacheVerdict, formatChars, missingLabel, prefixParts, sourceBadge, tokensOf } from "../logic";

/** The right of the Requests pane: call `n` against `against` (the one before, unless picked). */
export function RequestDetail(props: {
  n: number | null;
  against: number | null;
  onAgainst: (against: number) => void;
  calls: CallSummary[];
  detail: CallDetail | null;
  diff: RequestDiff | null;
  causeOf: Map<number, CacheBreak>;
  agent: string;
  source?: string;
}) {
  const { n, against, calls, detail, diff, causeOf, agent } = props;
  return (
    <div class="request-detail">
      {n !== null && (
        <div class="pane-head">
          <strong data-testid="request-title">Call #{n}</strong>
          <label>
            against{" "}
            <select value={String(against ?? n - 1)} onChange={(e) => props.onAgainst(Number((e.target as HTMLSelectElement).value))} data-testid="against-select">
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
  );
}

export function SourceBadge(props: { source: CallSummary["requestSource"] }) {
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
