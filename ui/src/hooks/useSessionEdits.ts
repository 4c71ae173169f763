// Renaming and removing sessions (the Library view, the sidebar's F2), through `feedback.act` so the
// error shows and the session list is fetched again afterwards.
import type { MutableRef } from "preact/hooks";
import { api } from "../api";
import type { Removed } from "../bindings";
import { removedNotice } from "../logic";
import type { Feedback } from "./useAction";

export type SessionEdits = {
  /** A blank title gives the session back its agent's own. */
  rename: (session: string, title: string) => Promise<unknown>;
  /** Alisio's own sessions only: the engine refuses an imported one (the error shows). */
  remove: (sessions: string[]) => Promise<unknown>;
};

export function useSessionEdits(deps: {
  selectedRef: MutableRef<string | null>;
  setSelected: (id: string | null) => void;
  loadSessions: () => Promise<void>;
  feedback: Feedback;
}): SessionEdits {
  const { selectedRef, setSelected, loadSessions, feedback } = deps;
  const rename = (session: string, title: string) => {
    const given = title.trim();
    return feedback
      .act(() => api.sessionsRename({ session, title: given || undefined }), {
        notice: (s) => (given ? `Renamed to “${s.title}”` : `Back to the agent's title “${s.title}”`),
      })
      .then(loadSessions);
  };
  const remove = (sessions: string[]) => {
    const removed: Removed[] = [];
    return feedback
      .act(
        async () => {
          for (const session of sessions) {
            removed.push(await api.sessionsRemove({ session }));
            // The session shown is gone: show none, and let the refresh pick the first left.
            if (selectedRef.current === session) {
              selectedRef.current = null;
              setSelected(null);
            }
          }
          return removed;
        },
        { busy: sessions.length > 1 ? `Removing ${sessions.length} sessions…` : "Removing…", notice: removedNotice },
      )
      .then(() => {
        // Some may have gone before one failed: say so beside the error.
        if (removed.length && removed.length < sessions.length) feedback.setNotice(removedNotice(removed));
        return loadSessions();
      });
  };
  return { rename, remove };
}
