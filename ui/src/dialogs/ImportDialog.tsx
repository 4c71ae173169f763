// Import…: other agents' sessions from a file or folder, with what was imported, skipped or not
// readable.
import { useState } from "preact/hooks";
import { api } from "../api";
import type { ImportOutcome } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";

/**
 * Import… (Ctrl+I): a file or folder of Codex, Claude Code or OpenCode sessions, imported as the
 * CLI's `alisio import` does; the result lists each session, skipped records and errors.
 */
export function ImportDialog(props: { initial?: string; onClose: () => void; onImported: (first: string | null) => void }) {
  const [path, setPath] = useState(props.initial ?? "");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ImportOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    if (!path.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result = await api.importPaths({ paths: [path.trim()] });
      setOutcome(result);
      props.onImported(result.report.imported[0]?.id ?? null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Import sessions of other agents" onClose={props.onClose} testId="import-dialog">
      <p class="muted">A Codex CLI rollout, a Claude Code session (.jsonl), an OpenCode database, or a folder holding them. Sources are only read; importing again appends what is new.</p>
      <label>
        File or folder
        <input autoFocus value={path} placeholder="~/.codex/sessions" onInput={(e) => setPath((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && run()} data-testid="import-path" />
      </label>
      <div class="row">
        <button onClick={run} disabled={busy || !path.trim()} data-testid="import-confirm">
          {busy ? "Importing…" : "Import"}
        </button>
        <button class="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
      {error && <div class="error" role="alert">{error}</div>}
      {outcome && (
        <div class="import-result" data-testid="import-result">
          {outcome.report.imported.map((s) => (
            <div key={s.id} data-testid="import-row">
              <span class="badge source">{s.source}</span> <strong>{s.title}</strong>{" "}
              <span class="muted">
                {s.messages} messages · {s.toolCalls} tool calls · {s.compactions} compaction{s.compactions === 1 ? "" : "s"}
              </span>
              {s.skipped.map((k) => (
                <div class="warning small" data-testid="import-skipped">
                  {typeof k.line === "number" ? `line ${k.line}` : `row ${k.line}`}: {k.reason}
                </div>
              ))}
            </div>
          ))}
          {outcome.report.errors.map((f) => (
            <div class="error small">
              {f.path}: {f.error}
            </div>
          ))}
          {outcome.unknown.map((p) => (
            <div class="warning small">
              {p} holds no session Alisio can read; it reads {outcome.formats}.
            </div>
          ))}
        </div>
      )}
    </Dialog>
  );
}
