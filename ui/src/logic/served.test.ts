// Tests of served.ts: the read-only title and the archive's badge.
import { describe, expect, it } from "vitest";
import { archiveBadge, READ_ONLY, writeBlocked } from "./served";

describe("served mode", () => {
  it("blocks every write served, none in the window", () => {
    expect(writeBlocked(true)).toBe(READ_ONLY);
    expect(READ_ONLY).toBe("Read-only: a team's archive");
    expect(writeBlocked(false)).toBeNull();
  });

  it("names the archive once the server has said which", () => {
    expect(archiveBadge({ archive: "acme" })).toBe("Read-only · team archive acme");
    expect(archiveBadge(null)).toBe("Read-only · team archive");
    expect(archiveBadge({ archive: "" })).toBe("Read-only · team archive");
  });
});
