// Compact…: the strategies side by side with what each would make of the next request, a focus
// for the summarizer, and whether to preview the checkpoint first.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { Strategy, StrategyPreview } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";
import { STRATEGY_TEXT, strategyEffect, strategyWork } from "../logic";

/**
 * Compact… (Ctrl+Shift+C): every strategy with what it would make of the next request — tokens before
 * and after, what it summarizes or masks — computed without a model before anything is applied;
 * then a focus for the summarizer and, for the summary, a proposal to edit first.
 */
export function CompactDialog(props: {
  session: string;
  onClose: () => void;
  onCompact: (focus: string | null, preview: boolean, strategy?: Strategy) => void;
}) {
  const [focus, setFocus] = useState("");
  const [preview, setPreview] = useState(false);
  const [previews, setPreviews] = useState<StrategyPreview[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Strategy | null>(null);
  useEffect(() => {
    api
      .compactionStrategies({ session: props.session })
      .then((list) => {
        setPreviews(list);
        const pick = list.find((p) => p.isDefault && !p.unavailable) ?? list.find((p) => !p.unavailable);
        setChosen(pick?.strategy ?? null);
      })
      .catch((e) => setError(errorMessage(e)));
  }, [props.session]);
  const selected = previews?.find((p) => p.strategy === chosen) ?? null;
  // Until the previews arrive nothing is chosen: compacting then uses compaction.strategy.
  const summarizes = selected === null || selected.checkpointMaxTokens !== null;
  const canPreview = chosen === null || chosen === "native";
  const go = () =>
    !selected?.unavailable && props.onCompact(summarizes ? focus.trim() || null : null, canPreview && preview, chosen ?? undefined);
  const widest = Math.max(1, ...(previews ?? []).map((p) => p.beforeTokens));
  return (
    <Dialog title="Compact this session" onClose={props.onClose} testId="compact-dialog">
      <p class="muted">What each strategy would make of the next request; nothing is applied until you choose. The originals stay stored, and Undo reverts any of them.</p>
      {error && <div class="error">{error}</div>}
      {!previews && !error && <p class="muted">Measuring the request…</p>}
      <div class="strategies" role="radiogroup" aria-label="Strategy">
        {previews?.map((p) => {
          const text = STRATEGY_TEXT[p.strategy];
          const after = (100 * p.afterTokens) / widest;
          // The checkpoint drawn at the size of the session's last one (its budget is only a bound).
          const checkpoint = (100 * (p.checkpointLastTokens ?? 0)) / widest;
          return (
            <label class={`strategy${p.unavailable ? " unavailable" : ""}${chosen === p.strategy ? " chosen" : ""}`} key={p.strategy} data-testid={`strategy-${p.strategy}`}>
              <input type="radio" name="strategy" checked={chosen === p.strategy} disabled={!!p.unavailable} onChange={() => setChosen(p.strategy)} />
              <span class="strategy-text">
                <strong>{text.name}</strong>
                {p.isDefault && <span class="badge">compaction.strategy</span>} <span class="muted">— {text.what}</span>
                <span class="strategy-effect" data-testid="strategy-effect">{strategyEffect(p)}</span>
                {!p.unavailable && <span class="muted strategy-work">{strategyWork(p)}</span>}
                {!p.unavailable && (
                  <span class="meter-bar strategy-bar" title={strategyEffect(p)}>
                    <span class="meter-used" style={{ width: `${Math.min(100, after)}%` }} />
                    <span class="meter-catalog strategy-checkpoint" style={{ left: `${Math.min(100, after)}%`, width: `${Math.min(100 - Math.min(100, after), checkpoint)}%` }} />
                  </span>
                )}
              </span>
            </label>
          );
        })}
      </div>
      <label>
        Focus for the summarizer (optional)
        <input autoFocus value={focus} disabled={!summarizes} onInput={(e) => setFocus((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && go()} data-testid="focus-input" />
      </label>
      <label class="check">
        <input type="checkbox" checked={canPreview && preview} disabled={!canPreview} onChange={(e) => setPreview((e.target as HTMLInputElement).checked)} data-testid="preview-check" /> Preview and edit the checkpoint before applying
      </label>
      <div class="row">
        <button onClick={go} disabled={!!selected?.unavailable} data-testid="compact-confirm">
          {canPreview && preview ? "Preview" : selected ? `Compact: ${STRATEGY_TEXT[selected.strategy].name}` : "Compact now"}
        </button>
        <button class="secondary" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
