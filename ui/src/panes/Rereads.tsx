// Under a compaction on the timeline: the files and commands fetched again after it hid their
// earlier fetch — what each cost to fetch again and whether the checkpoint, the artifact trail or
// nothing held it (`alisio calls rereads`).
import type { Reread } from "../bindings";
import { formatTokens, heldLabel, rereadCost, rereadKind, rereadSummary, rereadTotal } from "../logic";

export function Rereads(props: { compaction: number; rereads: Reread[]; onJump: (seq: number) => void }) {
  if (props.rereads.length === 0) return null;
  return (
    <div class="rereads" data-testid="rereads" data-compaction={props.compaction}>
      <div class="small">{rereadSummary(rereadTotal(props.rereads))}</div>
      {props.rereads.map((r) => (
        <RereadRow key={`${r.seqAfter}-${r.target}`} reread={r} onJump={props.onJump} />
      ))}
    </div>
  );
}

function RereadRow(props: { reread: Reread; onJump: (seq: number) => void }) {
  const r = props.reread;
  const kind = rereadKind(r.kind);
  const held = heldLabel(r.heldBy);
  return (
    <div class="reread small" data-testid="reread">
      <span class="muted" title={kind.label}>
        {kind.icon} {kind.label}
      </span>
      <code class="reread-target" title={r.target}>
        {r.target}
      </code>
      <span title={`Fetched at #${r.seqBefore}, hidden by the compaction, fetched again at #${r.seqAfter}`}>
        <span class="muted">#{r.seqBefore}</span> →{" "}
        <button class="link" onClick={() => props.onJump(r.seqAfter)} data-testid="reread-jump">
          #{r.seqAfter}
        </button>
      </span>
      <span class="reread-num">{formatTokens(r.tokens)}</span>
      <span class={`reread-num ${r.costUsd === null ? "muted" : ""}`}>{rereadCost(r.costUsd)}</span>
      <span class={held.lost ? "warn" : "muted"} title={held.title} data-testid="reread-held">
        {held.label}
      </span>
    </div>
  );
}
