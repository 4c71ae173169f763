// Loading one session: the stored view from its end, older pages after the first paint, the model
// view (next request or a past one from the ledger) and the context meter.
import { useCallback, useRef, useState } from "preact/hooks";
import type { MutableRef } from "preact/hooks";
import { api } from "../api";
import type { ContextMeter, StoredView } from "../bindings";
import { appendAfter } from "../logic";
import { useModelView } from "./useModelView";
import { FIRST_PAGE, useStoredPages } from "./useStoredPages";

export function useSessionView(selectedRef: MutableRef<string | null>, fail: (e: unknown) => void) {
  const [stored, setStored] = useState<StoredView | null>(null);
  const storedRef = useRef<StoredView | null>(null);
  storedRef.current = stored;
  const current = (id: string) => selectedRef.current === id;
  const { wire, setWire, callChoice, showNextRequest, wantRows, chooseCall } = useModelView(current, fail);
  const [meter, setMeter] = useState<ContextMeter | null>(null);
  const [loading, setLoading] = useState<string | null>(null);
  const paging = useRef(0);
  const { hasNewer, hasNewerRef, setHasNewer, loadOlder, loadNewer, showAround } = useStoredPages({ storedRef, setStored, paging, current, setLoading, fail });

  /** Loads a session; a long one is shown from its end at once and completed page by page. */
  const load = useCallback(async (id: string) => {
    try {
      paging.current++;
      const view = await api.viewsStored({ session: id, limit: FIRST_PAGE });
      if (!current(id)) return;
      storedRef.current = view;
      setStored(view);
      setHasNewer(false);
      showNextRequest(id);
      api.viewsContextMeter({ session: id }).then((m) => current(id) && setMeter(m)).catch(fail);
    } catch (e) {
      fail(e);
    }
  }, []);

  /**
   * Adds what a running turn appended after the last message shown, without fetching the history
   * again (the journal, compactions and ledger come whole: they are small).
   */
  const appendNewer = async (id: string) => {
    const shown = storedRef.current;
    const last = shown?.messages[shown.messages.length - 1];
    if (!shown || !last || shown.session.id !== id) return load(id);
    try {
      // With the window short of the end, new messages wait for the scroll to reach them; the
      // journal, compactions and ledger still come whole.
      const after = hasNewerRef.current ? Number.MAX_SAFE_INTEGER : null;
      const fresh = await api.viewsSince({ session: id, anchor: after ?? last.anchor, seq: after ?? last.seq });
      if (!current(id)) return;
      setStored((s) => (s && s.session.id === id ? { ...fresh, messages: appendAfter(s.messages, fresh.messages), hasOlder: s.hasOlder } : s));
      showNextRequest(id);
      api.viewsContextMeter({ session: id }).then((m) => current(id) && setMeter(m)).catch(fail);
    } catch (e) {
      fail(e);
    }
  };

  const clear = () => {
    setStored(null);
    setWire(null);
    setMeter(null);
  };

  return { stored, setStored, wire, wantRows, callChoice, meter, loading, hasNewer, load, loadOlder, loadNewer, showAround, appendNewer, chooseCall, clear };
}
