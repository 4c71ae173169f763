// The compaction bake-off in the window (`alisio bench compaction`): the arms offered, the request
// built from the dialog's form, the arms ranked (probes kept, then fewer re-processed tokens), and
// the figures as the table and the chart show them.
import type { Arm, CompactionBenchRequest, Probes, Strategy, Tally } from "../bindings";
import { STRATEGY_TEXT } from "./compaction";
import { formatUsd } from "./format";

/** Every arm, in the order the engine runs them; `agent` only for an imported session. */
export const BENCH_ARMS = ["native", "cache", "mask", "hybrid", "prune", "provider", "agent"] as const;

/** The arms that ask the configured model for a summary. */
export const SUMMARIZER_ARMS: readonly string[] = ["native", "cache", "hybrid"];

/** The probe kinds, in the order the table shows them. */
export const PROBE_KINDS = ["file", "instruction", "error", "task"] as const;

/** The arms offered for a session: the agent's own summary only for an imported one. */
export function benchArms(imported: boolean): string[] {
  return BENCH_ARMS.filter((a) => imported || a !== "agent");
}

/** An arm's name as the window shows strategies ("Summary", "Mask", "Agent's own summary"). */
export function armName(strategy: string): string {
  if (strategy === "agent") return "Agent's own summary";
  return STRATEGY_TEXT[strategy as Strategy]?.name ?? strategy;
}

/** The dialog's form: the arms checked and where to compact (number fields as typed). */
export type BenchForm = {
  strategies: string[];
  point: "last" | "at" | "every";
  at: string;
  every: string;
  /** The profile whose model judges the probes that are not facts; "" for none. */
  judge?: string;
};

/** The profiles a judge can be chosen from: the names under `profiles` of the config in force. */
export function judgeProfiles(effective: unknown): string[] {
  const profiles = (effective as { profiles?: unknown } | null)?.profiles;
  return profiles && typeof profiles === "object" ? Object.keys(profiles).sort() : [];
}

/** A whole number ≥ 1 from a field, or null. */
function positive(text: string): number | null {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isInteger(n) && n >= 1 ? n : null;
}

/** The bake-off request for `session` from the form, or what is wrong with the form. */
export function benchRequest(session: string, form: BenchForm): { request: CompactionBenchRequest } | { error: string } {
  // The engine's order, whatever order the boxes were checked in.
  const strategies = BENCH_ARMS.filter((a) => form.strategies.includes(a)) as string[];
  if (strategies.length === 0) return { error: "Check at least one strategy." };
  const request: CompactionBenchRequest = { sessions: [session], strategies };
  if (form.judge) request.judge = form.judge;
  if (form.point === "at") {
    const at = positive(form.at);
    if (at === null) return { error: "The message number is a whole number from 1." };
    request.at = at;
  } else if (form.point === "every") {
    const every = positive(form.every);
    if (every === null) return { error: "Every N messages: N is a whole number from 1." };
    request.every = every;
  }
  return { request };
}

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** What the Run button says while the bake-off runs: how many arms, and which call the model. */
export function benchBusyText(strategies: string[]): string {
  const n = strategies.length;
  const asked = strategies.filter((s) => SUMMARIZER_ARMS.includes(s));
  const model = asked.length > 0 ? `the summarizer is asked for ${listed(asked)}` : "no model call";
  return `Comparing ${n} strateg${n === 1 ? "y" : "ies"}… ${model}`;
}

/** Kept over total as a whole percentage; null with no probes. */
export function keptPercent(t: Tally): number | null {
  return t.total > 0 ? Math.round((100 * t.kept) / t.total) : null;
}

/** "3/4", or "—" with no probes of that kind. */
export function tallyText(t: Tally | undefined): string {
  return t && t.total > 0 ? `${t.kept}/${t.total}` : "—";
}

/** "12/14 (86 %)" (", 2 by the judge" when a judge model vouched for some), or "—" with no probes. */
export function probesText(p: Probes): string {
  const pct = keptPercent(p);
  if (pct === null) return "—";
  const judged = p.judged > 0 ? `, ${p.judged} by the judge` : "";
  return `${p.kept}/${p.total} (${pct} %)${judged}`;
}

/** The probes by kind: file, instruction, error, task, then any other kind the engine adds (A→Z). */
export function kindBreakdown(p: Probes): Array<{ kind: string; text: string; tally: Tally | undefined }> {
  const known: readonly string[] = PROBE_KINDS;
  const others = Object.keys(p.byKind).filter((k) => !known.includes(k)).sort();
  return [...known, ...others].map((kind) => ({ kind, text: tallyText(p.byKind[kind]), tally: p.byKind[kind] }));
}

/** An arm's cost: "$0.004213", or "no price" when a model has none. */
export function benchCost(costUsd: number | null): string {
  return costUsd === null ? "no price" : formatUsd(costUsd);
}

/** The share of probes kept, 0 with none. */
function share(a: Arm): number {
  return a.probes.total > 0 ? a.probes.kept / a.probes.total : 0;
}

/**
 * Best first: arms that ran before arms that ran at no point, then the larger share of probes
 * kept, then fewer re-processed tokens, then a smaller next request; otherwise the engine's order.
 */
export function rankArms(arms: Arm[]): Arm[] {
  return arms
    .map((arm, i) => ({ arm, i }))
    .sort(
      (a, b) =>
        Number(b.arm.points > 0) - Number(a.arm.points > 0) ||
        share(b.arm) - share(a.arm) ||
        a.arm.reprocessedTokens - b.arm.reprocessedTokens ||
        a.arm.nextRequestTokens - b.arm.nextRequestTokens ||
        a.i - b.i,
    )
    .map((x) => x.arm);
}

/** The best arm's strategy: most probes kept, ties to fewer re-processed tokens; null when none ran. */
export function bestArm(arms: Arm[]): string | null {
  const first = rankArms(arms)[0];
  return first && first.points > 0 ? first.strategy : null;
}

/** Which tokens the chart's second bar shows. */
export type BenchMeasure = "next" | "reprocessed";

/** One row of the bake-off chart. */
export type BenchBar = { strategy: string; name: string; keptPct: number | null; tokens: number; best: boolean };

/** The chart's rows, best first, with the tokens of `measure`. */
export function benchBars(arms: Arm[], measure: BenchMeasure): BenchBar[] {
  const best = bestArm(arms);
  return rankArms(arms).map((a) => ({
    strategy: a.strategy,
    name: armName(a.strategy),
    keptPct: keptPercent(a.probes),
    tokens: measure === "next" ? a.nextRequestTokens : a.reprocessedTokens,
    best: a.strategy === best,
  }));
}

/** The chart's token scale: the largest bar; never zero. */
export function benchMax(bars: BenchBar[]): number {
  return Math.max(1, ...bars.map((b) => b.tokens));
}
