// The engine-event reducer: what a live turn looks like (streamed text, the running session, a
// pending permission, a progress line) and what each event asks the window to do. Pure, so the
// view-logic tests cover it.
import type { ToolCall, UiEvent } from "../bindings";

export type Permission = { id: number; session: string; call: ToolCall; permission: string };

export type LiveState = {
  streaming: string;
  /** The session a turn is running in ("new" until its id is known). */
  running: string | null;
  permission: Permission | null;
  progress: string | null;
  /** A long import's progress line (a followed folder's first reading). */
  importing: string | null;
};

/**
 * What an event asks of the window. `refresh: "append"` — only new messages arrived (a running
 * turn), so the history is not fetched again; `"full"` — earlier rows changed (a compaction).
 */
export type Effect = { refresh?: "append" | "full" | "sessions"; select?: string; notice?: string; error?: string };

export const IDLE: LiveState = { streaming: "", running: null, permission: null, progress: null, importing: null };

export function reduceUiEvent(state: LiveState, event: UiEvent, selected: string | null): [LiveState, Effect] {
  if (event.kind === "permissionRequest") {
    return [{ ...state, permission: { id: event.id, session: event.session, call: event.call, permission: event.permission } }, {}];
  }
  if (event.kind === "imported") {
    // A watched agent appended to its sessions: the shown one grows in place (or reloads when a
    // compaction changed earlier rows); the list is refreshed either way.
    if (selected && event.reload.includes(selected)) return [state, { refresh: "full" }];
    if (selected && event.sessions.includes(selected)) return [state, { refresh: "append" }];
    return [state, { refresh: "sessions" }];
  }
  if (event.kind === "libraryChanged") {
    // Another process (`alisio import`, `run`, `sessions rename`…) changed the library: the list.
    return [state, { refresh: "sessions" }];
  }
  if (event.kind === "importProgress") {
    const p = event.progress;
    if (p.filesDone >= p.files) return [{ ...state, importing: null }, { refresh: "sessions" }];
    const mib = (b: number) => (b / 1048576).toFixed(b < 10 * 1048576 ? 1 : 0);
    const percent = p.bytes > 0 ? Math.floor((100 * p.bytesDone) / p.bytes) : 0;
    return [{ ...state, importing: `Importing ${percent} % — ${p.filesDone.toLocaleString()} of ${p.files.toLocaleString()} files, ${mib(p.bytesDone)} of ${mib(p.bytes)} MiB` }, {}];
  }
  if (event.kind === "turnFinished") {
    return [{ ...state, running: null, streaming: "", progress: null }, { refresh: "append", error: event.error ?? undefined }];
  }
  if (event.kind === "proxy") {
    // A call captured by `alisio proxy` joined a session (or started one): that session grows.
    const p = event.event;
    if (p.type !== "captured") return [state, {}];
    return [state, { refresh: selected === p.session ? "append" : "sessions" }];
  }
  const e = event.envelope;
  switch (e.type) {
    case "text_delta":
      return [{ ...state, streaming: state.streaming + e.text }, {}];
    case "session":
      return [state, selected !== e.id ? { select: e.id } : {}];
    case "compaction_started":
      return [{ ...state, progress: `Compacting (${e.reason})…` }, {}];
    case "tool_started":
      return [{ ...state, progress: `Running ${e.name}…` }, {}];
    case "compaction_skipped":
      return [{ ...state, progress: null }, { refresh: "append", notice: `Nothing compacted: ${e.reason}` }];
    case "mcp_server_failed":
      return [state, { notice: `MCP server ${e.server} is not available: ${e.error}. Its tools are left out of the next request.` }];
    case "compaction_failed":
      return [{ ...state, progress: null }, { refresh: "append", error: `Compaction failed: ${e.error}` }];
    case "model_call":
      return [{ ...state, progress: null, streaming: "" }, { refresh: "append" }];
    case "tool_finished":
      return [{ ...state, progress: null }, { refresh: "append" }];
    case "compaction_completed":
    case "context_reduced":
    case "compaction_reverted":
      return [{ ...state, progress: null }, { refresh: "full" }];
    default:
      return [state, {}];
  }
}
