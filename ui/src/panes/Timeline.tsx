// The compaction audit timeline (Ctrl+3): reason, focus, time, before → after, the span it
// summarized (in transcript order, linked to the transcript), partial, plugin reports, reverted,
// and what was fetched again after each (Rereads.tsx); Compare strategies… runs the bake-off (not
// served: it forks the session, a write).
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { CompactionCost, CompactionView, Reread } from "../bindings";
import { FidelityReport } from "../components";
import { BenchDialog } from "../dialogs";
import { formatChars, formatSpan, formatTokens, formatUsd, rereadsByCompaction, tokensOf, triggerText } from "../logic";
import { servedReadOnly } from "../transport";
import { Rereads } from "./Rereads";

/** Every compaction and reduction, newest first, each linked to its span in the transcript. */
export function Timeline(props: {
  session: string;
  /** An imported session: the agent's own summary is an arm of the bake-off. */
  imported: boolean;
  compactions: CompactionView[];
  /** Grows as the session goes on (its model calls): what was fetched again is read anew. */
  version: number;
  onJump: (seq: number) => void;
}) {
  const [costs, setCosts] = useState<Map<number, CompactionCost>>(new Map());
  // A compaction added, applied or reverted.
  const changed = props.compactions.map((c) => `${c.id}:${c.status}`).join();
  useEffect(() => {
    api.callsCompactionCosts({ session: props.session }).then((list) => setCosts(new Map(list.map((c) => [c.compaction, c]))), () => {});
  }, [props.session, changed]);
  const rereads = useRereads(props.session, changed, props.version);
  const [bench, setBench] = useState(false);
  return (
    <div class="timeline" data-testid="timeline">
      <div class="row timeline-actions">
        <button
          class="secondary"
          onClick={() => setBench(true)}
          disabled={!!servedReadOnly}
          title={servedReadOnly ?? "Every strategy on a fork of this session: probes kept, tokens and cost"}
          data-testid="compare-strategies"
        >
          Compare strategies…
        </button>
      </div>
      {bench && <BenchDialog key={props.session} session={props.session} imported={props.imported} onClose={() => setBench(false)} />}
      {props.compactions.length === 0 && <div class="empty">No compactions yet.</div>}
      {[...props.compactions].reverse().map((c) => (
        <div class={`entry status-${c.status}`} data-testid="timeline-entry">
          <div class="entry-head">
            <strong>
              #{c.id} {c.kind === "reduction" ? "reduction" : "compaction"} · {c.reason}
            </strong>
            <span class="muted">{new Date(c.createdAt).toLocaleString()}</span>
            <span class={`flag ${c.status}`}>{c.status}</span>
            {c.partial && <span class="flag uncertain">partial</span>}
          </div>
          {triggerText(c.trigger) && <div data-testid="timeline-trigger">Why: {triggerText(c.trigger)}</div>}
          {c.focus && <div>Focus: {c.focus}</div>}
          <div>
            {formatChars(c.beforeChars)} → {formatChars(c.afterChars)} (≈ {formatTokens(tokensOf(c.beforeChars))} →{" "}
            {formatTokens(tokensOf(c.afterChars))}) · {c.summarizedMessages} messages
            {c.summarizedSeqs.length > 0 && <span data-testid="timeline-span"> ({formatSpan(c.summarizedSeqs)})</span>}
          </div>
          {costs.get(c.id)?.n && (
            <div class="muted small" data-testid="compaction-cost">
              Summary (call #{costs.get(c.id)?.n}): {formatUsd(costs.get(c.id)?.summaryCostUsd)} with {costs.get(c.id)?.cachedTokens.toLocaleString("en-US")} of{" "}
              {costs.get(c.id)?.promptTokens.toLocaleString("en-US")} prompt tokens from the cache; as a rebuilt prompt{" "}
              {formatUsd(costs.get(c.id)?.rebuiltCostUsd)} — saved {formatUsd(costs.get(c.id)?.savedUsd)}
            </div>
          )}
          <FidelityReport fidelity={c.fidelity} onJump={props.onJump} />
          {Array.isArray(c.pluginReports) &&
            (c.pluginReports as Array<Record<string, unknown>>).map((r) => (
              <div class="muted">
                {String(r.plugin)}: {String(r.summary)}
              </div>
            ))}
          {c.summarizedSeqs.length > 0 && (
            <button class="link" onClick={() => props.onJump(c.summarizedSeqs[0])}>
              show the span in the transcript
            </button>
          )}
          <Rereads compaction={c.id} rereads={rereads.get(c.id) ?? []} onJump={props.onJump} />
        </div>
      ))}
    </div>
  );
}

const NONE = new Map<number, Reread[]>();

/** The session's re-reads by compaction, read again when a compaction changes or the session goes on. */
function useRereads(session: string, changed: string, version: number): Map<number, Reread[]> {
  const [rereads, setRereads] = useState<{ session: string; by: Map<number, Reread[]> } | null>(null);
  useEffect(() => {
    let current = true;
    api.callsRereads({ session }).then(
      (r) => current && setRereads({ session, by: rereadsByCompaction(r.rereads) }),
      () => current && setRereads({ session, by: new Map() }),
    );
    return () => {
      current = false;
    };
  }, [session, changed, version]);
  // Another session's, until this one's arrive: none.
  return rereads?.session === session ? rereads.by : NONE;
}
