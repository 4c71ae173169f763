import { describe, expect, it } from "vitest";
import { aboutText } from "./AboutLine";

describe("the About line", () => {
  it("says the release, the commit, the schema and the home", () => {
    expect(aboutText({ version: "0.1.0", commit: "abc123def456", schema: 24, home: "/home/me/.alisio" })).toBe(
      "Alisio 0.1.0 (abc123def456) · schema 24 · home /home/me/.alisio",
    );
  });
});
