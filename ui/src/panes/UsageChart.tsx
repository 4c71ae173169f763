// The Usage chart: cost by day, each day's bar stacked by series (a source or a model).
import { formatUsd, type UsageDay } from "../logic";

/** The series' colours, in order; the chart shows at most this many series. */
export const PALETTE = ["#0969da", "#bf8700", "#1a7f37", "#8250df", "#cf222e", "#57606a", "#fb8f44", "#54aeff"];
const W = 800;
const H = 200;
const PAD = { left: 64, right: 12, top: 12, bottom: 22 };

export function UsageChart(props: { days: UsageDay[]; series: string[] }) {
  const { days, series } = props;
  const max = Math.max(1e-6, ...days.map((d) => d.total)) * 1.08;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, days.length);
  const y = (usd: number) => PAD.top + plotH - (plotH * usd) / max;
  const color = (s: string) => PALETTE[series.indexOf(s) % PALETTE.length];
  return (
    <div class="context-chart">
      <div class="muted small">
        Cost by day:{" "}
        {series.map((s) => (
          <span class="legend"><span class="swatch" style={{ background: color(s) }} />{s} </span>
        ))}
      </div>
      <svg xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${W} ${H}`} width="100%" data-testid="usage-chart" font-family="sans-serif" font-size="10">
        <text x={PAD.left - 4} y={y(max) + 8} text-anchor="end" fill="#6e7781">{formatUsd(max)}</text>
        <text x={PAD.left - 4} y={y(0)} text-anchor="end" fill="#6e7781">$0</text>
        {days.map((d, i) => {
          let below = 0;
          const x = PAD.left + step * i + step * 0.15;
          const w = Math.max(1, step * 0.7);
          return (
            <g data-testid="usage-bar">
              <title>{`${d.day}: ${formatUsd(d.total)} — ${d.parts.map((p) => `${p.series} ${formatUsd(p.cost)}`).join(", ")}`}</title>
              {d.parts.map((p) => {
                const top = below + p.cost;
                const rect = <rect x={x} width={w} y={y(top)} height={Math.max(0, y(below) - y(top))} fill={color(p.series)} />;
                below = top;
                return rect;
              })}
              {(days.length <= 31 || i % Math.ceil(days.length / 31) === 0) && (
                <text x={x + w / 2} y={H - 6} text-anchor="middle" fill="#6e7781">{d.day.slice(5)}</text>
              )}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
