// One stored message: its kind (from the engine, never guessed from text), flags, content or
// checkpoint card, and its tool calls paired with their results. Served (read-only) a message has
// no pin or fork (both write), and an uncertain result cannot be acknowledged.
import type { CompactionView, JournalEntry, StoredMessage } from "../bindings";
import { CheckpointCard, Collapsible, Flags } from "../components";
import { formatChars, sourceNotes } from "../logic";
import { servedReadOnly } from "../transport";

export type RowActions = { openDiff: (seq: number) => void; acknowledge: () => void; pin: (seq: number) => void; fork: (seq: number) => void };

const KIND_LABEL: Record<StoredMessage["kind"], string | null> = {
  system: null,
  user: null,
  assistant: null,
  toolResult: null,
  checkpoint: "checkpoint",
  injectedContext: "injected context",
  pinned: "pinned (carried verbatim after the checkpoint)",
};

export function MessageRow(props: {
  m: StoredMessage;
  results: Map<string, StoredMessage>;
  depth: number;
  hit: boolean;
  compactions: Map<number, CompactionView>;
  pending: JournalEntry[];
  actions: RowActions;
}) {
  const { m, actions } = props;
  const checkpoint = m.kind === "checkpoint" && m.createdBy !== null ? props.compactions.get(m.createdBy) : undefined;
  return (
    <div class={`msg role-${m.role} kind-${m.kind} ${m.compacted ? "is-compacted" : ""} ${props.hit ? "hit" : ""}`} style={{ marginLeft: `${props.depth * 16}px` }} data-testid="message" data-seq={m.seq}>
      <div class="msg-head">
        <span class="role">{KIND_LABEL[m.kind] ?? m.role}</span>
        <span class="muted">#{m.seq}</span>
        <Flags m={m} />
        {sourceNotes(m).map((note) => (
          <span class="flag source" data-testid="source-note">
            {note}
          </span>
        ))}
        {!m.summary && !servedReadOnly && (
          <button class="link pin" data-testid="pin-message" title="Pin: every request after a checkpoint carries this message verbatim" onClick={() => actions.pin(m.seq)}>
            pin
          </button>
        )}
        {!m.compacted && !servedReadOnly && (
          <button class="link fork" data-testid="fork-message" title="Fork from here: a new session with what the model saw after this message (this one is not changed)" onClick={() => actions.fork(m.seq)}>
            fork
          </button>
        )}
        {m.truncated && (
          <button class="link" data-testid="open-diff" onClick={() => actions.openDiff(m.seq)}>
            trimmed to {formatChars(m.chars)} — compare with the original
          </button>
        )}
      </div>
      {m.kind === "checkpoint" ? <CheckpointCard compaction={checkpoint} fallback={m.content} /> : m.content && <Collapsible text={m.content} />}
      {m.toolCalls.map((call) => {
        const result = props.results.get(call.id);
        const uncertain = props.pending.find((p) => p.callId === call.id);
        return (
          <div class={`tool ${uncertain ? "uncertain" : ""}`} data-testid="tool-card">
            <div class="tool-head">
              → <strong>{call.name}</strong> <span class="muted">{call.id}</span>
            </div>
            <pre class="content args">{call.arguments}</pre>
            {uncertain ? (
              <div class="uncertain-box">
                This call was running when the process stopped: its result is unknown and it will not be re-run.
                <button class="danger" data-testid="acknowledge-card" onClick={actions.acknowledge} disabled={!!servedReadOnly} title={servedReadOnly ?? undefined}>
                  Acknowledge (record "result unknown")
                </button>
              </div>
            ) : result ? (
              <div class="tool-result">
                <span class="muted">
                  {sourceNotes(result).map((note) => `${note} · `)}
                  result #{result.seq} · {formatChars(result.chars)}
                  {result.truncated ? " · trimmed" : ""}
                </span>
                <Collapsible text={result.content} />
                {result.truncated && (
                  <button class="link" onClick={() => actions.openDiff(result.seq)}>
                    compare with the original
                  </button>
                )}
              </div>
            ) : (
              <div class="muted">no result yet</div>
            )}
          </div>
        );
      })}
    </div>
  );
}
