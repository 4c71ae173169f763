// The composer: Enter sends, Shift+Enter breaks the line, `/compact <focus>` compacts; Stop
// (Ctrl+.) cancels a running turn. Streamed text shows above it.
import type { Ref } from "preact";
import { useState } from "preact/hooks";

export function Composer(props: {
  inputRef: Ref<HTMLTextAreaElement>;
  hasSession: boolean;
  /** Why this session cannot take a turn (an imported session), or null. */
  readOnly: string | null;
  running: boolean;
  streaming: string;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  const [draft, setDraft] = useState("");
  const send = () => {
    const text = draft.trim();
    if (!text) return;
    setDraft("");
    props.onSend(text);
  };
  return (
    <>
      {props.streaming && (
        <div class="streaming" data-testid="streaming">
          <span class="role">assistant</span> {props.streaming}
        </div>
      )}
      <footer class="composer">
        <textarea
          ref={props.inputRef}
          disabled={props.readOnly !== null}
          title={props.readOnly ?? undefined}
          placeholder={props.readOnly ?? (props.hasSession ? "Message the agent, or /compact <focus> (Enter to send, Shift+Enter for a new line, Ctrl+L to focus)" : "Start a new session (runs in the current directory)")}
          value={draft}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              send();
            }
          }}
          data-testid="composer"
        />
        {props.running ? (
          <button class="danger" onClick={props.onStop} data-testid="stop" title="Ctrl+.">
            Stop
          </button>
        ) : (
          <button onClick={send} disabled={!draft.trim() || props.readOnly !== null} data-testid="send">
            Send
          </button>
        )}
      </footer>
    </>
  );
}
