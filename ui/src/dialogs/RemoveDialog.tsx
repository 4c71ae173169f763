// Remove…: asks before sessions of Alisio's own are deleted from its store, naming them.
import { useEffect, useRef } from "preact/hooks";
import { Dialog } from "../components";
import { excerpt } from "../logic";

/** Titles listed by name before "and N more". */
const NAMED = 8;

export function RemoveDialog(props: { sessions: Array<{ id: string; title: string }>; onRemove: () => void; onClose: () => void }) {
  const { sessions } = props;
  const one = sessions.length === 1;
  const cancel = useRef<HTMLButtonElement>(null);
  // Focus inside (on the harmless choice), so Escape and Enter reach the dialog.
  useEffect(() => cancel.current?.focus(), []);
  return (
    <Dialog title={one ? `Remove “${excerpt(sessions[0].title, 60)}”?` : `Remove ${sessions.length} sessions?`} onClose={props.onClose} testId="remove-dialog">
      {!one && (
        <ul class="remove-list" data-testid="remove-titles">
          {sessions.slice(0, NAMED).map((s) => (
            <li key={s.id}>{s.title || s.id}</li>
          ))}
          {sessions.length > NAMED && <li class="muted">and {sessions.length - NAMED} more</li>}
        </ul>
      )}
      <p class="small">
        {one ? "Its" : "Their"} messages, model calls, compactions and pins are deleted from Alisio's store. This cannot be undone.
      </p>
      <div class="row">
        <button class="danger" onClick={props.onRemove} data-testid="remove-confirm">
          Remove
        </button>
        <button class="secondary" ref={cancel} onClick={props.onClose} data-testid="remove-cancel">
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
