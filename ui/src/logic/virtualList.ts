// The virtual list's arithmetic: prefix sums of row heights and the first row in view.

/** Fixed-height-estimate prefix sums for the virtual list. */
export function offsets(heights: number[]): number[] {
  const out = new Array<number>(heights.length + 1);
  out[0] = 0;
  for (let i = 0; i < heights.length; i++) out[i + 1] = out[i] + heights[i];
  return out;
}

/** First index whose row ends below `top` (binary search over prefix sums). */
export function firstVisible(prefix: number[], top: number): number {
  let lo = 0;
  let hi = prefix.length - 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (prefix[mid + 1] <= top) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo);
}
