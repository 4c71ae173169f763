// The views of a session, one per tab of the toolbar (Ctrl+1…5), and Usage across all (Ctrl+6).
export type Tab = "stored" | "model" | "timeline" | "diffs" | "requests" | "usage";
