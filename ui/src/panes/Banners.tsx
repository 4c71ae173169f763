// Status lines above the pane: the uncertain-result banner, progress, errors and notices.
import type { FoundServer, JournalEntry } from "../bindings";
import { servedReadOnly } from "../transport";

/** First start (no config file yet): the model servers found on the usual local ports, one click each. */
export function FoundServersBanner(props: { found: FoundServer[]; onUse: (server: FoundServer) => void; onDismiss: () => void }) {
  if (props.found.length === 0) return null;
  return (
    <div class="banner" data-testid="first-start-servers">
      <div>
        <strong>Model servers on this machine:</strong>{" "}
        {props.found.map((s) => (
          <button class="secondary" onClick={() => props.onUse(s)} data-testid="first-start-use">
            Use {s.name} ({s.baseUrl}, {s.models[0] ?? "default"}
            {s.contextWindow ? `, window ${s.contextWindow.toLocaleString("en-US")}` : ""})
          </button>
        ))}
      </div>
      <button class="link" onClick={props.onDismiss}>
        dismiss
      </button>
    </div>
  );
}

export function UncertainBanner(props: { pending: JournalEntry[]; onAcknowledge: () => void }) {
  const { pending } = props;
  if (pending.length === 0) return null;
  return (
    <div class="banner" data-testid="uncertain-banner">
      <div>
        <strong>Uncertain tool result{pending.length > 1 ? "s" : ""}.</strong> The process stopped while{" "}
        {pending.map((p) => (
          <code>
            {p.name} {p.arguments}
          </code>
        ))}{" "}
        ran. Alisio never re-runs it: inspect its effects, then record the uncertainty as its result.
      </div>
      <button class="danger" onClick={props.onAcknowledge} disabled={!!servedReadOnly} title={servedReadOnly ?? undefined} data-testid="acknowledge-banner">
        Acknowledge
      </button>
    </div>
  );
}

export function StatusLines(props: {
  busy: string | null;
  loading: string | null;
  error: string | null;
  notice: string | null;
  onDismissError: () => void;
  onDismissNotice: () => void;
}) {
  return (
    <>
      {props.busy && <div class="progress" data-testid="progress">{props.busy}</div>}
      {props.loading && <div class="progress" data-testid="loading">{props.loading}</div>}
      {props.error && (
        <div class="error" role="alert" data-testid="error">
          {props.error} <button class="link" onClick={props.onDismissError}>dismiss</button>
        </div>
      )}
      {props.notice && (
        <div class="notice" data-testid="notice">
          {props.notice} <button class="link" onClick={props.onDismissNotice}>dismiss</button>
        </div>
      )}
    </>
  );
}
