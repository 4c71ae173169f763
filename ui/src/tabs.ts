// The views of a session, one per tab of the toolbar (Ctrl+1…5).
export type Tab = "stored" | "model" | "timeline" | "diffs" | "requests";
