// The session as a chart: per call, prompt tokens stacked cached / uncached and completion tokens;
// the window and the compaction threshold as lines; markers at compactions (reason, before → after)
// and at cache breaks. Hover shows the call, a click opens it in the request diff. Colours are set
// on the elements (not by CSS), so an exported SVG or PNG looks the same as on screen (exported
// by the engine to a file: not served, where nothing writes).
import { useRef } from "preact/hooks";
import { api } from "../api";
import type { CacheBreak, CompactionView, ModelCallRecord } from "../bindings";
import { breakLabel, chartMax, compactionMarkers, formatTokens, tokensOf, type ChartBar } from "../logic";
import { servedReadOnly } from "../transport";

const W = 800;
const H = 220;
const PAD = { left: 56, right: 12, top: 14, bottom: 22 };
const COLORS = { cached: "#2da44e", uncached: "#0969da", completion: "#8c959f", line: "#bf8700", break: "#cf222e", text: "#6e7781" };

/** 2400 → "2.4k", 950 → "950". */
function compact(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}k` : String(tokens);
}

export function ContextChart(props: {
  session: string;
  bars: ChartBar[];
  /** Each break's or miss's cause, by call number. */
  causes?: Map<number, CacheBreak>;
  agent?: string;
  windowTokens: number | null;
  threshold: number;
  compactions: CompactionView[];
  modelCalls: ModelCallRecord[];
  selected: number | null;
  onSelect: (n: number) => void;
  onExported: (path: string) => void;
  fail: (e: unknown) => void;
}) {
  const svg = useRef<SVGSVGElement>(null);
  const { bars } = props;
  const max = chartMax(bars, props.windowTokens);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, bars.length);
  const y = (tokens: number) => PAD.top + plotH - (plotH * tokens) / max;
  const x = (n: number) => PAD.left + step * (n - 1);
  const markers = compactionMarkers(props.compactions, props.modelCalls);

  const exportAs = async (format: "svg" | "png") => {
    if (!svg.current) return;
    const text = new XMLSerializer().serializeToString(svg.current);
    try {
      if (format === "svg") return props.onExported(await api.exportChart({ session: props.session, format: "svg", data: text }));
      const image = new Image();
      image.src = `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(text)))}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = W * 2;
      canvas.height = H * 2;
      const context = canvas.getContext("2d");
      if (!context) throw new Error("no canvas to draw the PNG");
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      props.onExported(await api.exportChart({ session: props.session, format: "png", data: canvas.toDataURL("image/png").split(",")[1] }));
    } catch (e) {
      props.fail(e);
    }
  };

  return (
    <div class="context-chart">
      <div class="pane-head">
        <strong>Context over the session</strong>
        <span class="muted small">cached · uncached · completion tokens per call</span>
        <select value="" disabled={!!servedReadOnly} title={servedReadOnly ?? undefined} onChange={(e) => { const v = (e.target as HTMLSelectElement).value; (e.target as HTMLSelectElement).value = ""; if (v) exportAs(v as "svg" | "png"); }} data-testid="chart-export">
          <option value="">Export…</option>
          <option value="svg">as SVG</option>
          <option value="png">as PNG</option>
        </select>
      </div>
      <svg ref={svg} xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${W} ${H}`} width="100%" data-testid="context-chart" font-family="sans-serif" font-size="10">
        <text x={PAD.left - 4} y={y(max) + 8} text-anchor="end" fill={COLORS.text}>{compact(max)}</text>
        <text x={PAD.left - 4} y={y(max) + 20} text-anchor="end" fill={COLORS.text}>tokens</text>
        <text x={PAD.left - 4} y={y(0)} text-anchor="end" fill={COLORS.text}>0</text>
        {bars.map((b) => {
          const bx = x(b.n) + step * 0.15;
          const bw = Math.max(1, step * 0.7);
          const top = b.cached + b.uncached + b.completion;
          return (
            <g onClick={() => props.onSelect(b.n)} style={{ cursor: "pointer" }} data-testid="chart-bar" opacity={props.selected === null || props.selected === b.n ? 1 : 0.55}>
              <title>{`#${b.n}: prompt ${b.cached + b.uncached} (${b.cached} cached), completion ${b.completion}${props.causes?.get(b.n) ? ` — cache ${props.causes.get(b.n)?.cause}: ${breakLabel(props.causes.get(b.n) as CacheBreak, props.agent)}` : b.cacheBreak ? " — cache break" : ""}`}</title>
              <rect x={bx} width={bw} y={y(b.cached)} height={y(0) - y(b.cached)} fill={COLORS.cached} />
              <rect x={bx} width={bw} y={y(b.cached + b.uncached)} height={y(b.cached) - y(b.cached + b.uncached)} fill={COLORS.uncached} />
              <rect x={bx} width={bw} y={y(top)} height={y(b.cached + b.uncached) - y(top)} fill={COLORS.completion} />
              {(b.cacheBreak || props.causes?.has(b.n)) && <path d={`M ${bx + bw / 2} ${y(top) - 9} l 4 7 l -8 0 z`} fill={COLORS.break} data-testid="chart-break" />}
              <text x={bx + bw / 2} y={H - 6} text-anchor="middle" fill={COLORS.text}>{b.n}</text>
            </g>
          );
        })}
        {props.windowTokens !== null && (
          <g>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(props.windowTokens)} y2={y(props.windowTokens)} stroke={COLORS.text} stroke-dasharray="4 3" />
            <text x={W - PAD.right} y={y(props.windowTokens) - 3} text-anchor="end" fill={COLORS.text}>window {formatTokens(props.windowTokens)}</text>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(props.windowTokens * props.threshold)} y2={y(props.windowTokens * props.threshold)} stroke={COLORS.line} stroke-dasharray="2 3" />
            <text x={W - PAD.right} y={y(props.windowTokens * props.threshold) - 3} text-anchor="end" fill={COLORS.line}>threshold {Math.round(props.threshold * 100)} %</text>
          </g>
        )}
        {markers.map(({ c, n }) => (
          <g data-testid="chart-compaction" onClick={() => props.onSelect(n)} style={{ cursor: "pointer" }}>
            <title>{`compaction #${c.id} (${c.reason}): ≈ ${formatTokens(tokensOf(c.beforeChars))} → ${formatTokens(tokensOf(c.afterChars))}`}</title>
            <line x1={x(n) + step / 2} x2={x(n) + step / 2} y1={PAD.top} y2={y(0)} stroke={COLORS.line} stroke-width="1.5" />
            <rect x={x(n) + step / 2 - 4} y={PAD.top} width="8" height={plotH} fill="transparent" />
            <text x={x(n) + step / 2 + 3} y={PAD.top + 8} fill={COLORS.line}>{c.reason}</text>
          </g>
        ))}
      </svg>
    </div>
  );
}
