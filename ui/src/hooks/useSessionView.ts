// Loading one session: the stored view from its end, older pages after the first paint, the model
// view (next request or a past one from the ledger) and the context meter.
import { useCallback, useRef, useState } from "preact/hooks";
import type { MutableRef } from "preact/hooks";
import { api } from "../api";
import type { CatalogShare, ContextMeter, MissingPart, RequestSource, StoredMessage, StoredView, WireItem } from "../bindings";
import { appendAfter } from "../logic";

/**
 * Messages shown at once when a session opens (its end); scrolling pages in `PAGE` more at either
 * edge, and the window never holds more than `MAX_WINDOW`: pages at the far edge are dropped and
 * fetched again when scrolled back to, so a session of any length costs the same memory.
 */
const FIRST_PAGE = 1500;
const PAGE = 1000;
const MAX_WINDOW = 4000;

/** Rows of the next request fetched at a time, and how many such pages are kept. */
const ROWS_PAGE = 400;
const MAX_ROW_PAGES = 6;

/**
 * A request shown in the model view: `total` rows (the system prompt, then one per message, each
 * with the wire items it becomes). The next request arrives page by page as rows come into view
 * (`row(i)` is undefined until its page is there); a past request comes whole.
 */
export type Wire = {
  label: string;
  total: number;
  row: (index: number) => WireItem[] | undefined;
  chars: number;
  catalog: number;
  /** The catalog's characters per source (built-in tools, each MCP server), for the next request. */
  catalogShares?: CatalogShare[];
  reconstructed?: boolean;
  /** Parts the agent sent but did not record (the next request of an imported session). */
  missing?: MissingPart[];
  /** How a past call's body is known (exact, or reconstructed from the agent's records). */
  requestSource?: RequestSource;
  /** Changes when rows arrive, so the list renders them. */
  version: number;
};

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

  /** Whether the window stops before the session's end (newer pages were dropped). */
  const [hasNewer, setHasNewer] = useState(false);
  const hasNewerRef = useRef(false);
  hasNewerRef.current = hasNewer;
  const fetching = useRef(false);

  /**
   * Fetches one page at an edge of the window (one fetch at a time; a session switched meanwhile
   * drops the answer) and stores the window `place` makes of it.
   */
  const page = async (id: string, label: string, fetch: (shown: StoredView) => Promise<StoredMessage[]>, place: (shown: StoredView, page: StoredMessage[]) => StoredView) => {
    const shown = storedRef.current;
    if (fetching.current || !shown || shown.messages.length === 0 || shown.session.id !== id) return;
    fetching.current = true;
    const generation = paging.current;
    setLoading(label);
    try {
      const fetched = await fetch(shown);
      if (paging.current !== generation || !current(id)) return;
      const next = place(shown, fetched);
      storedRef.current = next;
      setStored(next);
    } catch (e) {
      fail(e);
    } finally {
      fetching.current = false;
      setLoading(null);
    }
  };

  /** One page of older messages before the first shown; drops the newest beyond the window. */
  const loadOlder = (id: string) => {
    if (!storedRef.current?.hasOlder) return;
    return page(id, "Loading earlier messages…", (shown) => api.viewsOlder({ session: id, anchor: shown.messages[0].anchor, seq: shown.messages[0].seq, limit: PAGE }), (shown, older) => {
      const messages = [...older, ...shown.messages];
      const dropped = Math.max(0, messages.length - MAX_WINDOW);
      if (dropped > 0) setHasNewer(true);
      return { ...shown, messages: dropped > 0 ? messages.slice(0, MAX_WINDOW) : messages, hasOlder: older.length === PAGE };
    });
  };

  /** One page of newer messages after the last shown (after older pages replaced them). */
  const loadNewer = (id: string) => {
    if (!hasNewerRef.current) return;
    return page(id, "Loading later messages…", (shown) => {
      const last = shown.messages[shown.messages.length - 1];
      return api.viewsNewer({ session: id, anchor: last.anchor, seq: last.seq, limit: PAGE });
    }, (shown, newer) => {
      const messages = appendAfter(shown.messages, newer);
      const dropped = Math.max(0, messages.length - MAX_WINDOW);
      setHasNewer(newer.length === PAGE);
      return { ...shown, messages: dropped > 0 ? messages.slice(dropped) : messages, hasOlder: shown.hasOlder || dropped > 0 };
    });
  };

  /** Replaces the window by the messages around `seq` (a jump to a message not loaded). */
  const showAround = async (id: string, seq: number): Promise<StoredView | null> => {
    const shown = storedRef.current;
    if (!shown || shown.session.id !== id) return null;
    if (shown.messages.some((m) => m.seq === seq)) return shown;
    paging.current++;
    try {
      const messages = await api.viewsAround({ session: id, seq, limit: PAGE * 2 });
      if (!current(id)) return null;
      const next = { ...shown, messages, hasOlder: true };
      setHasNewer(true);
      storedRef.current = next;
      setStored(next);
      return next;
    } catch (e) {
      fail(e);
      return null;
    }
  };

  // The next request's pages by index; at most MAX_ROW_PAGES, the farthest from the last asked
  // dropped first.
  const rowPages = useRef(new Map<number, WireItem[][]>());
  const asked = useRef(new Set<number>());
  const nextFor = useRef<string | null>(null);

  const showNextRequest = async (id: string) => {
    const first = await api.viewsModelPage({ session: id, offset: 0, limit: ROWS_PAGE }).catch(fail);
    if (!first || !current(id)) return;
    rowPages.current = new Map([[0, first.rows]]);
    asked.current = new Set([0]);
    nextFor.current = id;
    const row = (i: number) => rowPages.current.get(Math.floor(i / ROWS_PAGE))?.[i % ROWS_PAGE];
    setWire({
      label: first.reconstructed ? "Next request (reconstructed)" : "Next request",
      total: first.totalRows,
      row,
      chars: first.chars,
      catalog: first.toolCatalogChars,
      catalogShares: first.toolCatalog,
      reconstructed: first.reconstructed,
      missing: first.missing,
      version: 0,
    });
    setCallChoice(null);
  };

  /** Fetches the pages of the next request that rows `from..to` need. */
  const wantRows = (id: string, from: number, to: number) => {
    if (nextFor.current !== id) return;
    for (let p = Math.floor(from / ROWS_PAGE); p <= Math.floor(to / ROWS_PAGE); p++) {
      if (asked.current.has(p)) continue;
      asked.current.add(p);
      api.viewsModelPage({ session: id, offset: p * ROWS_PAGE, limit: ROWS_PAGE }).then((page) => {
        if (nextFor.current !== id || !current(id)) return;
        rowPages.current.set(p, page.rows);
        const far = [...rowPages.current.keys()].sort((a, b) => Math.abs(b - p) - Math.abs(a - p));
        for (const drop of far.slice(0, Math.max(0, rowPages.current.size - MAX_ROW_PAGES))) {
          rowPages.current.delete(drop);
          asked.current.delete(drop);
        }
        setWire((w) => (w ? { ...w, version: w.version + 1 } : w));
      }, fail);
    }
  };

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

  /** Shows the next request (`"next"`) or the request of a past model call, rebuilt from the ledger. */
  const chooseCall = async (id: string, value: string) => {
    if (value === "next") return showNextRequest(id);
    const call = Number(value);
    const past = await api.callsPastRequest({ session: id, call }).catch(fail);
    if (!past || !current(id)) return;
    const catalog = past.call.toolCatalogChars;
    nextFor.current = null;
    const messages = past.messages;
    setWire({ label: `Model call #${call} (${past.call.purpose})`, total: messages.length, row: (i) => (i < messages.length ? [messages[i]] : undefined), chars: past.call.requestChars - catalog, catalog, requestSource: past.call.requestSource, version: 0 });
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
