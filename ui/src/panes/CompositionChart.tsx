// What each request was made of, over the session: per call, its tokens stacked by part (system,
// tools, checkpoint, injected context, user, assistant, tool results). Parts the agent did not
// record are stacked as hatched estimates, so a reconstructed request never looks smaller than it
// was; compactions and cache breaks are marked as on the context chart. A click opens the call.
import type { CallComposition, CompactionView, ModelCallRecord } from "../bindings";
import { COMPOSITION_PARTS, compactionMarkers, compositionBars, formatTokens } from "../logic";

const W = 800;
const H = 220;
const PAD = { left: 56, right: 12, top: 14, bottom: 22 };
const TEXT = "#6e7781";
const LINE = "#bf8700";
const BREAK = "#cf222e";
const COLOR = new Map(COMPOSITION_PARTS.map((p) => [p.part, p.color]));
const LABEL = new Map(COMPOSITION_PARTS.map((p) => [p.part, p.label]));

export function CompositionChart(props: {
  rows: CallComposition[];
  compactions: CompactionView[];
  modelCalls: ModelCallRecord[];
  selected: number | null;
  onSelect: (n: number) => void;
}) {
  const bars = compositionBars(props.rows);
  const max = Math.max(1, Math.ceil(Math.max(0, ...bars.map((b) => b.total)) * 1.08));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, bars.length);
  const y = (tokens: number) => PAD.top + plotH - (plotH * tokens) / max;
  const x = (n: number) => PAD.left + step * (n - 1);
  const markers = compactionMarkers(props.compactions, props.modelCalls);
  const anyMissing = bars.some((b) => b.segments.some((s) => s.missing));

  return (
    <div class="context-chart">
      <div class="pane-head">
        <strong>What each request was made of</strong>
        <span class="muted small">
          {COMPOSITION_PARTS.map((p) => (
            <span class="legend"><span class="swatch" style={{ background: p.color }} />{p.label} </span>
          ))}
          {anyMissing && <span class="legend" data-testid="composition-missing-legend"><span class="swatch hatched" /> not recorded (estimate)</span>}
        </span>
      </div>
      <svg xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${W} ${H}`} width="100%" data-testid="composition-chart" font-family="sans-serif" font-size="10">
        <defs>
          {COMPOSITION_PARTS.map((p) => (
            <pattern id={`hatch-${p.part}`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" fill="#ffffff" />
              <line x1="0" y1="0" x2="0" y2="6" stroke={p.color} stroke-width="3" />
            </pattern>
          ))}
        </defs>
        <text x={PAD.left - 4} y={y(max) + 8} text-anchor="end" fill={TEXT}>{formatTokens(max).replace(" tokens", "")}</text>
        <text x={PAD.left - 4} y={y(max) + 20} text-anchor="end" fill={TEXT}>tokens</text>
        <text x={PAD.left - 4} y={y(0)} text-anchor="end" fill={TEXT}>0</text>
        {bars.map((b) => {
          const bx = x(b.n) + step * 0.15;
          const bw = Math.max(1, step * 0.7);
          let below = 0;
          return (
            <g onClick={() => props.onSelect(b.n)} style={{ cursor: "pointer" }} data-testid="composition-bar" opacity={props.selected === null || props.selected === b.n ? 1 : 0.55}>
              <title>
                {`#${b.n} ${b.purpose} (${b.exact ? "exact" : "reconstructed"}): ` +
                  b.segments.map((s) => `${LABEL.get(s.part)} ${s.missing ? "≈ " : ""}${s.tokens}${s.missing ? " not recorded" : ""}`).join(", ")}
              </title>
              {b.segments.map((s) => {
                const top = below + s.tokens;
                const rect = (
                  <rect
                    x={bx}
                    width={bw}
                    y={y(top)}
                    height={y(below) - y(top)}
                    fill={s.missing ? `url(#hatch-${s.part})` : COLOR.get(s.part)}
                    stroke={s.missing ? COLOR.get(s.part) : undefined}
                    stroke-width={s.missing ? 0.5 : undefined}
                    data-testid={s.missing ? "composition-missing" : undefined}
                  />
                );
                below = top;
                return rect;
              })}
              {b.cacheBreak && <path d={`M ${bx + bw / 2} ${y(b.total) - 9} l 4 7 l -8 0 z`} fill={BREAK} />}
              <text x={bx + bw / 2} y={H - 6} text-anchor="middle" fill={TEXT}>{b.n}</text>
            </g>
          );
        })}
        {markers.map(({ c, n }) => (
          <g onClick={() => props.onSelect(n)} style={{ cursor: "pointer" }}>
            <title>{`compaction #${c.id} (${c.reason})`}</title>
            <line x1={x(n) + step / 2} x2={x(n) + step / 2} y1={PAD.top} y2={y(0)} stroke={LINE} stroke-width="1.5" />
            <text x={x(n) + step / 2 + 3} y={PAD.top + 8} fill={LINE}>{c.reason}</text>
          </g>
        ))}
      </svg>
    </div>
  );
}
