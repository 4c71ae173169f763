// The session list and the selected session.
import { useCallback, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { SessionSummary } from "../bindings";

export function useSessions(fail: (e: unknown) => void) {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  // Async work checks this to drop answers for a session that is no longer shown.
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selected;

  const loadSessions = useCallback(async () => {
    try {
      const list = await api.sessionsList({});
      setSessions(list);
      if (!selectedRef.current && list.length) setSelected(list[0].id);
    } catch (e) {
      fail(e);
    }
  }, []);

  return { sessions, selected, setSelected, selectedRef, loadSessions };
}
