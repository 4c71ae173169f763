// The audit timeline and the trimmed-output panes.
import type { CompactionView, StoredMessage, TrimmedDiff } from "./bindings";
import { DiffTable } from "./components";
import { formatChars, formatTokens } from "./logic";

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
            {formatChars(c.beforeChars)} → {formatChars(c.afterChars)} (≈ {formatTokens(Math.ceil(c.beforeChars / 4))} →{" "}
            {formatTokens(Math.ceil(c.afterChars / 4))}) · {c.summarizedMessages} messages
            {c.summarizedSeqs.length > 0 && ` (#${c.summarizedSeqs[0]}–#${c.summarizedSeqs[c.summarizedSeqs.length - 1]})`}
          </div>
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

/** Messages cut by the context budget, and the diff of the one picked. */
export function TrimmedOutputs(props: { trimmed: StoredMessage[]; diff: TrimmedDiff | null; onOpen: (seq: number) => void }) {
  return (
    <div class="diffs">
      <ul class="trimmed-list" data-testid="trimmed-list">
        {props.trimmed.length === 0 && <li class="muted">No message was trimmed by the context budget.</li>}
        {props.trimmed.map((m) => (
          <li>
            <button class={`link ${props.diff?.seq === m.seq ? "active" : ""}`} onClick={() => props.onOpen(m.seq)} data-testid="trimmed-item">
              #{m.seq} {m.role} {m.toolCallId ?? ""} · now {formatChars(m.chars)}
              {m.compacted ? " (no longer sent)" : ""}
            </button>
          </li>
        ))}
      </ul>
      {props.diff ? <DiffTable diff={props.diff} /> : props.trimmed.length > 0 && <div class="muted">Pick a trimmed output to compare.</div>}
    </div>
  
  );
}
