// Tests of schema.ts: the settings hints read from the engine's schema.
import { describe, expect, it } from "vitest";
import { defaultHint, optionsAt, rangeHint } from "./schema";

describe("settings hints come from the engine's schema", () => {
  it("shows the engine's defaults, ranges and options", () => {
    expect(defaultHint(["compaction", "maxOutputTokens"])).toBe("16000");
    expect(defaultHint(["cacheCompact", "threshold"])).toBe("68");
    expect(defaultHint(["cacheCompact", "summaryMaxTokens"])).toBe("1200");
    expect(defaultHint(["limits", "maxOutputTokens"])).toBe("8192");
    expect(defaultHint(["limits", "maxTokens"])).toBe("none");
    expect(rangeHint(["compaction", "threshold"])).toBe("0.1–0.99");
    expect(rangeHint(["mcpServers", "any", "startupTimeoutMs"])).toBe("100–600000");
    expect(optionsAt(["compaction", "strategy"])).toEqual(["native", "cache", "mask", "hybrid", "prune", "provider"]);
    expect(optionsAt(["profiles", "local", "api"])).toEqual(["chat", "responses", "anthropic"]);
  });
});
