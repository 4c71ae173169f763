// Exporting: a format's file extension, where each of many sessions is written, and the progress
// and summary lines of an export of several sessions.
import type { ExportFormat } from "../bindings";

/** The extension of a document of `format` (OTLP writes no file: "md" is never used for it). */
export function extensionOf(format: ExportFormat): string {
  return format === "json" || format === "atif" ? "json" : format === "html" ? "html" : "md";
}

/**
 * Where one of many sessions is written: `<folder>/<session>.<ext>`, or null (the engine's default,
 * `exports/<session>.<ext>` in Alisio's data folder) when no folder is given or nothing is written.
 */
export function exportPath(folder: string, session: string, format: ExportFormat): string | null {
  const dir = folder.trim().replace(/[\\/]+$/, "");
  if (!folder.trim() || format === "otlp") return null;
  return `${dir}/${session}.${extensionOf(format)}`;
}

/** "Exporting 3 of 12…": `done` finished so far. */
export function exportProgress(done: number, total: number): string {
  return `Exporting ${Math.min(done + 1, total)} of ${total}…`;
}

/** One line at the end: how many were exported, failed, or left when stopped. */
export function exportSummary(exported: number, failed: number, total: number): string {
  const left = total - exported - failed;
  const parts = [`${exported} of ${total} session${total === 1 ? "" : "s"} exported`];
  if (failed) parts.push(`${failed} failed`);
  if (left) parts.push(`${left} not exported (stopped)`);
  return parts.join(", ");
}
