// The model view (Ctrl+2): exactly what the next request carries, or what a past request carried,
// rebuilt from the model-call ledger.
import { useCallback } from "preact/hooks";
import { CHARS_PER_TOKEN, type ModelCallRecord } from "../bindings";
import { WireCard } from "../components";
import type { Wire } from "../hooks/useModelView";
import { formatChars, formatTokens, missingLabel, sourceBadge } from "../logic";
import { VirtualList } from "../VirtualList";

export function ModelPane(props: {
  wire: Wire;
  callChoice: number | null;
  calls: ModelCallRecord[];
  /** The agent the session came from, for "tools not recorded by Codex". */
  source?: string;
  onChoose: (value: string) => void;
  /** Rows `from..to` came into view (their page is fetched if it is not there). */
  onRows: (from: number, to: number) => void;
}) {
  const { wire, callChoice } = props;
  // Keys change with `version` only for rows still waiting, so arrived rows are measured anew.
  const key = useCallback((i: number) => `w${callChoice ?? "next"}-${i}${wire.row(i) ? "" : "-wait"}`, [callChoice, wire]);
  const estimate = useCallback(() => 90, []);
  return (
    <>
      <div class="pane-head">
        <select value={callChoice === null ? "next" : String(callChoice)} onChange={(e) => props.onChoose((e.target as HTMLSelectElement).value)} data-testid="call-select">
          <option value="next">Next request</option>
          {props.calls.map((c) => (
            <option value={String(c.id)}>
              #{c.id} {c.purpose} · {c.startedAt}
            </option>
          ))}
        </select>
        <span class="muted" data-testid="model-summary">
          {wire.label}: {wire.total} messages · {formatChars(wire.chars)} + tool catalog {formatChars(wire.catalog)} ≈{" "}
          {formatTokens(Math.ceil((wire.chars + wire.catalog) / CHARS_PER_TOKEN))}
        </span>
        {wire.requestSource && (
          <span class={`flag ${sourceBadge(wire.requestSource).exact ? "exact" : "reconstructed"}`} title={sourceBadge(wire.requestSource).title} data-testid="model-source">
            {sourceBadge(wire.requestSource).label}
          </span>
        )}
      </div>
      {wire.catalogShares && wire.catalogShares.length > 1 && (
        <div class="muted small" data-testid="catalog-shares">
          Tool catalog by source:{" "}
          {wire.catalogShares.map((s) => `${s.server} ${s.tools} tools ${formatChars(s.chars)}`).join(" · ")}
        </div>
      )}
      {wire.reconstructed && (
        <div class="notice small" data-testid="reconstructed">
          Reconstructed from the agent's own records: what it would send next, without what its session files do not record.
          {wire.missing && wire.missing.length > 0 && (
            <ul class="missing" data-testid="model-missing">
              {wire.missing.map((m) => <li>{missingLabel(m, props.source)}</li>)}
            </ul>
          )}
        </div>
      )}
      <VirtualList
        testId="model-view"
        count={wire.total}
        keyOf={key}
        estimate={estimate}
        onRange={props.onRows}
        render={(i) => {
          const items = wire.row(i);
          return items ? items.map((item) => <WireCard item={item} index={i} />) : <div class="muted small">loading #{i}…</div>;
        }}
      />
    </>
  );
}
