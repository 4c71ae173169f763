// The window's dialogs: compact with a focus, a proposed checkpoint to edit, the settings.
import { useEffect, useState } from "preact/hooks";
import { api, errorMessage } from "./api";
import { Dialog } from "./components";

export function CompactDialog(props: { onClose: () => void; onCompact: (focus: string | null, preview: boolean) => void }) {
  const [focus, setFocus] = useState("");
  const [preview, setPreview] = useState(false);
  return (
    <Dialog title="Compact this session" onClose={props.onClose} testId="compact-dialog">
      <p class="muted">A checkpoint replaces older messages; the recent turns stay intact. The originals stay stored.</p>
      <label>
        Focus for the summarizer (optional)
        <input autoFocus value={focus} onInput={(e) => setFocus((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && props.onCompact(focus.trim() || null, preview)} data-testid="focus-input" />
      </label>
      <label class="check">
        <input type="checkbox" checked={preview} onChange={(e) => setPreview((e.target as HTMLInputElement).checked)} data-testid="preview-check" /> Preview and edit before applying
      </label>
      <div class="row">
        <button onClick={() => props.onCompact(focus.trim() || null, preview)} data-testid="compact-confirm">
          {preview ? "Preview" : "Compact now"}
        </button>
        <button class="secondary" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

export function ProposalDialog(props: { proposal: number; initial: string; partial: boolean; onClose: () => void; onApply: (text: string) => void; onDiscard: () => void }) {
  const [text, setText] = useState(props.initial);
  return (
    <Dialog title={`Proposed checkpoint #${props.proposal}`} onClose={props.onClose} testId="proposal-dialog">
      {props.partial && <div class="warning">Partial: the summary was cut by compaction.maxOutputTokens.</div>}
      <p class="muted">Edit the sections (JSON) or the text, then apply. Nothing is hidden until you apply.</p>
      <textarea class="editor" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} data-testid="proposal-editor" />
      <div class="row">
        <button onClick={() => props.onApply(text)} data-testid="proposal-apply">Apply</button>
        <button class="secondary" onClick={props.onDiscard} data-testid="proposal-discard">Discard</button>
      </div>
    </Dialog>
  );
}

export function SettingsDialog(props: { onClose: () => void; onSaved: () => void }) {
  const [text, setText] = useState("");
  const [path, setPath] = useState("");
  const [effective, setEffective] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    api.getConfig().then((doc) => {
      setText(JSON.stringify(doc.raw, null, 2));
      setEffective(JSON.stringify(doc.effective, null, 2));
      setPath(doc.path);
    }).catch((e) => setMessage(errorMessage(e)));
  }, []);
  const parsed = () => {
    try {
      return JSON.parse(text || "{}");
    } catch (e) {
      setMessage(`Not valid JSON: ${errorMessage(e)}`);
      return null;
    }
  };
  return (
    <Dialog title="Settings" onClose={props.onClose} testId="settings-dialog">
      <p class="muted">
        {path} — provider, compaction, cacheCompact, limits and permissions. Values are checked like the CLI does.
      </p>
      <textarea class="editor" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} data-testid="settings-editor" />
      {message && <div class="notice" data-testid="settings-message">{message}</div>}
      <div class="row">
        <button onClick={async () => { const raw = parsed(); if (raw === null) return; try { const doc = await api.saveConfig(raw); setEffective(JSON.stringify(doc.effective, null, 2)); setMessage("Saved."); props.onSaved(); } catch (e) { setMessage(errorMessage(e)); } }} data-testid="settings-save">Save</button>
        <button class="secondary" onClick={async () => { const raw = parsed(); if (raw === null) return; try { const r = await api.testConnection(raw); setMessage(`Connected to ${r.baseUrl}: ${r.models.join(", ") || "no models listed"}; context window ${r.contextWindow ?? "unknown"}`); } catch (e) { setMessage(errorMessage(e)); } }} data-testid="settings-test">Test connection</button>
      </div>
      <details>
        <summary>Effective configuration (defaults filled in)</summary>
        <pre class="content">{effective}</pre>
      </details>
    </Dialog>
  );
}
