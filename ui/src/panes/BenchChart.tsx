// The bake-off as a chart: per arm, best first, a bar of the probes it kept (0–100 %) beside a bar
// of the next request's tokens (or of the tokens a prefix cache would process again); the best arm
// is marked. Colours are set on the elements, as on the context chart.
import type { Arm } from "../bindings";
import { benchBars, benchMax, formatTokens, type BenchMeasure } from "../logic";

const W = 800;
const ROW = 24;
const PAD = { top: 22, bottom: 6, right: 12 };
const LABEL = 190;
const GAP = 24;
const PANEL = (W - LABEL - GAP - PAD.right) / 2;
// Room after a bar for its value.
const VALUE = 64;
const COLORS = { probes: "#2da44e", tokens: "#0969da", best: "#bf8700", text: "#6e7781", empty: "#d0d7de" };
const MEASURE: Record<BenchMeasure, string> = { next: "Next request tokens", reprocessed: "Re-processed tokens" };

export function BenchChart(props: { arms: Arm[]; measure: BenchMeasure }) {
  const bars = benchBars(props.arms, props.measure);
  const max = benchMax(bars);
  const H = PAD.top + bars.length * ROW + PAD.bottom;
  const tokensX = LABEL + PANEL + GAP;
  const width = (part: number, whole: number) => ((PANEL - VALUE) * part) / whole;
  return (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-labelledby="bench-chart-title" data-testid="bench-chart" font-family="sans-serif" font-size="11">
      <title id="bench-chart-title">{`Probes kept and ${MEASURE[props.measure].toLowerCase()} per strategy, best first`}</title>
      <text x={LABEL} y={12} fill={COLORS.text}>Probes kept</text>
      <text x={tokensX} y={12} fill={COLORS.text}>{MEASURE[props.measure]}</text>
      {bars.map((b, i) => {
        const y = PAD.top + i * ROW;
        const mid = y + ROW / 2 + 4;
        const pct = b.keptPct ?? 0;
        const tokens = formatTokens(b.tokens);
        return (
          <g data-testid="bench-chart-arm" data-strategy={b.strategy}>
            <title>{`${b.name}${b.best ? " (best)" : ""}: ${b.keptPct === null ? "no probes" : `${b.keptPct} % of probes kept`}; ${MEASURE[props.measure].toLowerCase()}: ${tokens.replace(" tokens", "")}`}</title>
            {b.best && <rect x={0} y={y + 1} width={W} height={ROW - 2} fill={COLORS.best} opacity={0.12} />}
            <text x={LABEL - 8} y={mid} text-anchor="end" fill={b.best ? COLORS.best : "currentColor"} font-weight={b.best ? "bold" : undefined}>
              {b.best ? "★ " : ""}
              {b.name}
            </text>
            <rect x={LABEL} y={y + 5} width={PANEL - VALUE} height={ROW - 10} fill={COLORS.empty} opacity={0.4} />
            <rect x={LABEL} y={y + 5} width={width(pct, 100)} height={ROW - 10} fill={COLORS.probes} />
            <text x={LABEL + width(pct, 100) + 4} y={mid} fill={COLORS.text}>{b.keptPct === null ? "no probes" : `${b.keptPct} %`}</text>
            <rect x={tokensX} y={y + 5} width={width(b.tokens, max)} height={ROW - 10} fill={COLORS.tokens} />
            <text x={tokensX + width(b.tokens, max) + 4} y={mid} fill={COLORS.text}>{tokens.replace(" tokens", "")}</text>
          </g>
        );
      })}
    </svg>
  );
}
