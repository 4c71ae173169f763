// Re-reads on the Compactions timeline: the files and commands fetched again after a compaction hid
// their earlier fetch (`alisio calls rereads`), grouped under their compaction with its totals, and
// each one's labels (kind, cost, what held it).
import type { HeldBy, Reread, RereadKind } from "../bindings";
import { formatTokens, formatUsd } from "./format";

/** A compaction's re-reads summed: how many, their tokens, the cost of those priced. */
export type RereadTotal = { count: number; tokens: number; costUsd: number | null; unpriced: number };

/** Re-reads by the compaction that hid their earlier fetch, each list in the API's order. */
export function rereadsByCompaction(rereads: readonly Reread[]): Map<number, Reread[]> {
  const by = new Map<number, Reread[]>();
  for (const r of rereads) {
    const list = by.get(r.compaction);
    if (list) list.push(r);
    else by.set(r.compaction, [r]);
  }
  return by;
}

/** The count, tokens and cost of `rereads`; the cost is null when none of them has a price. */
export function rereadTotal(rereads: readonly Reread[]): RereadTotal {
  let tokens = 0;
  let cost = 0;
  let unpriced = 0;
  for (const r of rereads) {
    tokens += r.tokens;
    if (r.costUsd === null) unpriced += 1;
    else cost += r.costUsd;
  }
  return { count: rereads.length, tokens, costUsd: unpriced === rereads.length ? null : cost, unpriced };
}

/** A re-read's cost: "$0.001200", or "no price" when its model has none. */
export function rereadCost(costUsd: number | null): string {
  return costUsd === null ? "no price" : formatUsd(costUsd);
}

/** "Fetched again after this compaction: 3 (1,234 tokens, $0.001200)"; those without a price are counted apart. */
export function rereadSummary(total: RereadTotal): string {
  const cost = total.costUsd === null ? "no price" : total.unpriced ? `${formatUsd(total.costUsd)} + ${total.unpriced} without a price` : formatUsd(total.costUsd);
  return `Fetched again after this compaction: ${total.count} (${formatTokens(total.tokens)}, ${cost})`;
}

/** The kind's glyph and word. */
export function rereadKind(kind: RereadKind): { icon: string; label: string } {
  return kind === "file" ? { icon: "📄", label: "file" } : { icon: "❯", label: "command" };
}

/** What held the fetched thing after the compaction: its word, why, and whether it was lost. */
export function heldLabel(heldBy: HeldBy | null): { label: string; title: string; lost: boolean } {
  switch (heldBy) {
    case "checkpoint":
      return { label: "checkpoint", title: "The checkpoint named it, yet it was fetched again", lost: false };
    case "trail":
      return { label: "trail only", title: "Only the artifact trail beside the checkpoint named it", lost: false };
    default:
      return { label: "lost", title: "Neither the checkpoint nor the artifact trail named it", lost: true };
  }
}
