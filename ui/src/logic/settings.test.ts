// Tests of settings.ts: found servers as profiles, values read and written at a path.
import { describe, expect, it } from "vitest";
import { getIn, numberValue, profileName, setIn, withProfile } from "./settings";

describe("found servers", () => {
  it("become an active profile, keeping the other profiles and settings", () => {
    const raw = { provider: { model: "x" }, profiles: { cloud: { model: "big" } } };
    const next = withProfile(raw, { name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1", models: ["qwen"] });
    expect(profileName({ name: "LM Studio" })).toBe("lmstudio");
    expect(next).toEqual({
      provider: { model: "x" },
      profiles: { cloud: { model: "big" }, lmstudio: { baseUrl: "http://127.0.0.1:1234/v1", model: "qwen", apiKeyEnv: null } },
      activeProfile: "lmstudio",
    });
  });
});


describe("settings forms", () => {
  it("reads and writes nested keys without touching the original, and blank removes a key", () => {
    const doc = { provider: { model: "a" }, profiles: { local: { baseUrl: "http://127.0.0.1:8080/v1" } } };
    const next = setIn(doc, ["profiles", "local", "contextWindow"], 8192);
    expect(getIn(next, ["profiles", "local", "contextWindow"])).toBe(8192);
    expect(getIn(next, ["profiles", "local", "baseUrl"])).toBe("http://127.0.0.1:8080/v1");
    expect(getIn(doc, ["profiles", "local", "contextWindow"])).toBeUndefined();
    expect(getIn(setIn(next, ["profiles", "local", "contextWindow"], undefined), ["profiles", "local"])).toEqual({ baseUrl: "http://127.0.0.1:8080/v1" });
    expect(getIn(setIn({}, ["limits", "maxTokens"], 5), ["limits"])).toEqual({ maxTokens: 5 });
    expect(getIn(doc, ["nothing", "here"])).toBeUndefined();
  });

  it("turns number fields into values: blank is unset, garbage is refused", () => {
    expect(numberValue(" 32768 ")).toBe(32768);
    expect(numberValue("")).toBeUndefined();
    expect(numberValue("12k")).toBeNull();
  });
});
