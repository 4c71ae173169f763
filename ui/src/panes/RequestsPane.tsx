// Requests (Ctrl+5): every model call; the picked one against the previous (or any other): the
// shared prefix, the first divergence, what changed in messages, tools and params, whether the
// prompt cache could be reused and what the server reported — and the answer as received.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { CacheBreak, CallCache, CallComposition, CallDetail, CallSummary, CompactionView, ContextMeter, ModelCallRecord, RequestDiff } from "../bindings";
import { agentName, breakLabel, chartBars, formatUsd } from "../logic";
import { CompositionChart } from "./CompositionChart";
import { ContextChart } from "./ContextChart";
import { RequestDetail, SourceBadge } from "./RequestDetail";

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
      <RequestList calls={calls} n={n} causeOf={causeOf} breaks={breaks} agent={agent} onSelect={select} />
      <RequestDetail n={n} against={against} onAgainst={setAgainst} calls={calls} detail={detail} diff={diff} causeOf={causeOf} agent={agent} source={props.source} />
    </div>
    </div>
  );
}

/** Every call: its tokens, cost and whether the prompt cache was kept or broken. */
function RequestList(props: {
  calls: CallSummary[];
  n: number | null;
  causeOf: Map<number, CacheBreak>;
  breaks: Map<number, boolean>;
  agent: string;
  onSelect: (n: number) => void;
}) {
  const { calls, n, causeOf, breaks, agent } = props;
  return (
    <table class="calls request-list" data-testid="request-list">
      <thead>
        <tr><th>#</th><th>purpose</th><th>body</th><th>prompt</th><th>cached</th><th>out</th><th>cost</th><th>cache</th></tr>
      </thead>
      <tbody>
        {calls.map((c) => (
          <tr class={`${c.n === n ? "active" : ""} ${c.error ? "failed" : ""}`} onClick={() => props.onSelect(c.n)} data-testid="request-row" title={c.error ?? c.startedAt}>
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
  );
}
