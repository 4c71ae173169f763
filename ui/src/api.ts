// Typed calls into the backend. Every type comes from the generated bindings.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type {
  CallCache,
  CallDetail,
  CallSummary,
  CompactOutcome,
  CompactRequest,
  ConfigDocument,
  ConnectionReport,
  ExportResult,
  FoundServer,
  ImportOutcome,
  ContextMeter,
  JsonValue,
  ModelViewPage,
  PastRequest,
  RecoverReport,
  RequestDiff,
  SessionSummary,
  SourceSummary,
  StoredMessage,
  StoredView,
  TrimmedDiff,
  UiEvent,
} from "./bindings";

export const api = {
  ensureDemo: () => invoke<string | null>("ensure_demo"),
  listSessions: () => invoke<SessionSummary[]>("list_sessions"),
  storedView: (session: string, limit: number | null) => invoke<StoredView>("stored_view", { session, limit }),
  storedViewSince: (session: string, anchor: number, seq: number) => invoke<StoredView>("stored_view_since", { session, anchor, seq }),
  olderMessages: (session: string, anchor: number, seq: number, limit: number) =>
    invoke<StoredMessage[]>("older_messages", { session, anchor, seq, limit }),
  newerMessages: (session: string, anchor: number, seq: number, limit: number) =>
    invoke<StoredMessage[]>("newer_messages", { session, anchor, seq, limit }),
  messagesAround: (session: string, seq: number, limit: number) => invoke<StoredMessage[]>("messages_around", { session, seq, limit }),
  modelViewPage: (session: string, offset: number, limit: number) => invoke<ModelViewPage>("model_view_page", { session, offset, limit }),
  pastRequest: (session: string, call: number) => invoke<PastRequest>("past_request", { session, call }),
  contextMeter: (session: string) => invoke<ContextMeter>("context_meter", { session }),
  trimmedDiff: (session: string, seq: number) => invoke<TrimmedDiff>("trimmed_diff", { session, seq }),
  compact: (request: CompactRequest) => invoke<CompactOutcome>("compact", { request }),
  applyProposal: (session: string, proposal: number, edited: string | null) =>
    invoke<CompactOutcome>("apply_proposal", { session, proposal, edited }),
  discardProposal: (session: string, proposal: number) => invoke<void>("discard_proposal", { session, proposal }),
  undoCompaction: (session: string) => invoke<number[]>("undo_compaction", { session }),
  acknowledgeUncertain: (session: string) => invoke<RecoverReport>("acknowledge_uncertain", { session }),
  runTurn: (session: string | null, prompt: string) => invoke<string>("run_turn", { session, prompt }),
  cancelTurn: (session: string) => invoke<boolean>("cancel_turn", { session }),
  answerPermission: (id: number, approve: boolean) => invoke<void>("answer_permission", { id, approve }),
  getConfig: () => invoke<ConfigDocument>("get_config"),
  saveConfig: (raw: JsonValue) => invoke<ConfigDocument>("save_config", { raw }),
  findServers: () => invoke<FoundServer[]>("find_servers"),
  testConnection: (raw: JsonValue) => invoke<ConnectionReport>("test_connection", { raw }),
  callList: (session: string) => invoke<CallSummary[]>("call_list", { session }),
  callDetail: (session: string, n: number) => invoke<CallDetail>("call_detail", { session, n }),
  requestDiff: (session: string, n: number, against: number | null) => invoke<RequestDiff>("request_diff", { session, n, against }),
  cacheReport: (session: string) => invoke<CallCache[]>("cache_report", { session }),
  importSources: () => invoke<SourceSummary[]>("import_sources"),
  importPaths: (paths: string[]) => invoke<ImportOutcome>("import_paths", { paths }),
  exportSession: (session: string, format: "markdown" | "json" | "otlp", path: string | null, redact: boolean) =>
    invoke<ExportResult>("export_session", { session, format, path, redact }),
  exportChart: (session: string, format: "svg" | "png", data: string) => invoke<string>("export_chart", { session, format, data }),
};

export function onUiEvent(handler: (event: UiEvent) => void): Promise<UnlistenFn> {
  return listen<UiEvent>("alisio://event", (e) => handler(e.payload));
}

/** The human message of an IPC error (or anything thrown). */
export function errorMessage(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return String(error);
}
