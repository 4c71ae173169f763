// Trimmed outputs (Ctrl+4): each message cut by the context budget beside its stored original.
import type { StoredMessage, TrimmedDiff } from "../bindings";
import { DiffTable } from "../components";
import { formatChars } from "../logic";

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
