// Window-wide keyboard shortcuts (listed in docs/window.md and on the buttons' titles).
import { useEffect, useRef } from "preact/hooks";

export type Shortcuts = {
  escape: () => void;
  /** Ctrl+`tabKeys[i]` calls `tab(i)` (the keys of the views' table, in order). */
  tabKeys: readonly string[];
  tab: (index: number) => void;
  sessions: () => void;
  search: () => void;
  compact: () => void;
  undo: () => void;
  composer: () => void;
  stop: () => void;
  importSessions: () => void;
  exportSession: () => void;
  proxy: () => void;
};

export function useShortcuts(handlers: Shortcuts) {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const h = current.current;
      if (e.key === "Escape") h.escape();
      if (!(e.ctrlKey || e.metaKey)) return;
      const key = e.key.toLowerCase();
      const digit = h.tabKeys.indexOf(e.key);
      const action =
        digit >= 0 ? () => h.tab(digit)
        : key === "k" ? h.sessions
        : key === "f" ? h.search
        : e.shiftKey && key === "c" ? h.compact
        : e.shiftKey && key === "z" ? h.undo
        : e.shiftKey && key === "p" ? h.proxy
        : e.key === "l" ? h.composer
        : e.key === "." ? h.stop
        : !e.shiftKey && key === "i" ? h.importSessions
        : !e.shiftKey && key === "e" ? h.exportSession
        : null;
      if (action) {
        e.preventDefault();
        action();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
