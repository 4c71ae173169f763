// What the bake-off found, best first: per arm the points it ran at, the probes it kept (in all and
// by kind), the summarizer's tokens, the next request, what a prefix cache would process again and
// the dollars, with the points it skipped under it; then the same as a chart.
import { useState } from "preact/hooks";
import type { Arm } from "../bindings";
import { armName, benchCost, bestArm, kindBreakdown, PROBE_KINDS, probesText, rankArms, type BenchMeasure } from "../logic";
import { BenchChart } from "./BenchChart";

const COLUMNS = 7 + PROBE_KINDS.length;
const n = (tokens: number) => tokens.toLocaleString("en-US");

export function BenchResults(props: { arms: Arm[] }) {
  const [measure, setMeasure] = useState<BenchMeasure>("next");
  const best = bestArm(props.arms);
  if (props.arms.length === 0) return <div class="muted">No arm ran.</div>;
  return (
    <div class="bench-results" data-testid="bench-results">
      <div class="bench-table-wrap">
        <table class="bench-table small" data-testid="bench-table">
          <thead>
            <tr>
              <th>Strategy</th>
              <th title="Points it compacted at (skipped ones not counted)">Points</th>
              <th title="Probes the request after it still answers">Probes kept</th>
              {PROBE_KINDS.map((k) => (
                <th title={`${k} probes kept`}>{k}</th>
              ))}
              <th title="The summarizer's tokens in / out, as the server reported them">Summarizer in / out</th>
              <th title="The request after the compaction, as Alisio estimates it">Next request</th>
              <th title="Tokens a prefix cache holding the request before would process again">Re-processed</th>
              <th title="The summarizer call and the next request at the prices in force">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rankArms(props.arms).map((a) => (
              <ArmRows key={a.strategy} arm={a} best={a.strategy === best} />
            ))}
          </tbody>
        </table>
      </div>
      <div class="row bench-chart-head">
        <strong>Probes kept against</strong>
        <select value={measure} onChange={(e) => setMeasure((e.target as HTMLSelectElement).value as BenchMeasure)} aria-label="Tokens shown" data-testid="bench-measure">
          <option value="next">the next request's tokens</option>
          <option value="reprocessed">the tokens re-processed</option>
        </select>
      </div>
      <BenchChart arms={props.arms} measure={measure} />
    </div>
  );
}

/** One arm's row, and the points it skipped (with why) under it. */
function ArmRows(props: { arm: Arm; best: boolean }) {
  const a = props.arm;
  return (
    <>
      <tr class={props.best ? "best" : ""} data-testid="bench-arm" data-strategy={a.strategy} data-best={props.best ? "true" : undefined}>
        <td>
          {props.best && <span class="badge best" title="Most probes kept; on a tie, fewer tokens re-processed" data-testid="bench-best">best</span>} {armName(a.strategy)}
        </td>
        <td class="num">{a.points}</td>
        <td class="num" title={kindBreakdown(a.probes).map((k) => `${k.kind} ${k.text}`).join(" · ")} data-testid="bench-probes">
          {probesText(a.probes)}
        </td>
        {kindBreakdown(a.probes)
          .filter((k) => (PROBE_KINDS as readonly string[]).includes(k.kind))
          .map((k) => (
            <td class="num" data-kind={k.kind}>{k.text}</td>
          ))}
        <td class="num">
          {n(a.summarizerTokensIn)} / {n(a.summarizerTokensOut)}
        </td>
        <td class="num">{n(a.nextRequestTokens)}</td>
        <td class="num">{n(a.reprocessedTokens)}</td>
        <td class={`num ${a.costUsd === null ? "muted" : ""}`}>{benchCost(a.costUsd)}</td>
      </tr>
      {a.skipped.length > 0 && (
        <tr class="bench-skipped" data-testid="bench-skipped" data-strategy={a.strategy}>
          <td colSpan={COLUMNS}>
            <span class="muted">Skipped:</span>
            {a.skipped.map((why) => (
              <div class="warning small">{why}</div>
            ))}
          </td>
        </tr>
      )}
    </>
  );
}
