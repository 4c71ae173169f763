// The tabs (one per view of the views' table, each with its Ctrl+key) and the compaction actions.
// Served (read-only) export and the proxy are off: both write on the server's machine.
import type { Tab } from "../tabs";
import { servedReadOnly } from "../transport";

export function Toolbar(props: {
  /** The views in order: a tab each, opened by Ctrl+`key` too. */
  tabs: ReadonlyArray<{ id: Tab; label: string; key: string }>;
  tab: Tab;
  onTab: (tab: Tab) => void;
  canCompact: boolean;
  /** Why compaction is unavailable here (an imported session is read-only), shown on hover. */
  compactBlocked?: string | null;
  canUndo: boolean;
  onCompact: () => void;
  onUndo: () => void;
  canExport: boolean;
  onExport: () => void;
  /** The recording proxy is running (the button says so). */
  proxyRunning: boolean;
  onProxy: () => void;
}) {
  return (
    <header class="toolbar">
      <nav class="tabs" role="tablist">
        {props.tabs.map(({ id, label, key }) => (
          <button role="tab" aria-selected={props.tab === id} class={props.tab === id ? "tab active" : "tab"} onClick={() => props.onTab(id)} title={`Ctrl+${key}`} data-testid={`tab-${id}`}>
            {label}
          </button>
        ))}
      </nav>
      <div class="actions">
        <button onClick={props.onCompact} disabled={!props.canCompact} data-testid="compact-button" title={props.compactBlocked ?? "Ctrl+Shift+C"}>
          Compact…
        </button>
        <button class="secondary" onClick={props.onUndo} disabled={!props.canUndo || !!props.compactBlocked} data-testid="undo-button" title={props.compactBlocked ?? "Ctrl+Shift+Z"}>
          Undo
        </button>
        <button class="secondary" onClick={props.onExport} disabled={!props.canExport || !!servedReadOnly} data-testid="export-button" title={servedReadOnly ?? "Ctrl+E"}>
          Export…
        </button>
        <button
          class={props.proxyRunning ? "secondary recording" : "secondary"}
          onClick={props.onProxy}
          disabled={!!servedReadOnly}
          data-testid="proxy-button"
          title={servedReadOnly ?? "Ctrl+Shift+P"}
        >
          {props.proxyRunning ? "● Proxy" : "Proxy…"}
        </button>
      </div>
    </header>
  );
}
