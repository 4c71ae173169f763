// The window's dialogs, one per file: compact, a proposed checkpoint, import, export (of one
// session, or of many from the Library view), removing sessions, the proxy, the compaction
// bake-off (Settings lives in settings/).
export { BatchExportDialog } from "./BatchExportDialog";
export { BenchDialog } from "./BenchDialog";
export { CompactDialog } from "./CompactDialog";
export { ExportDialog } from "./ExportDialog";
export { ImportDialog } from "./ImportDialog";
export { ProposalDialog } from "./ProposalDialog";
export { ProxyDialog } from "./ProxyDialog";
export { RemoveDialog } from "./RemoveDialog";
