// The window's dialogs, one per file: compact, a proposed checkpoint, import, export, the proxy
// (Settings lives in settings/).
export { CompactDialog } from "./CompactDialog";
export { ExportDialog } from "./ExportDialog";
export { ImportDialog } from "./ImportDialog";
export { ProposalDialog } from "./ProposalDialog";
export { ProxyDialog } from "./ProxyDialog";
