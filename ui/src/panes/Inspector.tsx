// The inspector (right): the context meter, the latest checkpoint, and every model call.
import type { CompactionView, ContextMeter, ModelCallRecord } from "../bindings";
import { CheckpointCard, Meter } from "../components";

export function Inspector(props: {
  meter: ContextMeter | null;
  latestCheckpoint: CompactionView | undefined;
  calls: ModelCallRecord[];
  workspace: string | null;
  onOpenCall: (id: number) => void;
}) {
  return (
    <aside class="inspector">
      <h3>Context</h3>
      <Meter meter={props.meter} />
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
      {props.workspace && <div class="muted small">workspace {props.workspace}</div>}
    </aside>
  );
}
