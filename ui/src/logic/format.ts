// Sizes, tokens, money and spans as people read them ("12,345 chars", "1.2k tokens", "$0.004213",
// "#11, #6–#10"), and long text cut for display.
import { CHARS_PER_TOKEN } from "../bindings";

/** "12,345 chars" / "1.2 MB". */
export function formatChars(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M chars`;
  return `${n.toLocaleString("en-US")} chars`;
}

export function formatTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n.toLocaleString("en-US")} tokens`;
}

/** Long outputs are collapsed past this many characters. */
export const COLLAPSE_AT = 1200;

export function preview(text: string, limit = COLLAPSE_AT): { text: string; hidden: number } {
  if (text.length <= limit) return { text, hidden: 0 };
  return { text: text.slice(0, limit), hidden: text.length - limit };
}

/** Estimated tokens for a number of characters, as the engine estimates them. */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A span of seqs in the order given (transcript order), as runs: "#11, #6–#10". */
export function formatSpan(seqs: number[]): string {
  const runs: Array<[number, number]> = [];
  for (const seq of seqs) {
    const last = runs[runs.length - 1];
    if (last && last[1] + 1 === seq) last[1] = seq;
    else runs.push([seq, seq]);
  }
  return runs.map(([a, b]) => (a === b ? `#${a}` : `#${a}–#${b}`)).join(", ");
}

/** USD as people read it: `$0.004213` under a dollar, `$12.35` from one on; `unpriced` for none. */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "unpriced";
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(6)}`;
}

/** `text` cut to `max` characters with an ellipsis. */
export function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
