// The model view's request: the next one fetched page by page as its rows come into view (a few
// pages kept), or a past one rebuilt whole from the model-call ledger.
import { useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { CatalogShare, MissingPart, RequestSource, WireItem } from "../bindings";

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

/** `current(id)`: whether `id` is still the session shown (answers for another are dropped). */
export function useModelView(current: (id: string) => boolean, fail: (e: unknown) => void) {
  const [wire, setWire] = useState<Wire | null>(null);
  const [callChoice, setCallChoice] = useState<number | null>(null);

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

  return { wire, setWire, callChoice, showNextRequest, wantRows, chooseCall };
}
