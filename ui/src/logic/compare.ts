// The Compare table: two sessions' totals side by side with the change from one to the other.
import type { SessionTotals } from "../bindings";
import { formatUsd } from "./format";

/** One row of the Compare table: both values as shown, the change from A to B, whether to draw bars. */
export type CompareRow = { label: string; a: number | string; b: number | string; text: [string, string]; delta: string; numeric: boolean; bar: boolean };

const signed = (n: number, show: (n: number) => string) => (n > 0 ? `+${show(n)}` : n < 0 ? `−${show(-n)}` : "0");

/**
 * The Compare table: calls, tokens, cost, compactions, each tool, the files each
 * touched. Cost deltas are taken in whole micro-dollars, never by subtracting floats.
 */
export function compareRows(a: SessionTotals, b: SessionTotals): CompareRow[] {
  const count = (label: string, x: number, y: number, bar = false): CompareRow => ({
    label,
    a: x,
    b: y,
    text: [x.toLocaleString("en-US"), y.toLocaleString("en-US")],
    delta: signed(y - x, (n) => n.toLocaleString("en-US")),
    numeric: true,
    bar,
  });
  const micros = (usd: number | null) => (usd === null ? null : Math.round(usd * 1e6));
  const [ca, cb] = [micros(a.costUsd), micros(b.costUsd)];
  const cost: CompareRow = {
    label: "cost",
    a: a.costUsd ?? "unpriced",
    b: b.costUsd ?? "unpriced",
    text: [formatUsd(a.costUsd), formatUsd(b.costUsd)],
    delta: ca !== null && cb !== null ? signed(cb - ca, (n) => formatUsd(n / 1e6)) : "–",
    numeric: false,
    bar: false,
  };
  const tools = [...new Set([...Object.keys(a.tools), ...Object.keys(b.tools)])].sort();
  const onlyA = a.files.filter((f) => !b.files.includes(f));
  const onlyB = b.files.filter((f) => !a.files.includes(f));
  const files: CompareRow = {
    label: "files written or edited",
    a: a.files.length,
    b: b.files.length,
    text: [a.files.join(", ") || "none", b.files.join(", ") || "none"],
    delta: onlyA.length + onlyB.length === 0 ? "same" : [onlyB.length ? `+${onlyB.join(", ")}` : "", onlyA.length ? `−${onlyA.join(", ")}` : ""].filter(Boolean).join(" "),
    numeric: false,
    bar: false,
  };
  return [
    count("calls", a.calls, b.calls, true),
    count("prompt tokens", a.promptTokens, b.promptTokens, true),
    count("cached tokens", a.cachedTokens, b.cachedTokens, true),
    count("completion tokens", a.completionTokens, b.completionTokens, true),
    cost,
    count("compactions", a.compactions, b.compactions),
    ...tools.map((t) => count(`tool ${t}`, a.tools[t] ?? 0, b.tools[t] ?? 0)),
    files,
  ];
}
