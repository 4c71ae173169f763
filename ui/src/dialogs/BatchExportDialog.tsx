// Export… from the Library view: many sessions at once, each through the same export as the
// one-session dialog (format, redaction, where), one after another with the progress shown, and a
// summary at the end naming those that failed.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { ExportFormat } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";
import { exportPath, exportProgress, exportSummary } from "../logic";
import { FormatSelect } from "./ExportDialog";

type Outcome = { done: number; failed: Array<{ title: string; error: string }>; last: string | null; finished: boolean };

export function BatchExportDialog(props: { sessions: Array<{ id: string; title: string }>; onClose: () => void }) {
  const total = props.sessions.length;
  const [format, setFormat] = useState<ExportFormat>("markdown");
  const [redact, setRedact] = useState(true);
  const [folder, setFolder] = useState("");
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // Stop asked: the session being exported finishes, the rest are left.
  const stop = useRef(false);
  const first = useRef<HTMLSelectElement>(null);
  // Focus inside, so Escape reaches the dialog.
  useEffect(() => first.current?.focus(), []);
  // Closed while running: the export under way finishes, no other starts.
  const close = () => {
    stop.current = true;
    props.onClose();
  };
  const run = async () => {
    stop.current = false;
    setRunning(true);
    const state: Outcome = { done: 0, failed: [], last: null, finished: false };
    setOutcome({ ...state });
    for (const s of props.sessions) {
      if (stop.current) break;
      try {
        const result = await api.exportSession({ session: s.id, format, path: exportPath(folder, s.id, format), redact, extra: [], unmark: [] });
        state.done += 1;
        state.last = result.summary;
      } catch (e) {
        state.failed.push({ title: s.title, error: errorMessage(e) });
      }
      setOutcome({ ...state, failed: [...state.failed] });
    }
    setOutcome({ ...state, failed: [...state.failed], finished: true });
    setRunning(false);
  };
  const handled = outcome ? outcome.done + outcome.failed.length : 0;
  return (
    <Dialog title={`Export ${total} session${total === 1 ? "" : "s"}`} onClose={close} testId="batch-export-dialog">
      <FormatSelect value={format} onChange={setFormat} disabled={running} selectRef={first} testId="batch-export-format" />
      {format !== "otlp" && (
        <label>
          Folder
          <input value={folder} disabled={running} onInput={(e) => setFolder((e.target as HTMLInputElement).value)} placeholder="exports/ in Alisio's data folder" data-testid="batch-export-folder" />
          <span class="muted small">Each session is written as its id with the format's extension.</span>
        </label>
      )}
      <label class="check">
        <input type="checkbox" checked={redact} disabled={running} onChange={(e) => setRedact((e.target as HTMLInputElement).checked)} data-testid="batch-export-redact" />
        Redact secrets (API keys, tokens, private keys, passwords) as [REDACTED:kind]
      </label>
      {running && (
        <div class="progress" role="status" data-testid="batch-export-progress">
          {exportProgress(handled, total)}
        </div>
      )}
      {outcome?.finished && <ExportOutcome outcome={outcome} total={total} />}
      <div class="row">
        {running ? (
          <button class="secondary" onClick={() => (stop.current = true)} data-testid="batch-export-stop">
            Stop
          </button>
        ) : (
          <button onClick={run} data-testid="batch-export-run">
            {outcome?.finished ? "Export again" : "Export"}
          </button>
        )}
      </div>
    </Dialog>
  );
}

/** The summary line, the last export's own line, and each failure with its reason. */
function ExportOutcome(props: { outcome: Outcome; total: number }) {
  const { outcome } = props;
  return (
    <div class={outcome.failed.length ? "error" : "notice"} data-testid="batch-export-result">
      <div>{exportSummary(outcome.done, outcome.failed.length, props.total)}</div>
      {outcome.last && outcome.done === 1 && <div class="small">{outcome.last}</div>}
      {outcome.failed.map((f) => (
        <div class="small">
          {f.title}: {f.error}
        </div>
      ))}
    </div>
  );
}
