// The window kept live: engine events folded into the live state (streaming, progress, permission),
// and what each asks of the window applied — select a session, show a notice or an error, refresh
// the list, the session, or only what a turn appended.
import type { MutableRef } from "preact/hooks";
import type { Feedback } from "./useAction";
import { useEngineEvents } from "./useEngineEvents";
import type { useSessionView } from "./useSessionView";

export function useLive(deps: {
  selectedRef: MutableRef<string | null>;
  setSelected: (id: string) => void;
  loadSessions: () => Promise<void>;
  view: ReturnType<typeof useSessionView>;
  feedback: Feedback;
}) {
  const { selectedRef, setSelected, loadSessions, view, feedback } = deps;
  /** The list, then the session shown, fetched again. */
  const refresh = async () => {
    await loadSessions();
    if (selectedRef.current) await view.load(selectedRef.current);
  };

  const { live, update: updateLive } = useEngineEvents(selectedRef, (effect) => {
    if (effect.select) setSelected(effect.select);
    if (effect.notice) feedback.setNotice(effect.notice);
    if (effect.error) feedback.setError(effect.error);
    if (effect.refresh === "full") refresh();
    if (effect.refresh === "sessions") loadSessions();
    if (effect.refresh === "append") {
      loadSessions();
      if (selectedRef.current) view.appendNewer(selectedRef.current);
    }
  });
  return { live, updateLive, refresh };
}
