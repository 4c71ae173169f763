// The views of a session, one per tab of the toolbar (Ctrl+1…5), Usage across all (Ctrl+6), the
// session compared with another (Ctrl+7), and the Library of every session (Ctrl+8).
export type Tab = "stored" | "model" | "timeline" | "diffs" | "requests" | "usage" | "compare" | "library";
