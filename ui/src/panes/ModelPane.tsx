// The model view (Ctrl+2): exactly what the next request carries, or what a past request carried,
// rebuilt from the model-call ledger.
import { useCallback } from "preact/hooks";
import { CHARS_PER_TOKEN, type ModelCallRecord } from "../bindings";
import { WireCard } from "../components";
import type { Wire } from "../hooks/useSessionView";
import { formatChars, formatTokens } from "../logic";
import { VirtualList } from "../VirtualList";

export function ModelPane(props: { wire: Wire; callChoice: number | null; calls: ModelCallRecord[]; onChoose: (value: string) => void }) {
  const { wire, callChoice } = props;
  const key = useCallback((i: number) => `w${callChoice ?? "next"}-${i}`, [callChoice, wire]);
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
          {wire.label}: {wire.messages.length} messages · {formatChars(wire.chars)} + tool catalog {formatChars(wire.catalog)} ≈{" "}
          {formatTokens(Math.ceil((wire.chars + wire.catalog) / CHARS_PER_TOKEN))}
        </span>
      </div>
      {wire.reconstructed && (
        <div class="notice small" data-testid="reconstructed">
          Reconstructed from the agent's own records: what it would send next, without its tool catalog (not recorded in its session files).
        </div>
      )}
      <VirtualList testId="model-view" count={wire.messages.length} keyOf={key} estimate={estimate} render={(i) => <WireCard item={wire.messages[i]} index={i} />} />
    </>
  );
}
