// Tests of meter.ts: the context meter's limit label.
import { describe, expect, it } from "vitest";
import type { ContextMeter } from "../bindings";
import { meterLimitLabel } from "./meter";

describe("meterLimitLabel", () => {
  const base: ContextMeter = {
    strategy: "native", windowTokens: 10_000, windowSource: "models", windowTrusted: true, limitTokens: 10_000, threshold: 0.85,
    maxContextChars: 800_000, reducibleChars: 30_000, toolCatalogChars: 4_000, estimatedTokens: 8_500, used: 0.85, catalog: 0.1, over: true,
  };
  it("names the window the engine measured against, or the character fallback", () => {
    expect(meterLimitLabel(base)).toBe("window 10.0k tokens (GET /models)");
    expect(meterLimitLabel({ ...base, windowTokens: 5_000_000, windowTrusted: false, limitTokens: 200_000 })).toBe("maxContextChars / 4 = 200.0k tokens");
  });
});
