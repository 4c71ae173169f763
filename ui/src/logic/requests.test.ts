// Tests of requests.ts: source badges, what an agent did not record, the composition bars.
import { describe, expect, it } from "vitest";
import type { CallComposition } from "../bindings";
import { agentName, compositionBars, missingLabel, sourceBadge } from "./requests";

describe("exact and reconstructed requests", () => {
  it("badges every source, exact only where the body is the one sent", () => {
    expect(sourceBadge("alisio")).toMatchObject({ label: "exact", exact: true });
    expect(sourceBadge("agent-log")).toMatchObject({ label: "exact", exact: true });
    expect(sourceBadge("proxy").title).toContain("alisio proxy");
    expect(sourceBadge("reconstructed")).toMatchObject({ label: "reconstructed", exact: false });
  });

  it("names what the agent did not record, with its estimate", () => {
    expect(missingLabel({ part: "tools", estimatedTokens: 3200 }, "codex")).toBe("tools not recorded by Codex: ≈ 3,200 tokens");
    expect(missingLabel({ part: "system", estimatedTokens: 950 }, "opencode")).toBe("system prompt not recorded by OpenCode: ≈ 950 tokens");
    expect(missingLabel({ part: "system", estimatedTokens: 3900 }, "roo")).toBe("system prompt not recorded by Roo Code: ≈ 3,900 tokens");
    expect(agentName(undefined)).toBe("the agent");
  });

  it("stacks each part with its missing estimate on top of what is shown", () => {
    const share = (tokens: number) => ({ chars: tokens * 4, tokens });
    const row: CallComposition = {
      n: 2, purpose: "turn", exact: false, promptTokens: 5000, cachedTokens: 0, cacheBreak: true,
      composition: {
        system: share(0), tools: [{ server: "agent", chars: 0, tokens: 0 }], checkpoint: share(0), injected: share(0),
        user: share(100), assistant: share(50), toolResults: share(800),
      },
      missing: [{ part: "system", estimatedTokens: 1200 }, { part: "tools", estimatedTokens: 2800 }],
    };
    const [bar] = compositionBars([row]);
    expect(bar.segments).toEqual([
      { part: "system", tokens: 1200, missing: true },
      { part: "tools", tokens: 2800, missing: true },
      { part: "user", tokens: 100, missing: false },
      { part: "assistant", tokens: 50, missing: false },
      { part: "toolResults", tokens: 800, missing: false },
    ]);
    expect(bar.total).toBe(4950);
    expect(bar.cacheBreak).toBe(true);
  });
});
