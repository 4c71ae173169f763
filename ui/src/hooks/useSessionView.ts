// Loading one session: the stored view from its end, older pages after the first paint, the model
// view (next request or a past one from the ledger) and the context meter.
import { useCallback, useRef, useState } from "preact/hooks";
import type { MutableRef } from "preact/hooks";
import { api } from "../api";
import type { ContextMeter, StoredView, WireItem } from "../bindings";
import { appendAfter } from "../logic";

/** Messages shown at once when a session opens; older ones follow in pages. */
const FIRST_PAGE = 1500;
const OLDER_PAGE = 10_000;

export type Wire = { messages: WireItem[]; label: string; chars: number; catalog: number; reconstructed?: boolean };

export function useSessionView(selectedRef: MutableRef<string | null>, fail: (e: unknown) => void) {
  const [stored, setStored] = useState<StoredView | null>(null);
  const storedRef = useRef<StoredView | null>(null);
  storedRef.current = stored;
  const [wire, setWire] = useState<Wire | null>(null);
  const [callChoice, setCallChoice] = useState<number | null>(null);
  const [meter, setMeter] = useState<ContextMeter | null>(null);
  const [loading, setLoading] = useState<string | null>(null);
  const paging = useRef(0);
  const current = (id: string) => selectedRef.current === id;

  const loadOlder = async (id: string, view: StoredView) => {
    const generation = ++paging.current;
    let messages = view.messages;
    let more = view.hasOlder;
    while (more && messages.length > 0 && paging.current === generation && current(id)) {
      setLoading(`Loading earlier messages… ${messages.length.toLocaleString("en-US")} shown`);
      const older = await api.olderMessages(id, messages[0].anchor, messages[0].seq, OLDER_PAGE).catch((e) => {
        fail(e);
        return [];
      });
      if (paging.current !== generation || !current(id)) return;
      more = older.length === OLDER_PAGE;
      messages = [...older, ...messages];
      setStored((shown) => (shown ? { ...shown, messages, hasOlder: more } : shown));
    }
    if (paging.current === generation) setLoading(null);
  };

  const showNextRequest = async (id: string) => {
    const next = await api.modelView(id).catch(fail);
    if (!next || !current(id)) return;
    setWire({ messages: next.messages, label: next.reconstructed ? "Next request (reconstructed)" : "Next request", chars: next.chars, catalog: next.toolCatalogChars, reconstructed: next.reconstructed });
    setCallChoice(null);
  };

  /** Loads a session; a long one is shown from its end at once and completed page by page. */
  const load = useCallback(async (id: string) => {
    try {
      const view = await api.storedView(id, FIRST_PAGE);
      if (!current(id)) return;
      setStored(view);
      showNextRequest(id);
      api.contextMeter(id).then((m) => current(id) && setMeter(m)).catch(fail);
      if (view.hasOlder) loadOlder(id, view);
    } catch (e) {
      fail(e);
    }
  }, []);

  /** Shows the next request (`"next"`) or the request of a past model call, rebuilt from the ledger. */
  const chooseCall = async (id: string, value: string) => {
    if (value === "next") return showNextRequest(id);
    const call = Number(value);
    const past = await api.pastRequest(id, call).catch(fail);
    if (!past || !current(id)) return;
    const catalog = past.call.toolCatalogChars;
    setWire({ messages: past.messages, label: `Model call #${call} (${past.call.purpose})`, chars: past.call.requestChars - catalog, catalog });
    setCallChoice(call);
  };

  /**
   * Adds what a running turn appended after the last message shown, without fetching the history
   * again (the journal, compactions and ledger come whole: they are small).
   */
  const appendNewer = async (id: string) => {
    const shown = storedRef.current;
    const last = shown?.messages[shown.messages.length - 1];
    if (!shown || !last || shown.session.id !== id) return load(id);
    try {
      const fresh = await api.storedViewSince(id, last.anchor, last.seq);
      if (!current(id)) return;
      setStored((s) => (s && s.session.id === id ? { ...fresh, messages: appendAfter(s.messages, fresh.messages), hasOlder: s.hasOlder } : s));
      showNextRequest(id);
      api.contextMeter(id).then((m) => current(id) && setMeter(m)).catch(fail);
    } catch (e) {
      fail(e);
    }
  };

  const clear = () => {
    setStored(null);
    setWire(null);
    setMeter(null);
  };

  return { stored, setStored, wire, callChoice, meter, loading, load, appendNewer, chooseCall, clear };
}
