// Above the session's views: what it cost so far, the cache hit rate of its last calls, and a
// warning when its newest call broke the cache (the cause and what it cost; a click opens it).
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { CacheBreak, CallSummary } from "../bindings";
import { agentName, breakLabel, formatUsd, recentHitRate, sumUsd } from "../logic";

/** Calls the live hit rate is taken over. */
const RECENT = 5;

export function CacheHeader(props: { session: string; version: number; agent?: string; onOpenRequests: () => void }) {
  const [calls, setCalls] = useState<CallSummary[]>([]);
  const [breaks, setBreaks] = useState<CacheBreak[]>([]);
  useEffect(() => {
    let live = true;
    api.callsList({ session: props.session }).then((c) => live && setCalls(c), () => {});
    api.callsBreaks({ session: props.session }).then((b) => live && setBreaks(b), () => {});
    return () => {
      live = false;
    };
  }, [props.session, props.version]);
  if (calls.length === 0) return null;
  const priced = calls.filter((c) => c.costUsd !== null);
  const cost = sumUsd(calls.map((c) => c.costUsd));
  const unpriced = calls.length - priced.length;
  const rate = recentHitRate(calls, RECENT);
  const last = breaks.at(-1);
  const fresh = last && last.n === calls.length ? last : null;
  return (
    <div class="cache-header" data-testid="cache-header">
      <span data-testid="session-cost" title="The calls' cost at the prices in force on their dates">
        {formatUsd(cost)}
        {unpriced > 0 && cost !== null ? ` + ${unpriced} unpriced` : ""}
      </span>
      <span class="muted"> · cache hit over the last {Math.min(RECENT, calls.length)} calls: </span>
      <strong data-testid="live-hit-rate">{rate === null ? "–" : `${Math.round(rate * 100)} %`}</strong>
      {breaks.length > 0 && <span class="muted"> · {breaks.length} cache break{breaks.length === 1 ? "" : "s"}</span>}
      {fresh && (
        <button class="link warning" onClick={props.onOpenRequests} data-testid="break-warning">
          ⚠ call {fresh.n} broke the cache: {breakLabel(fresh, agentName(props.agent))}
        </button>
      )}
    </div>
  );
}
