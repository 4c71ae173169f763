// A proposed checkpoint to edit before it is applied, with what it leaves out of the history it
// replaces (each item can be added to its section).
import { useState } from "preact/hooks";
import type { Fidelity, Missing } from "../bindings";
import { Dialog, FidelityReport } from "../components";
import { addToCheckpoint } from "../logic";

export function ProposalDialog(props: {
  proposal: number;
  initial: string;
  partial: boolean;
  fidelity: Fidelity | null;
  onClose: () => void;
  onApply: (text: string) => void;
  onDiscard: () => void;
}) {
  const [text, setText] = useState(props.initial);
  // Missing items not yet added; each "add to checkpoint" puts one in its section of the editor.
  const [fidelity, setFidelity] = useState(props.fidelity);
  const add = (item: Missing) => {
    setText((current) => addToCheckpoint(current, item.section, item.value));
    setFidelity((f) => (f ? { ...f, missing: f.missing.filter((m) => m !== item) } : f));
  };
  return (
    <Dialog title={`Proposed checkpoint #${props.proposal}`} onClose={props.onClose} testId="proposal-dialog">
      {props.partial && <div class="warning">Partial: the summary was cut by compaction.maxOutputTokens.</div>}
      <p class="muted">Edit the sections (JSON) or the text, then apply. Nothing is hidden until you apply.</p>
      {fidelity && fidelity.missing.length > 0 && <p class="muted">The checkpoint leaves out what the history it replaces holds:</p>}
      <FidelityReport fidelity={fidelity} action={{ label: "add to checkpoint", run: add }} />
      <textarea class="editor" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} data-testid="proposal-editor" />
      <div class="row">
        <button onClick={() => props.onApply(text)} data-testid="proposal-apply">Apply</button>
        <button class="secondary" onClick={props.onDiscard} data-testid="proposal-discard">Discard</button>
      </div>
    </Dialog>
  );
}
