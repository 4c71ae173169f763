// The inspector (right): the context meter, the latest checkpoint, and every model call. Served
// (read-only) pins are shown, not removed.
import type { CompactionView, ContextMeter, ModelCallRecord, Pin, SessionSummary } from "../bindings";
import { CheckpointCard, Meter } from "../components";
import { sessionFigures } from "../logic";
import { servedReadOnly } from "../transport";

export function Inspector(props: {
  meter: ContextMeter | null;
  latestCheckpoint: CompactionView | undefined;
  calls: ModelCallRecord[];
  session: SessionSummary | null;
  pins: Pin[];
  onRemovePin: (id: number) => void;
  onOpenCall: (id: number) => void;
}) {
  const figures = props.session ? sessionFigures(props.session) : [];
  return (
    <aside class="inspector">
      <h3>Context</h3>
      <Meter meter={props.meter} />
      {figures.length > 0 && (
        <>
          <h3>Session</h3>
          <ul class="figures" data-testid="inspector-figures">{figures.map((f) => <li>{f}</li>)}</ul>
        </>
      )}
      <h3>Pinned</h3>
      {props.pins.length === 0 ? (
        <div class="muted small">Nothing pinned (a message's "pin" button; rules files from compaction.pinFiles are pinned at each compaction).</div>
      ) : (
        <ul class="pins" data-testid="pins">
          {props.pins.map((p) => (
            <li data-testid="pin" key={p.id}>
              <span class="muted">{p.seq !== null ? `#${p.seq}` : "text"}</span> <span class="pin-text" title={p.text}>{p.text.split("\n")[0]}</span>
              {!servedReadOnly && (
                <button class="link" data-testid="remove-pin" title={`Remove pin ${p.id}`} onClick={() => props.onRemovePin(p.id)}>
                  remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <h3>Latest checkpoint</h3>
      {props.latestCheckpoint ? <CheckpointCard compaction={props.latestCheckpoint} fallback="" /> : <div class="muted">none applied</div>}
      <h3>Model calls</h3>
      <table class="calls" data-testid="model-calls">
        <thead>
          <tr>
            <th>#</th>
            <th>purpose</th>
            <th>prompt</th>
            <th>cached</th>
            <th>TTFT</th>
          </tr>
        </thead>
        <tbody>
          {props.calls.map((c) => (
            <tr onClick={() => props.onOpenCall(c.id)} class={c.error ? "failed" : ""} title={c.error ?? ""}>
              <td>{c.id}</td>
              <td>{c.purpose}</td>
              <td>{c.promptTokens ?? "–"}</td>
              <td>{c.cachedTokens ?? "–"}</td>
              <td>{c.ttftMs !== null ? `${c.ttftMs} ms` : "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.session && <div class="muted small">workspace {props.session.workspace}</div>}
    </aside>
  );
}
