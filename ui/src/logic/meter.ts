// The context meter's words: where the window came from and what the meter is drawn against.
import type { ContextMeter, WindowSource } from "../bindings";
import { formatTokens } from "./format";

/** Where a window came from, as people read it. */
export function windowLabel(source: WindowSource | null): string {
  switch (source) {
    case "provider": return "provider.contextWindow";
    case "profile": return "the profile's contextWindow";
    case "models": return "GET /models";
    case "props": return "llama.cpp /props";
    case "ollama": return "Ollama /api/ps, /api/show";
    case "lmstudio": return "LM Studio /api/v0/models";
    case null: return "unknown";
  }
}

/** What the meter is drawn against, in words (the engine decides which limit: `limitTokens`). */
export function meterLimitLabel(m: ContextMeter): string {
  return m.windowTrusted ? `window ${formatTokens(m.limitTokens)} (${windowLabel(m.windowSource)})` : `maxContextChars / 4 = ${formatTokens(m.limitTokens)}`;
}
