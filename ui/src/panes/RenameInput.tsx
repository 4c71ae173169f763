// The inline rename field, in the Library view's table and the sidebar's list: Enter saves, Escape
// (or leaving the field) cancels, and an empty title gives the session back its agent's own.
import { useEffect, useRef, useState } from "preact/hooks";

export function RenameInput(props: { title: string; agentTitle?: string; onSave: (title: string) => void; onCancel: () => void }) {
  const [value, setValue] = useState(props.title);
  const input = useRef<HTMLInputElement>(null);
  // Enter unmounts the field, which blurs it: the blur must not cancel what Enter saved.
  const done = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (save: boolean) => {
    if (done.current) return;
    done.current = true;
    if (save) props.onSave(value);
    else props.onCancel();
  };
  return (
    <input
      ref={input}
      class="rename-input"
      value={value}
      onInput={(e) => setValue((e.target as HTMLInputElement).value)}
      onKeyDown={(e) => {
        // The list's keys (Space, arrows, Enter, Escape) are the field's while it is open.
        e.stopPropagation();
        if (e.key === "Enter") finish(true);
        if (e.key === "Escape") finish(false);
      }}
      onBlur={() => finish(false)}
      onClick={(e) => e.stopPropagation()}
      onDblClick={(e) => e.stopPropagation()}
      placeholder={props.agentTitle ? `Empty: back to “${props.agentTitle}”` : "Empty: back to the agent's title"}
      title="Enter saves, Escape cancels; an empty title restores the agent's"
      aria-label="New title"
      data-testid="rename-input"
    />
  );
}
