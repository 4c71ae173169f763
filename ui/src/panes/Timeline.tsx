// The compaction audit timeline (Ctrl+3): reason, focus, time, before → after, the span it
// summarized (in transcript order, linked to the transcript), partial, plugin reports, reverted.
import type { CompactionView } from "../bindings";
import { FidelityReport } from "../components";
import { formatChars, formatSpan, formatTokens, tokensOf } from "../logic";

/** Every compaction and reduction, newest first, each linked to its span in the transcript. */
export function Timeline(props: { compactions: CompactionView[]; onJump: (seq: number) => void }) {
  return (
    <div class="timeline" data-testid="timeline">
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
          {c.focus && <div>Focus: {c.focus}</div>}
          <div>
            {formatChars(c.beforeChars)} → {formatChars(c.afterChars)} (≈ {formatTokens(tokensOf(c.beforeChars))} →{" "}
            {formatTokens(tokensOf(c.afterChars))}) · {c.summarizedMessages} messages
            {c.summarizedSeqs.length > 0 && <span data-testid="timeline-span"> ({formatSpan(c.summarizedSeqs)})</span>}
          </div>
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
        </div>
      ))}
    </div>
  );
}
