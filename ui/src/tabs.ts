// The views of a session, one per tab of the toolbar (Ctrl+1…5), Usage across all (Ctrl+6), and
// the session compared with another (Ctrl+7).
export type Tab = "stored" | "model" | "timeline" | "diffs" | "requests" | "usage" | "compare";
