// A virtualized list with measured row heights: only the rows in view (plus a margin) are in the
// DOM, so a 100,000-message session paints as fast as a short one.
import type { ComponentChildren } from "preact";
import type { MutableRef } from "preact/hooks";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { firstVisible, offsets } from "./logic";

const OVERSCAN_PX = 600;

export function VirtualList(props: {
  count: number;
  keyOf: (index: number) => string;
  estimate: (index: number) => number;
  render: (index: number) => ComponentChildren;
  /** Scrolls so this row is at the top (a new object each time; index past the end = bottom). */
  scrollTo?: { index: number } | null;
  /** Scrolls as little as needed to bring this row into view (none when it is already shown; a new
   * object each time). */
  reveal?: { index: number } | null;
  testId?: string;
  /** Called while the rows in view are near the first / last row (to page more in). */
  onNearStart?: () => void;
  onNearEnd?: () => void;
  /** Rows hold no state of their own: their elements are reused for the rows scrolled in, so a
   * long scroll patches a screenful of elements instead of creating new ones at every step. */
  recycle?: boolean;
  /** Called with the rows rendered (`from` to `to`, inclusive) whenever they change. */
  onRange?: (from: number, to: number) => void;
}) {
  const { count, keyOf, estimate, render, scrollTo, testId } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const measured = useRef(new Map<string, number>());
  const [version, setVersion] = useState(0);
  const [top, setTop] = useState(0);
  const [viewport, setViewport] = useState(800);

  const prefix = useMemo(() => {
    const heights = new Array<number>(count);
    for (let i = 0; i < count; i++) heights[i] = measured.current.get(keyOf(i)) ?? estimate(i);
    return offsets(heights);
    // `version` changes when measurements arrive.
  }, [count, keyOf, estimate, version]);

  const start = firstVisible(prefix, Math.max(0, top - OVERSCAN_PX));
  let end = start;
  while (end < count && prefix[end] < top + viewport + OVERSCAN_PX) end++;

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setViewport(el.clientHeight));
    observer.observe(el);
    setViewport(el.clientHeight);
    return () => observer.disconnect();
  }, []);

  const stickToBottom = useScrollRequests(scroller, prefix, count, scrollTo, props.reveal);
  useScrollAnchor(scroller, prefix, count, keyOf, stickToBottom, setTop);
  useEdges(start, end, count, keyOf, props);
  useMeasuredHeights(scroller, measured, count, keyOf, estimate, setVersion);

  const rows = [];
  // Recycled rows are keyed by their slot: row i + slots takes the element row i left.
  const slots = Math.max(1, end - start);
  for (let i = start; i < end; i++) {
    const key = keyOf(i);
    rows.push(
      <div
        class="vrow"
        key={props.recycle ? i % slots : key}
        data-key={key}
        data-index={i}
        style={{ transform: `translateY(${prefix[i]}px)` }}
      >
        {render(i)}
      </div>,
    );
  }
  return (
    <div
      class="vlist"
      ref={scroller}
      data-testid={testId}
      onScroll={(e) => {
        const el = e.currentTarget as HTMLDivElement;
        // While stuck to the bottom the list itself only ever moves down: a move up is the user's.
        if (stickToBottom.current && el.scrollTop < top - 2) stickToBottom.current = false;
        setTop(el.scrollTop);
      }}
      onWheel={() => (stickToBottom.current = false)}
      onMouseDown={() => (stickToBottom.current = false)}
      onKeyDown={() => (stickToBottom.current = false)}
    >
      <div class="vlist-inner" style={{ height: `${prefix[count]}px` }}>
        {rows}
      </div>
    </div>
  );
}

type Scroller = MutableRef<HTMLDivElement | null>;

/**
 * The scroll requests of the props: `scrollTo` jumps once per request (to the end: stays there while
 * row heights are measured, until the user scrolls), `reveal` scrolls as little as needed. Returns
 * whether the list is stuck to the bottom (the list's handlers unstick it).
 */
function useScrollRequests(scroller: Scroller, prefix: number[], count: number, scrollTo: { index: number } | null | undefined, reveal: { index: number } | null | undefined) {
  const stickToBottom = useRef(false);
  useEffect(() => {
    if (!scrollTo || !scroller.current) return;
    stickToBottom.current = scrollTo.index >= count;
    scroller.current.scrollTop = prefix[Math.min(scrollTo.index, count)];
    // Jump once per request; later measurements must not pull the view back.
  }, [scrollTo]);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [prefix]);
  useEffect(() => {
    const el = scroller.current;
    if (!reveal || reveal.index < 0 || reveal.index >= count || !el) return;
    const [from, to] = [prefix[reveal.index], prefix[reveal.index + 1]];
    if (from < el.scrollTop) el.scrollTop = from;
    else if (to > el.scrollTop + el.clientHeight) el.scrollTop = to - el.clientHeight;
    // Once per request: scrolling by hand afterwards is left alone.
  }, [reveal]);
  return stickToBottom;
}

/**
 * Rows added or dropped above (pages arriving or leaving) must not move what is on screen: the
 * first row in view is remembered with its offset and put back where it was.
 */
function useScrollAnchor(scroller: Scroller, prefix: number[], count: number, keyOf: (index: number) => string, stickToBottom: MutableRef<boolean>, setTop: (top: number) => void) {
  const anchor = useRef<{ key: string; offset: number } | null>(null);
  useLayoutEffect(() => {
    const el = scroller.current;
    const a = anchor.current;
    if (!el || !a || stickToBottom.current) return;
    for (let i = 0; i < count; i++) {
      if (keyOf(i) === a.key) {
        const want = prefix[i] - a.offset;
        if (Math.abs(el.scrollTop - want) > 1) {
          el.scrollTop = want;
          setTop(want);
        }
        break;
      }
    }
  }, [count, keyOf]);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || count === 0) return;
    const first = Math.min(firstVisible(prefix, el.scrollTop), count - 1);
    anchor.current = { key: keyOf(first), offset: prefix[first] - el.scrollTop };
  });
}

/** Paging: asks for more when the rows in view come near either end, and reports the rows rendered. */
function useEdges(start: number, end: number, count: number, keyOf: (index: number) => string, props: { onNearStart?: () => void; onNearEnd?: () => void; onRange?: (from: number, to: number) => void }) {
  const edges = useRef({ start: props.onNearStart, end: props.onNearEnd });
  edges.current = { start: props.onNearStart, end: props.onNearEnd };
  const NEAR_ROWS = 40;
  useEffect(() => {
    if (count === 0) return;
    if (start < NEAR_ROWS) edges.current.start?.();
    if (end > count - NEAR_ROWS) edges.current.end?.();
    // `keyOf` changes with the rows: a page that added no row (all of it in a closed group) still
    // asks for the next one.
  }, [start, end, count, keyOf]);

  const range = useRef(props.onRange);
  range.current = props.onRange;
  useEffect(() => {
    if (count > 0) range.current?.(start, Math.max(start, end - 1));
  }, [start, end, count]);
}

/** Measures the rows rendered; heights of rows long gone are forgotten. */
function useMeasuredHeights(scroller: Scroller, measured: MutableRef<Map<string, number>>, count: number, keyOf: (index: number) => string, estimate: (index: number) => number, setVersion: (next: (v: number) => number) => void) {
  // Measured heights of rows long gone are forgotten (a long session pages through many keys).
  useEffect(() => {
    if (measured.current.size < 4 * count + 5000) return;
    const keep = new Set<string>();
    for (let i = 0; i < count; i++) keep.add(keyOf(i));
    for (const key of measured.current.keys()) if (!keep.has(key)) measured.current.delete(key);
  }, [count, keyOf]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let changed = false;
    for (const child of Array.from(el.querySelectorAll<HTMLElement>(":scope > .vlist-inner > .vrow"))) {
      const key = child.dataset.key as string;
      const h = child.offsetHeight;
      // Only a height the offsets did not already use changes them: rows as tall as estimated
      // (a library of equal rows) scroll without recomputing the offsets of every row.
      const used = measured.current.get(key) ?? estimate(Number(child.dataset.index));
      if (h > 0 && used !== h) {
        measured.current.set(key, h);
        changed = true;
      }
    }
    if (changed) setVersion((v) => v + 1);
  });
}
