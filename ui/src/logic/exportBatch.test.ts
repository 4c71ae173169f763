// Tests of exportBatch.ts: where each session is written, and the progress and summary lines.
import { describe, expect, it } from "vitest";
import { exportPath, exportProgress, exportSummary, extensionOf } from "./exportBatch";

describe("export of many sessions", () => {
  it("writes each to the folder given, else to the default place", () => {
    expect(exportPath("/tmp/out/", "s1", "html")).toBe("/tmp/out/s1.html");
    expect(exportPath("C:\\out\\", "s1", "json")).toBe("C:\\out/s1.json");
    expect(exportPath("  ", "s1", "markdown")).toBeNull();
    expect(exportPath("/tmp", "s1", "otlp")).toBeNull();
    expect(extensionOf("atif")).toBe("json");
  });
  it("says how far it is and how it ended", () => {
    expect(exportProgress(2, 12)).toBe("Exporting 3 of 12…");
    expect(exportSummary(12, 0, 12)).toBe("12 of 12 sessions exported");
    expect(exportSummary(9, 1, 12)).toBe("9 of 12 sessions exported, 1 failed, 2 not exported (stopped)");
    expect(exportSummary(1, 0, 1)).toBe("1 of 1 session exported");
  });
});
