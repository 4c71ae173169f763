// The sidebar's width: dragged from its edge, kept between 200 and 640 px, remembered across
// starts (localStorage), so long titles can be read.
import { useEffect, useState } from "preact/hooks";

const KEY = "alisio.sidebarWidth";
const MIN = 200;
const MAX = 640;
const DEFAULT = 240;

function clamp(width: number): number {
  return Math.min(MAX, Math.max(MIN, Math.round(width)));
}

function stored(): number {
  const saved = Number(globalThis.localStorage?.getItem(KEY));
  return Number.isFinite(saved) && saved > 0 ? clamp(saved) : DEFAULT;
}

/** The width in force and the handler that starts a drag from the sidebar's edge. */
export function useSidebarWidth(): [number, (e: MouseEvent) => void] {
  const [width, setWidth] = useState(stored);
  useEffect(() => {
    globalThis.localStorage?.setItem(KEY, String(width));
  }, [width]);
  const startDrag = (e: MouseEvent) => {
    e.preventDefault();
    const move = (m: MouseEvent) => setWidth(clamp(m.clientX));
    const up = () => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  };
  return [width, startDrag];
}
