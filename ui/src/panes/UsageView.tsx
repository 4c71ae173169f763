// Usage (Ctrl+6): what every session cost, own and imported — a chart of cost by day stacked by
// source or model, the table of the grouping picked below it, and the sessions behind a row.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { SessionRef, Source, UsageReport, UsageRequest } from "../bindings";
import { formatUsd, stackedUsage, type UsageDay } from "../logic";
import { PALETTE, UsageChart } from "./UsageChart";

const GROUPS = ["day", "week", "month", "session", "model", "project", "source"] as const;

export function UsageView(props: { onOpen: (session: string) => void; fail: (e: unknown) => void }) {
  const [by, setBy] = useState<(typeof GROUPS)[number]>("day");
  const [stack, setStack] = useState<"source" | "model">("source");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const [report, setReport] = useState<UsageReport | null>(null);
  const [days, setDays] = useState<UsageDay[] | null>(null);
  const [series, setSeries] = useState<string[]>([]);
  const [picked, setPicked] = useState<string | null>(null);
  const [behind, setBehind] = useState<SessionRef[] | null>(null);
  const range: UsageRequest = { by: null, since: since || null, until: until || null, source: null, model: null };

  useEffect(() => {
    setPicked(null);
    setBehind(null);
    api.usageReport({ ...range, by }).then(setReport, props.fail);
  }, [by, since, until]);

  useEffect(() => {
    // The chart: the most costly sources (or models), each by day.
    (async () => {
      const split = await api.usageReport({ ...range, by: stack });
      const keys = split.rows.slice(0, PALETTE.length).map((r) => r.key);
      const each = await Promise.all(
        keys.map((key) => api.usageReport({ ...range, by: "day", source: stack === "source" ? (key as Source) : null, model: stack === "model" ? key : null })),
      );
      setSeries(keys);
      setDays(stackedUsage(keys.map((key, i) => ({ series: key, rows: each[i].rows }))));
    })().catch(props.fail);
  }, [stack, since, until]);

  const open = (key: string) => {
    setPicked(key);
    setBehind(null);
    api.usageSessions({ ...range, by, key }).then(setBehind, props.fail);
  };

  return (
    <div class="usage-view" data-testid="usage-view">
      <div class="pane-head usage-controls">
        <label>
          by{" "}
          <select value={by} onChange={(e) => setBy((e.target as HTMLSelectElement).value as (typeof GROUPS)[number])} data-testid="usage-by">
            {GROUPS.map((g) => <option value={g}>{g}</option>)}
          </select>
        </label>
        <label>
          from <input type="date" value={since} onInput={(e) => setSince((e.target as HTMLInputElement).value)} data-testid="usage-since" />
        </label>
        <label>
          to <input type="date" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} data-testid="usage-until" />
        </label>
        <label>
          chart stacked by{" "}
          <select value={stack} onChange={(e) => setStack((e.target as HTMLSelectElement).value as "source" | "model")} data-testid="usage-stack">
            <option value="source">source</option>
            <option value="model">model</option>
          </select>
        </label>
      </div>
      {report && <UsageTotals report={report} />}
      {days && <UsageChart days={days} series={series} />}
      {days && days.every((d) => d.total === 0) && (
        <div class="muted small" data-testid="usage-unpriced">No priced calls in this range: their models have no price (a local model never has one); `alisio prices update` loads a newer LiteLLM snapshot, config `prices` adds one by hand.</div>
      )}
      {report && <UsageTable report={report} by={by} picked={picked} onOpen={open} />}
      {report && report.rows.length === 0 && <div class="empty">No model calls in this range.</div>}
      {picked !== null && (
        <div class="usage-sessions" data-testid="usage-sessions">
          <div class="muted small">Sessions behind {picked || "–"}:</div>
          {behind === null && <div class="muted small">…</div>}
          {behind?.map((s) => (
            <button class="link" onClick={() => props.onOpen(s.id)} data-testid="usage-session">
              <span class="badge source">{s.source}</span> {s.title} <span class="muted small">{s.project}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** The total of the range, and the models without a price (their cost is left out). */
function UsageTotals(props: { report: UsageReport }) {
  const { report } = props;
  const total = report.total;
  return (
    <>
      {total && (
        <div class="usage-total" data-testid="usage-total">
          <strong>{formatUsd(total.costUsd)}</strong> over {total.calls.toLocaleString("en-US")} calls · cache hit{" "}
          {total.cacheHitRate === null ? "–" : `${(total.cacheHitRate * 100).toFixed(1)} %`} · saved by the cache {formatUsd(total.cacheSavingsUsd)}
          {total.unpricedCalls > 0 && <span class="warning small"> · {total.unpricedCalls} calls unpriced</span>}
        </div>
      )}
      {report.unpricedModels.length > 0 && (
        <div class="usage-unpriced-models small" data-testid="usage-unpriced-models">
          <span class="warning">No price for</span>{" "}
          {report.unpricedModels.map((m, i) => (
            <span>
              {i > 0 && ", "}
              <code>{m.model}</code> <span class="muted">({m.calls.toLocaleString("en-US")} calls)</span>
            </span>
          ))}
          . Their cost is left out, never guessed. To price them: <code>{report.priceHint}</code>
        </div>
      )}
    </>
  );
}

/** One row per group of the grouping picked; a click shows the sessions behind it. */
function UsageTable(props: { report: UsageReport; by: string; picked: string | null; onOpen: (key: string) => void }) {
  const { report, by, picked } = props;
  return (
    <table class="calls usage-table" data-testid="usage-table">
      <thead>
        <tr><th>{by}</th><th>calls</th><th>prompt</th><th>cached</th><th>written</th><th>output</th><th>hit %</th><th>cost</th><th>saved</th><th>unpriced</th><th>sessions</th></tr>
      </thead>
      <tbody>
        {report.rows.map((r) => (
          <tr class={picked === r.key ? "active" : ""} onClick={() => props.onOpen(r.key)} title="Show the sessions behind this row" data-testid="usage-row">
            <td>{r.label ? <span title={r.key}>{r.label}</span> : r.key || "–"}</td>
            <td>{r.calls}</td>
            <td>{r.promptTokens.toLocaleString("en-US")}</td>
            <td>{r.cachedTokens.toLocaleString("en-US")}</td>
            <td>{r.cacheWriteTokens.toLocaleString("en-US")}</td>
            <td>{r.completionTokens.toLocaleString("en-US")}</td>
            <td>{r.cacheHitRate === null ? "–" : (r.cacheHitRate * 100).toFixed(1)}</td>
            <td data-testid="usage-cost">{formatUsd(r.costUsd)}</td>
            <td>{formatUsd(r.cacheSavingsUsd)}</td>
            <td>{r.unpricedCalls || ""}</td>
            <td>{r.sessions}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
