// The stored view's window over a long session: pages of older or newer messages fetched at its
// edges (one fetch at a time), the far edge dropped past a bound, and a jump to a message not loaded.
import { useRef, useState } from "preact/hooks";
import type { MutableRef } from "preact/hooks";
import { api } from "../api";
import type { StoredMessage, StoredView } from "../bindings";
import { appendAfter } from "../logic";

/**
 * Messages shown at once when a session opens (its end); scrolling pages in `PAGE` more at either
 * edge, and the window never holds more than `MAX_WINDOW`: pages at the far edge are dropped and
 * fetched again when scrolled back to, so a session of any length costs the same memory.
 */
export const FIRST_PAGE = 1500;
const PAGE = 1000;
const MAX_WINDOW = 4000;

export function useStoredPages(deps: {
  storedRef: MutableRef<StoredView | null>;
  setStored: (view: StoredView) => void;
  /** Bumped when the window is replaced: a page fetched before it is dropped. */
  paging: MutableRef<number>;
  current: (id: string) => boolean;
  setLoading: (label: string | null) => void;
  fail: (e: unknown) => void;
}) {
  const { storedRef, setStored, paging, current, setLoading, fail } = deps;
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

  return { hasNewer, hasNewerRef, setHasNewer, loadOlder, loadNewer, showAround };
}
