// Generated from the Rust types by alisio-api (src-tauri/crates/api/src/bindings.rs). Do not edit.
// Regenerate: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type Role = "system" | "user" | "assistant" | "tool";

export type ToolCall = { 
/**
 * Provider-assigned call id, kept byte for byte.
 */
id: string, name: string, 
/**
 * The JSON arguments exactly as the model produced them.
 */
arguments: string, };

export type Api = "chat" | "responses" | "anthropic";

export type Strategy = "native" | "cache" | "mask" | "hybrid" | "prune" | "provider";

export type Permission = "allow" | "ask" | "deny";

export type Session = { id: SessionId, title: string, workspace: string, createdAt: string, updatedAt: string, 
/**
 * The agent an imported session was read from; absent for Alisio's own sessions, which are
 * the only ones `run` and `compact` may change.
 */
source?: SourceKind, sourcePath?: string, 
/**
 * The session and message this one was forked from.
 */
forkedFrom?: ForkedFrom, };

export type Removed = { session: SessionId, title: string, messages: number, calls: number, };

export type SessionId = string;

export type SessionSummary = { id: SessionId, 
/**
 * The title shown: the one given in Alisio if the session was renamed, else the agent's own
 * (its title record, else its first real prompt) or the one Alisio chose.
 */
title: string, 
/**
 * The agent's own title, when the session was renamed in Alisio (kept apart, unchanged).
 */
agentTitle?: string, workspace: string, liveMessages: number, compactedMessages: number, uncertainToolCalls: number, 
/**
 * Tool calls running now in the live process that drives the session.
 */
runningToolCalls: number, 
/**
 * Reported by the server over the session's calls (replays left out).
 */
promptTokens: number, cachedTokens: number, completionTokens: number, 
/**
 * Model calls the session made or recorded (replays left out).
 */
calls: number, 
/**
 * Applied checkpoints, and the characters applied compactions and reductions took out of the
 * request (an estimate of tokens saved is a quarter of that).
 */
compactions: number, savedChars: number, createdAt: string, lastActivity: string, source?: SourceKind, sourcePath?: string, 
/**
 * The workspace (an imported session's working directory), as usage and search group by it.
 */
project: string, 
/**
 * What the session's calls cost, USD rounded to the micro-dollar (summed in integer
 * picodollars by `cost::usage`); `null` when none of them has a price.
 */
costUsd: number | null, 
/**
 * Calls whose model has no price (not in `costUsd`).
 */
unpricedCalls: number, 
/**
 * Sub-agent sessions this one started.
 */
subagents: number, 
/**
 * The session that started this one (a sub-agent's), or null.
 */
parent: string | null, 
/**
 * In a team's archive: the machine that pushed it, and who.
 */
machine?: string, user?: string, };

export type Purpose = "turn" | "compaction" | "cache-summary" | "replay" | "probe" | "side";

export type WireApi = "chat" | "responses" | "messages";

export type JournalEntry = { id: number, callId: string, name: string, arguments: string, assistantSeq: number, state: JournalState, ok: boolean | null, resultSeq: number | null, outputBytes: number | null, droppedBytes: number, lossy: boolean, requestedAt: string, startedAt: string | null, finishedAt: string | null, acknowledgedAt: string | null, 
/**
 * The process group a `shell` call ran in.
 */
pgid: number | null, };

export type JournalState = "requested" | "started" | "finished" | "uncertain" | "acknowledged" | "running";

export type ModelCallRecord = { id: number, purpose: Purpose, api: WireApi, model: string, messageRanges: JsonValue, params: JsonValue, toolCatalogChars: number, requestChars: number, estimatedTokens: number, promptTokens: number | null, cachedTokens: number | null, completionTokens: number | null, promptMs: number | null, ttftMs: number | null, durationMs: number | null, finishReason: string | null, error: string | null, responseSeq: number | null, startedAt: string, 
/**
 * Where its request body comes from.
 */
requestSource: RequestSource, 
/**
 * Input written to the prompt cache (priced apart from input and cache reads).
 */
cacheWriteTokens: number | null, 
/**
 * The reason the agent itself recorded for a cache miss (Claude Code's `cache_miss_reason`).
 */
agentCacheReason: string | null, 
/**
 * The part of `cache_write_tokens` written to a 1-hour cache.
 */
cacheWrite1hTokens: number | null, 
/**
 * What the agent itself recorded this call cost, in picodollars.
 */
recordedCostPd: number | null, 
/**
 * Requests the row stands for: 1, or several an agent recorded only as a total.
 */
requests: number, 
/**
 * Parts the agent's request log names but never wrote: its body cannot be whole.
 */
requestGaps: number, 
/**
 * The service tier it was billed at (`batch`, `flex`, `priority`), when not the standard one.
 */
serviceTier: string | null, };

export type CompactionDocument = { id: number, kind: Kind, reason: CompactionReason, focus: string | null, status: Status, partial: boolean, 
/**
 * What the checkpoint says: `{"sections": {…}}` (a summarizer's, with its plugins' fields) or
 * `{"text": "…"}` (an agent's own or a cache hand-off); `{}` for a reduction or a masking.
 */
checkpoint: Checkpoint, summarizedRanges: JsonValue, summarizedMessages: number, summarizedChars: number, checkpointChars: number, beforeChars: number, afterChars: number, pluginReports: JsonValue, pluginFields: JsonValue, injectContext: JsonValue, modelCallId: number | null, createdAt: string, appliedAt: string | null, revertedAt: string | null, 
/**
 * A checkpoint's fidelity; null for reductions and records made before it was kept.
 */
fidelity: Fidelity | null, 
/**
 * Why it fired; null for records made before it was kept.
 */
trigger: Trigger | null, };

export type Kind = "checkpoint" | "reduction";

export type Status = "proposed" | "applied" | "discarded" | "reverted";

export type Trigger = { kind: TriggerKind, 
/**
 * The request's tokens when it fired: the server's count where one was reported, else the
 * estimate.
 */
promptTokens: number | null, 
/**
 * The window those tokens were measured against.
 */
window: number | null, 
/**
 * The share of the window at which it fires.
 */
threshold: number | null, };

export type TriggerKind = "threshold" | "manual" | "overflow" | "budget" | "mask";

export type WireItem = { role: string, content: string, } | { role: string, content: string | null, tool_calls: Array<ChatCall>, } | { role: string, tool_call_id: string | null, content: string, } | { type: string, call_id: string, name: string, arguments: string, } | { type: string, call_id: string | null, output: string, } | { role: string, content: Array<JsonValue>, } | JsonValue;

export type ChatCall = { id: string, type: string, function: ChatFunction, };

export type ChatFunction = { name: string, arguments: string, };

export type ModelView = { session: string, api: Api, model: string, messages: Array<WireItem>, toolCatalogChars: number, 
/**
 * What each source of tools adds to the request: `builtin`, then each ready MCP server.
 */
toolCatalog: Array<CatalogShare>, chars: number, estimatedTokens: number, 
/**
 * An imported session's view: what that agent would send next, rebuilt from its records.
 */
reconstructed: boolean, 
/**
 * What that agent sends that its records leave out, with estimated sizes.
 */
missing: Array<MissingPart>, };

export type StoredView = { session: Session, messages: Array<StoredMessage>, 
/**
 * Whether older messages exist before `messages` (a page from the end of a long session).
 */
hasOlder: boolean, compactions: Array<CompactionView>, toolCalls: Array<JournalEntry>, modelCalls: Array<ModelCallRecord>, 
/**
 * The session and message a fork came from; null for any other session.
 */
forkedFrom: ForkedFrom | null, 
/**
 * The session (and its call) that started this one, for a sub-agent's session; null otherwise.
 */
parent: ParentLink | null, };

export type StoredMessage = { seq: number, anchor: number, role: Role, kind: MessageKind, content: string, chars: number, toolCalls: Array<ToolCall>, toolCallId: string | null, compacted: boolean, summary: boolean, truncated: boolean, 
/**
 * A recovered "result unknown", or an assistant message whose call is still uncertain.
 */
uncertain: boolean, reverted: boolean, createdBy: number | null, compactedBy: number | null, createdAt: string, 
/**
 * An imported message: the source record's id, verbatim.
 */
sourceId?: string, 
/**
 * What the source record holds beyond the mapped fields (exit codes, flags, raw parts).
 */
meta?: Record<string, unknown>, 
/**
 * Kept in the stored view, never part of the model's view (a sub-agent's record, a local
 * command's output).
 */
offView: boolean, };

export type CompactionView = { summarizedSeqs: Array<number>, id: number, kind: Kind, reason: CompactionReason, focus: string | null, status: Status, partial: boolean, 
/**
 * What the checkpoint says: `{"sections": {…}}` (a summarizer's, with its plugins' fields) or
 * `{"text": "…"}` (an agent's own or a cache hand-off); `{}` for a reduction or a masking.
 */
checkpoint: Checkpoint, summarizedRanges: JsonValue, summarizedMessages: number, summarizedChars: number, checkpointChars: number, beforeChars: number, afterChars: number, pluginReports: JsonValue, pluginFields: JsonValue, injectContext: JsonValue, modelCallId: number | null, createdAt: string, appliedAt: string | null, revertedAt: string | null, 
/**
 * A checkpoint's fidelity; null for reductions and records made before it was kept.
 */
fidelity: Fidelity | null, 
/**
 * Why it fired; null for records made before it was kept.
 */
trigger: Trigger | null, };

export type MessageKind = "system" | "user" | "assistant" | "toolResult" | "checkpoint" | "injectedContext" | "pinned";

export type Envelope = { v: number, session: string, ts: string, } & ({ "type": "session", id: string, } | { "type": "compaction_started", reason: CompactionReason, focus: string | null, } | { "type": "compaction_completed", reason: CompactionReason, partial: boolean, before: Size, after: Size, summarizedMessages: number, summarizedChars: number, checkpointChars: number, pluginReports: Array<JsonValue>, 
/**
 * What the checkpoint kept of the history it replaced.
 */
fidelity: Fidelity | null, } | { "type": "compaction_skipped", reason: string, } | { "type": "compaction_failed", error: string, } | { "type": "context_reduced", messages: number, } | { "type": "compaction_proposed", proposal: number, partial: boolean, checkpoint: Checkpoint, 
/**
 * What the proposed checkpoint would keep of the history it replaces.
 */
fidelity: Fidelity | null, } | { "type": "compaction_reverted", compactions: Array<number>, } | { "type": "plugin_hook_failed", plugin: string, hook: string, error: string, } | { "type": "telemetry_failed", endpoint: string, error: string, } | { "type": "mcp_server_failed", server: string, error: string, } | { "type": "tool_started", callId: string, name: string, } | { "type": "tool_finished", callId: string, name: string, ok: boolean, } | { "type": "model_call", promptTokens: number | null, cachedTokens: number | null, completionTokens: number | null, ttftMs: number | null, durationMs: number, requestChars: number, } | { "type": "text_delta", text: string, } | { "type": "turn_completed", text: string, } | { "type": "error", message: string, });

export type Event = { "type": "session", id: string, } | { "type": "compaction_started", reason: CompactionReason, focus: string | null, } | { "type": "compaction_completed", reason: CompactionReason, partial: boolean, before: Size, after: Size, summarizedMessages: number, summarizedChars: number, checkpointChars: number, pluginReports: Array<JsonValue>, 
/**
 * What the checkpoint kept of the history it replaced.
 */
fidelity: Fidelity | null, } | { "type": "compaction_skipped", reason: string, } | { "type": "compaction_failed", error: string, } | { "type": "context_reduced", messages: number, } | { "type": "compaction_proposed", proposal: number, partial: boolean, checkpoint: Checkpoint, 
/**
 * What the proposed checkpoint would keep of the history it replaces.
 */
fidelity: Fidelity | null, } | { "type": "compaction_reverted", compactions: Array<number>, } | { "type": "plugin_hook_failed", plugin: string, hook: string, error: string, } | { "type": "telemetry_failed", endpoint: string, error: string, } | { "type": "mcp_server_failed", server: string, error: string, } | { "type": "tool_started", callId: string, name: string, } | { "type": "tool_finished", callId: string, name: string, ok: boolean, } | { "type": "model_call", promptTokens: number | null, cachedTokens: number | null, completionTokens: number | null, ttftMs: number | null, durationMs: number, requestChars: number, } | { "type": "text_delta", text: string, } | { "type": "turn_completed", text: string, } | { "type": "error", message: string, };

export type CompactionReason = "manual" | "auto" | "budget" | "cache" | "unknown" | "mask" | "prune" | "provider";

export type Size = { chars: number, tokens: number, };

export type SessionDiff = { sharedMessages: number, 
/**
 * Null when the transcripts are the same.
 */
firstDivergence: SessionDivergence | null, a: SessionTotals, b: SessionTotals, 
/**
 * The aligned transcripts (`--json` leaves them out: `sessions show` has them).
 */
messages?: [Array<AlignedMessage>, Array<AlignedMessage>], };

export type SessionTotals = { calls: number, promptTokens: number, cachedTokens: number, completionTokens: number, 
/**
 * The priced calls' cost; null when none has a price.
 */
costUsd: number | null, 
/**
 * Compactions applied (checkpoints and maskings).
 */
compactions: number, 
/**
 * Tool calls by tool name.
 */
tools: { [key in string]: number }, 
/**
 * Files written or edited, as the workspace names them.
 */
files: Array<string>, };

export type SessionDivergence = { a: number | null, b: number | null, before: string | null, after: string | null, };

export type AlignedMessage = { seq: number, role: Role, text: string, 
/**
 * Tool names this message calls.
 */
calls: Array<string>, summary: boolean, };

export type ForkedFrom = { session: string, seq: number, };

export type CompactOutcome = { "outcome": "completed", compaction: number, partial: boolean, } | { "outcome": "proposed", proposal: number, partial: boolean, checkpoint: Checkpoint, rendered: string, fidelity: Fidelity, } | { "outcome": "skipped", reason: string, } | { "outcome": "failed", error: string, };

export type StrategyPreview = { strategy: Strategy, 
/**
 * The strategy a compaction without a choice runs (`compaction.strategy`).
 */
isDefault: boolean, 
/**
 * None when the strategy can run now; otherwise why it cannot.
 */
unavailable: string | null, beforeTokens: number, 
/**
 * The request afterwards, without the checkpoint the model writes (`checkpointMaxTokens`).
 */
afterTokens: number, 
/**
 * The model writes a checkpoint of at most this many tokens, added to `afterTokens`.
 */
checkpointMaxTokens: number | null, 
/**
 * The size of the session's newest checkpoint, in tokens: what a new one is likely to be.
 */
checkpointLastTokens: number | null, 
/**
 * Tokens the summarizer call reads (none when no model is asked).
 */
summarizerTokens: number | null, 
/**
 * Messages a checkpoint replaces.
 */
summarized: number, 
/**
 * Tool results replaced by placeholders.
 */
masked: number, 
/**
 * Tool outputs and answers that lose lines.
 */
pruned: number, 
/**
 * The pinned block carried after a checkpoint, in tokens.
 */
pinnedTokens: number, };

export type Checkpoint = { sections?: Record<string, string | Array<string>>, text?: string, 
/**
 * Values of the fields plugins asked for, by field name.
 */
pluginFields?: Record<string, JsonValue>, };

export type ProbeReport = { compaction: number, 
/**
 * Always true: these answers are the model's, not checked rules.
 */
modelJudged: boolean, 
/**
 * The two ledger calls (full history, compacted view).
 */
calls: Array<number>, answers: Array<ProbeAnswer>, 
/**
 * The mean agreement of the answers.
 */
agreement: number, };

export type ProbeAnswer = { key: string, question: string, full: string, compacted: string, 
/**
 * Shared significant words over all significant words of both answers (Jaccard), 0–1.
 */
agreement: number, };

export type RecoverReport = { session: string, 
/**
 * Calls whose uncertainty was recorded as their result.
 */
acknowledged: Array<JournalEntry>, 
/**
 * Calls that never started, answered as not run.
 */
notRun: Array<JournalEntry>, 
/**
 * Leftover process groups of uncertain calls that were still running and were killed first.
 */
killed: Array<string>, };

export type TurnOutcome = { session: string, text: string, steps: number, };

export type BakeOff = { arms: Array<Arm>, };

export type Arm = { strategy: string, 
/**
 * The points it ran at (skipped ones not counted: see `skipped`).
 */
points: number, probes: Probes, summarizerTokensIn: number, summarizerTokensOut: number, 
/**
 * The request after the compaction, as Alisio estimates it.
 */
nextRequestTokens: number, 
/**
 * Tokens a prefix cache holding the request before would process again: the summarizer's
 * request and the next one, each past the prefix it shares with the request before.
 */
reprocessedTokens: number, 
/**
 * The summarizer call and the next request at the prices in force; null when a model has none.
 */
costUsd: number | null, 
/**
 * Points where the arm could not compact, with why.
 */
skipped: Array<string>, };

export type Probes = { total: number, kept: number, 
/**
 * Of `kept`, those the judge model (`--judge`) vouched for where the exact check missed.
 */
judged: number, 
/**
 * By probe kind: `file`, `instruction`, `error`, `task`.
 */
byKind: { [key in string]: Tally }, };

export type Tally = { total: number, kept: number, };

export type Rereads = { rereads: Array<Reread>, };

export type Reread = { 
/**
 * The compaction that hid the earlier fetch.
 */
compaction: number, kind: RereadKind, 
/**
 * The file's workspace path, or the command.
 */
target: string, 
/**
 * The message that asked for the earlier fetch, and the one that fetched it again.
 */
seqBefore: number, seqAfter: number, 
/**
 * The result fetched again (estimated from its characters).
 */
tokens: number, 
/**
 * Those tokens as uncached input of the call that first carried them, at its model's price
 * on its day; `null` when that model has no price (or no call carried them yet).
 */
costUsd: number | null, heldBy: HeldBy | null, };

export type RereadKind = "file" | "command";

export type HeldBy = "checkpoint" | "trail";

export type CallSummary = { n: number, purpose: Purpose, startedAt: string, requestChars: number, promptTokens: number | null, cachedTokens: number | null, completionTokens: number | null, ttftMs: number | null, durationMs: number | null, finishReason: string | null, error: string | null, requestSource: RequestSource, 
/**
 * The body shown is the one that was sent (`requestSource` other than `reconstructed`).
 */
exact: boolean, model: string, 
/**
 * Input written to the prompt cache.
 */
cacheWriteTokens: number | null, 
/**
 * What the call cost at the price in force on its date; `null` for a model without a price.
 */
costUsd: number | null, 
/**
 * What its cached tokens would have cost as input, minus what they cost.
 */
cacheSavingsUsd: number | null, 
/**
 * The part of `cacheWriteTokens` written to a 1-hour cache.
 */
cacheWrite1hTokens: number | null, 
/**
 * What the agent itself recorded the call cost, when it did.
 */
recordedCostUsd: number | null, 
/**
 * Requests the row stands for: 1, or several the agent recorded only as a total.
 */
requests: number, };

export type CallDetail = { n: number, purpose: Purpose, request: JsonValue, response: JsonValue | null, requestSource: RequestSource, exact: boolean, 
/**
 * Parts the agent sent but did not record (a reconstructed request), with estimated sizes.
 */
missing: Array<MissingPart>, 
/**
 * What an exact body from an agent's own log leaves out (Claude Code: `metadata`, `stream`,
 * the billing-header line).
 */
omitted: Array<string>, composition: Composition, };

export type CallDiff = { n: number, against: number, commonPrefixChars: number, againstChars: number, commonPrefixTokens: number, cachedTokens: number | null, cacheBreak: boolean, firstDivergence: Divergence, 
/**
 * Characters of request `n` in rendering order (system, tools, messages).
 */
newChars: number, 
/**
 * Messages (system excluded) at the same index in both requests and equal.
 */
sameMessages: number, 
/**
 * Messages added, removed or changed, by index in the request.
 */
messageChanges: Array<MessageChange>, toolChanges: ToolChanges, paramChanges: Array<ParamChange>, 
/**
 * Why the cache broke or missed (`null`: it did not).
 */
cause: BreakCause | null, 
/**
 * The cause the agent itself recorded, when it did.
 */
agentReason: string | null, 
/**
 * Tokens of `against` the server had to process again.
 */
lostTokens: number | null, 
/**
 * Those tokens priced as input minus as cached input.
 */
missCostUsd: number | null, };

export type Divergence = { 
/**
 * `system`, `tools`, `messages`, `params` or `none`.
 */
part: string, 
/**
 * The message's index in the request's `messages` (or `input`), or the tool's index.
 */
index: number | null, 
/**
 * JSON pointer inside that item.
 */
path: string, before: string, after: string, };

export type CallCache = { n: number, cacheBreak: boolean, commonPrefixTokens: number, cachedTokens: number | null, };

export type MessageChange = { index: number, 
/**
 * `added`, `removed` or `changed`.
 */
change: string, role: string, 
/**
 * The message's text (its content, or the whole item as JSON when it has no text content).
 */
before: string | null, after: string | null, };

export type ToolChanges = { added: Array<string>, removed: Array<string>, changed: Array<string>, 
/**
 * The same tools in another order (a reordered catalog breaks a prefix cache).
 */
reordered: boolean, };

export type ParamChange = { key: string, before: JsonValue | null, after: JsonValue | null, };

export type ReplayReport = { 
/**
 * The replay's own number in the ledger.
 */
n: number, replayOf: number, model: string, original: JsonValue | null, replay: JsonValue | null, };

export type CallComposition = { n: number, purpose: Purpose, exact: boolean, composition: Composition, missing: Array<MissingPart>, promptTokens: number | null, cachedTokens: number | null, 
/**
 * The request's prefix differs from the one before (a prompt cache cannot be reused).
 */
cacheBreak: boolean, };

export type Composition = { system: Share, tools: Array<ToolShare>, checkpoint: Share, injected: Share, user: Share, assistant: Share, toolResults: Share, };

export type Share = { chars: number, tokens: number, };

export type ToolShare = { 
/**
 * `builtin` (Alisio's own), the MCP server's name, or `agent` (another agent's own tools).
 */
server: string, chars: number, tokens: number, };

export type MissingPart = { 
/**
 * `system` | `tools` | `params`
 */
part: string, 
/**
 * An estimate from the tokens the agent recorded for the call, less what is shown.
 */
estimatedTokens: number, };

export type RequestSource = "alisio" | "agent-log" | "proxy" | "reconstructed";

export type ImportReport = { imported: Array<ImportedSession>, errors: Array<ImportFailure>, 
/**
 * Files in an agent's folders that hold no session Alisio reads, with why.
 */
unread: Array<Unread>, };

export type ImportedSession = { id: SessionId, source: SourceKind, path: string, sourceId: string, title: string, messages: number, toolCalls: number, compactions: number, skipped: Array<Skipped>, };

export type ImportFailure = { path: string, error: string, };

export type Unread = { path: string, reason: string, };

export type ParentLink = { session: SessionId, call: number | null, };

export type Skipped = { line: Position, reason: string, };

export type Position = number | string;

export type SourceKind = "codex" | "claude-code" | "opencode" | "kilo" | "qwen-code" | "pi" | "copilot-cli" | "gemini-cli" | "cline" | "roo" | "atif" | "proxy";

export type SourceSummary = { sessions: number, imported: number, source: SourceKind, path: string, exists: boolean, };

export type SourceLocation = { source: SourceKind, path: string, exists: boolean, };

export type Progress = { files: number, filesDone: number, 
/**
 * Bytes of the files found, and how many of them have been read (a file found up to date
 * counts whole).
 */
bytes: number, bytesDone: number, 
/**
 * The file being read.
 */
path: string, };

export type Fidelity = { 
/**
 * `(checked - missing) / checked`; 1.0 when there was nothing to check.
 */
score: number, checked: number, missing: Array<Missing>, 
/**
 * Each pin, kept when the request after the checkpoint carries it verbatim.
 */
pins?: Array<PinKept>, };

export type Missing = { kind: MissingKind, value: string, 
/**
 * The messages of the replaced span where it appears.
 */
seqs: Array<number>, why: string, 
/**
 * The checkpoint section that should carry it.
 */
section: string, };

export type MissingKind = "file" | "instruction" | "error" | "task";

export type LintReport = { compaction: number, status: Status, reason: CompactionReason, 
/**
 * `(checked - missing) / checked`; 1.0 when there was nothing to check.
 */
score: number, checked: number, missing: Array<Missing>, 
/**
 * Each pin, kept when the request after the checkpoint carries it verbatim.
 */
pins?: Array<PinKept>, };

export type ModelViewPage = { session: string, api: Api, model: string, totalRows: number, offset: number, rows: Array<Array<WireItem>>, toolCatalogChars: number, toolCatalog: Array<CatalogShare>, chars: number, estimatedTokens: number, reconstructed: boolean, missing: Array<MissingPart>, };

export type FoundServer = { 
/**
 * What usually listens on that port (a suggestion for the profile's name).
 */
name: string, baseUrl: string, models: Array<string>, 
/**
 * The window the server reports for its first model, and where it came from.
 */
contextWindow: number | null, windowSource: WindowSource | null, };

export type WindowSource = "provider" | "profile" | "models" | "props" | "ollama" | "lmstudio";

export type ModelsReport = { baseUrl: string, model: string, 
/**
 * `provider.contextWindow` as configured.
 */
configuredContextWindow: number | null, 
/**
 * What the server reports (`/models`, `/props`, Ollama, LM Studio), whatever the configuration says.
 */
reportedContextWindow: number | null, 
/**
 * The window in force, and the source that gave it.
 */
contextWindow: number | null, windowSource: WindowSource | null, profile: string | null, 
/**
 * The model ids the server lists.
 */
modelIds: Array<string>, 
/**
 * The server's `/models` document as received.
 */
models: JsonValue, };

export type ExportFormat = "markdown" | "json" | "html" | "otlp" | "atif";

export type ChartFormat = "svg" | "png";

export type CatalogShare = { 
/**
 * `builtin`, `tool_search`, or the MCP server's name.
 */
server: string, 
/**
 * Tools sent.
 */
tools: number, chars: number, 
/**
 * Tools of this server not sent: they wait behind `tool_search` (the catalog's budget).
 */
deferred: number, };

export type ServerStatus = { name: string, 
/**
 * The same name, under the key `toolCatalog` uses.
 */
server: string, transport: Transport, status: ServerState, error: string | null, permission: Permission, tools: Array<ToolStatus>, };

export type ServerState = "ready" | "failed" | "disabled";

export type Transport = "stdio" | "http";

export type ToolStatus = { 
/**
 * The name offered to the model.
 */
name: string, 
/**
 * The server's own name for it.
 */
tool: string, 
/**
 * Characters this tool adds to the request's tool catalog.
 */
chars: number, };

export type ApiError = { code: ErrorCode, message: string, };

export type ErrorCode = "invalid" | "notFound" | "uncertain" | "busy" | "provider" | "budget" | "database" | "cancelled" | "failed";

export type UiEvent = { "kind": "engine", envelope: Envelope, } | { "kind": "permissionRequest", id: number, session: string, call: ToolCall, permission: string, } | { "kind": "turnFinished", session: string, error: string | null, } | { "kind": "imported", sessions: Array<SessionId>, reload: Array<SessionId>, } | { "kind": "importProgress", progress: Progress, } | { "kind": "proxy", event: ProxyEvent, } | { "kind": "libraryChanged", };

export type Nothing = Record<symbol, never>;

export type SessionRequest = { session: string, };

export type SessionsFilter = { 
/**
 * Only sessions of this project (the workspace or the agent's working directory).
 */
project?: string, 
/**
 * Only sessions from alisio, codex, claude-code, opencode, proxy, …
 */
source?: Source, };

export type RenameRequest = { session: string, title?: string, };

export type About = { version: string, commit: string, 
/**
 * `$ALISIO_HOME`.
 */
home: string, 
/**
 * The newest database schema this release reads.
 */
schema: number, };

export type CompactionBenchRequest = { 
/**
 * Sessions (ids or unique prefixes), own or imported.
 */
sessions: Array<string>, 
/**
 * Compact after this message (default: after the last one).
 */
at?: number, 
/**
 * Compact after every N-th message.
 */
every?: number, 
/**
 * The arms: native, cache, mask, hybrid, prune, provider, agent (default: every strategy, and `agent`
 * when a session is imported).
 */
strategies?: Array<string>, 
/**
 * A profile whose model judges the probes that are not facts (constraints, the latest
 * request) where the exact check missed them.
 */
judge?: string, };

export type PushRequest = { 
/**
 * The archive (a key of `archives`); none: the only one configured.
 */
to?: string, 
/**
 * Say what would be sent; send nothing.
 */
dryRun: boolean, };

export type ArchiveUsageRequest = { archive: string | null, by: string | null, since: string | null, until: string | null, source: string | null, model: string | null, };

export type ArchiveSearchRequest = { archive: string | null, query: string, fts: boolean, source: string | null, project: string | null, role: string | null, machine: string | null, user: string | null, limit: number | null, };

export type PushReport = { 
/**
 * Sessions with something new.
 */
sessions: number, messages: number, calls: number, 
/**
 * Secrets redacted from what was sent.
 */
redactions: number, 
/**
 * The archive, the machine and the user it was sent as.
 */
archive: string, machine: string, user: string, 
/**
 * Nothing was written: what would have been sent.
 */
dryRun: boolean, };

export type ArchiveSearch = { hits: Array<ArchiveHit>, total: number, };

export type ArchiveHit = { machine: string, user: string, session: string, seq: number, role: string, 
/**
 * `alisio` for Alisio's own, else the import source.
 */
source: string, 
/**
 * The session's workspace (an imported session's working directory).
 */
project: string, at: string, 
/**
 * The matching text around the terms, the terms between `[` and `]`.
 */
snippet: string, title: string, };

export type TokenRequest = { archive?: string, 
/**
 * A name for the token (create).
 */
label?: string, 
/**
 * The token to revoke (revoke).
 */
id?: number, };

export type NewToken = { id: number, label: string, token: string, };

export type TokenInfo = { id: number, label: string, createdAt: string, revokedAt: string | null, };

export type StoredRequest = { session: string, limit: number | null, };

export type PageRequest = { session: string, anchor: number, seq: number, limit: number, };

export type SinceRequest = { session: string, anchor: number, seq: number, };

export type AroundRequest = { session: string, seq: number, limit: number, };

export type ModelPageRequest = { session: string, offset: number, limit: number, };

export type MessageRequest = { session: string, seq: number, };

export type ContextMeter = { 
/**
 * The strategy in force ([`strategy_in_force`]).
 */
strategy: Strategy, windowTokens: number | null, windowSource: WindowSource | null, 
/**
 * False when no window is known or it is reported above [`WINDOW_TRUST_LIMIT`] tokens: the
 * character budget decides.
 */
windowTrusted: boolean, 
/**
 * The limit the meter is drawn against: the trusted window, else `maxContextChars` in tokens.
 */
limitTokens: number, 
/**
 * The trigger in force, a fraction of `limitTokens` ([`threshold_in_force`]).
 */
threshold: number, maxContextChars: number, reducibleChars: number, toolCatalogChars: number, estimatedTokens: number, 
/**
 * `estimatedTokens` over `limitTokens`, at most 1.
 */
used: number, 
/**
 * The tool catalog's share of `limitTokens`, at most 1.
 */
catalog: number, 
/**
 * Whether the next request is at or past the trigger.
 */
over: boolean, };

export type RunTurn = { 
/**
 * Continue this session (id or unique prefix); none starts a new one.
 */
session: string | null, prompt: string, 
/**
 * The workspace of a new session (default: the current directory).
 */
workspace?: string, };

export type PermissionAnswer = { id: number, approve: boolean, };

export type CompactRequest = { session: string, focus: string | null, 
/**
 * Store a proposed checkpoint and hide nothing.
 */
preview: boolean, 
/**
 * `native`, `cache`, `mask` or `hybrid`; none: `compaction.strategy` (by hand, `cache` summarizes natively).
 */
strategy?: Strategy, };

export type ApplyProposal = { session: string, proposal: number, 
/**
 * The checkpoint as edited: JSON with the seven sections, or plain text.
 */
edited: string | null, };

export type ProposalRequest = { session: string, proposal: number, };

export type CheckpointRequest = { session: string, checkpoint: number | null, };

export type ForkRequest = { session: string, 
/**
 * The message after which the fork branches.
 */
at: number, 
/**
 * Default: "Fork of <title> at #<at>".
 */
title?: string, 
/**
 * Where its tools work. Default: the source's workspace when it is a folder here, else the
 * current directory (an imported session may come from another machine).
 */
workspace?: string, };

export type Forked = { id: string, workspace: string, forkedFrom: ForkedFrom, 
/**
 * Messages it starts with.
 */
messages: number, 
/**
 * The source's call whose exact request (the agent's log, or the proxy) it starts from;
 * null when it starts from the transcript as rebuilt.
 */
fromCall: number | null, };

export type SessionDiffRequest = { a: string, b: string, 
/**
 * The aligned transcripts too (the Compare view).
 */
messages?: boolean, };

export type CallRequest = { session: string, n: number, };

export type DiffRequest = { session: string, n: number, against: number | null, };

export type LedgerRowRequest = { session: string, call: number, };

export type RequestDiff = { diff: CallDiff, lines: Array<MessageLines>, };

export type MessageLines = { index: number, lines: Array<DiffLine>, };

export type PastRequest = { call: ModelCallRecord, messages: Array<WireItem>, };

export type ProxyStart = { 
/**
 * The model server requests go to (`https://api.openai.com`, `http://127.0.0.1:8080`…).
 */
upstream: string, 
/**
 * Where to listen (default `127.0.0.1:8788`; port 0 picks a free one).
 */
listen: string | null, };

export type ProxyStatus = { running: boolean, 
/**
 * The base URL to paste into the agent's configuration.
 */
address: string | null, upstream: string | null, captured: number, 
/**
 * The newest calls captured (session, number, path, status, tokens), newest last.
 */
recent: Array<ProxyEvent>, errors: Array<string>, };

export type ProxyEvent = { "type": "listening", address: string, } | { "type": "captured", session: string, n: number, path: string, status: number, promptTokens: number | null, cachedTokens: number | null, } | { "type": "error", message: string, };

export type ImportPaths = { 
/**
 * Files or directories (walked); none: the agents' default locations that exist.
 */
paths: Array<string>, };

export type ImportOutcome = { report: ImportReport, 
/**
 * The files and directories searched (the default locations that exist, when none were given).
 */
searched: Array<string>, unknown: Array<string>, 
/**
 * The formats Alisio reads, for the message about `unknown` paths.
 */
formats: string, };

export type ExportRequest = { session: string, format: ExportFormat, 
/**
 * Where to write a document; none: `$ALISIO_HOME/exports/<session>.<ext>`.
 */
path: string | null, 
/**
 * Hand the document back instead of writing it (the CLI prints it).
 */
asText?: boolean, redact: boolean, 
/**
 * More to redact: literal strings, or regexes written `/…/` (`--redact-extra`).
 */
extra?: Array<string>, 
/**
 * Findings of the review (their numbers) the user un-marked as false positives.
 */
unmark?: Array<number>, };

export type ChartRequest = { session: string, format: ChartFormat, 
/**
 * SVG text, or PNG bytes as base64.
 */
data: string, };

export type ExportOutcome = { 
/**
 * The session's full id.
 */
session: string, exported: Exported, 
/**
 * What redaction replaced (`3 secrets redacted (…)`); none when it was off.
 */
redactions: string | null, 
/**
 * Each secret replaced: kind, where, a masked preview.
 */
findings: Array<Finding>, 
/**
 * One line for people.
 */
summary: string, };

export type Exported = { "to": "file", path: string, } | { "to": "text", text: string, } | { "to": "traces" } & SentTraces;

export type ExportReview = { session: string, findings: Array<Finding>, total: number, summary: string, };

export type SentTraces = { spans: number, traces: number, endpoint: string, };

export type Finding = { kind: string, where: string, preview: string, };

export type ConfigDocument = { path: string, 
/**
 * The user's config file as stored (unknown keys included).
 */
raw: JsonValue, 
/**
 * The configuration in force, every default filled in (with `--config` and `--profile`).
 */
effective: JsonValue, 
/**
 * The profile in force, when one is.
 */
profile: string | null, };

export type RawConfig = { raw: JsonValue, };

export type TrimmedDiff = { 
/**
 * The reduced copy the model got, and the stored original.
 */
seq: number, originalSeq: number, toolCallId: string | null, originalChars: number, reducedChars: number, cutChars: number, 
/**
 * Characters of the original beyond the diff window (not diffed, only counted).
 */
beyondWindowChars: number, lines: Array<DiffLine>, };

export type DiffLine = { tag: LineTag, oldLine: number | null, newLine: number | null, text: string, };

export type LineTag = "equal" | "delete" | "insert" | "skipped";

export type SearchHit = { session: string, seq: number, role: string, 
/**
 * `alisio` for Alisio's own, else the import source.
 */
source: string, 
/**
 * The session's workspace (an imported session's working directory).
 */
project: string, at: string, 
/**
 * The matching text around the terms, the terms between `[` and `]`.
 */
snippet: string, title: string, };

export type SearchResult = { hits: Array<SearchHit>, 
/**
 * Every match, beyond the hits shown.
 */
total: number, };

export type SearchRequest = { 
/**
 * Plain text (every token matched literally, in any order), or FTS5 syntax with `fts`.
 */
query: string, source?: Source, project?: string, limit?: number, 
/**
 * The query is FTS5 syntax: words, "phrases", prefix*, AND / OR / NOT.
 */
fts?: boolean, 
/**
 * Plain text: the last token also matches the words it begins (search as you type).
 */
prefix?: boolean, 
/**
 * `user`, `assistant`, `tool` or `summary`.
 */
role?: string, 
/**
 * Messages calling this tool, and their results.
 */
tool?: string, 
/**
 * Inside this session (an id or a unique prefix).
 */
session?: string, 
/**
 * `YYYY-MM-DD`: messages from that day on.
 */
since?: string, 
/**
 * `YYYY-MM-DD`: messages up to the end of that day.
 */
until?: string, };

export type CacheBreak = { n: number, 
/**
 * The call it is compared with (the previous call of its chain).
 */
against: number, cause: BreakCause, 
/**
 * The cause the agent itself recorded (Claude Code's `cache_miss_reason`), or the server
 * stated (Anthropic's cache diagnostics, `provider.cacheDiagnostics`), when one did.
 */
agentReason: string | null, 
/**
 * Tokens of the previous request the server had to process again.
 */
lostTokens: number, 
/**
 * Those tokens priced as input minus as cached input; `null` for a model without a price.
 */
missCostUsd: number | null, 
/**
 * Where the request first differs (for a structural break).
 */
divergence: Divergence | null, };

export type BreakCause = "system" | "tools" | "messages" | "model" | "params" | "expired" | "compaction" | "unknown";

export type CompactionCost = { compaction: number, 
/**
 * The summary call's number in the ledger (`null`: none recorded).
 */
n: number | null, promptTokens: number, cachedTokens: number, summaryCostUsd: number | null, 
/**
 * The same tokens with none read from the cache.
 */
rebuiltCostUsd: number | null, savedUsd: number | null, };

export type UsageReport = { by: UsageBy, rows: Array<UsageRow>, total: UsageRow, 
/**
 * The models of `total.unpricedCalls`, most calls first.
 */
unpricedModels: Array<UnpricedModel>, 
/**
 * What prices them, when some are unpriced.
 */
priceHint: string | null, };

export type UsageRow = { key: string, 
/**
 * What the key stands for where it is an id (a session's title).
 */
label: string | null, calls: number, promptTokens: number, cachedTokens: number, cacheWriteTokens: number, completionTokens: number, 
/**
 * The priced calls' cost; `null` when none of the group's calls has a price.
 */
costUsd: number | null, cacheSavingsUsd: number | null, 
/**
 * Cached over prompt tokens; `null` without prompt tokens.
 */
cacheHitRate: number | null, 
/**
 * Calls whose model has no price on their date (their cost is not in `costUsd`).
 */
unpricedCalls: number, 
/**
 * Sessions behind the group.
 */
sessions: number, };

export type UsageBy = "day" | "week" | "month" | "session" | "model" | "project" | "source" | "user" | "machine";

export type SessionRef = { id: string, title: string, 
/**
 * The workspace (an imported session's working directory).
 */
project: string, 
/**
 * `alisio` for Alisio's own, else the import source.
 */
source: string, };

export type UsageRequest = { 
/**
 * `day` (default), `week`, `month`, `session`, `model`, `project` or `source`.
 */
by: string | null, 
/**
 * `YYYY-MM-DD`: calls from that day on.
 */
since: string | null, 
/**
 * `YYYY-MM-DD`: calls up to the end of that day.
 */
until: string | null, 
/**
 * `alisio`, `codex`, `claude-code`, `opencode`, `proxy`, …
 */
source: Source | null, 
/**
 * Only calls to this model.
 */
model: string | null, 
/**
 * With `by: session`, count a sub-agent's calls in the session that started it.
 */
foldSubagents?: boolean, };

export type UsageRowRequest = { key: string, 
/**
 * `day` (default), `week`, `month`, `session`, `model`, `project` or `source`.
 */
by: string | null, 
/**
 * `YYYY-MM-DD`: calls from that day on.
 */
since: string | null, 
/**
 * `YYYY-MM-DD`: calls up to the end of that day.
 */
until: string | null, 
/**
 * `alisio`, `codex`, `claude-code`, `opencode`, `proxy`, …
 */
source: Source | null, 
/**
 * Only calls to this model.
 */
model: string | null, 
/**
 * With `by: session`, count a sub-agent's calls in the session that started it.
 */
foldSubagents?: boolean, };

export type UnpricedModel = { model: string, calls: number, };

export type Source = "alisio" | SourceKind | "proxy";

export type PriceShown = { model: string, 
/**
 * The form of the id that found its entries (the id as written, lower case, when none did).
 */
normalized: string, entry: ShownEntry | null, why: string, 
/**
 * Every entry of that id, oldest first (the one in force among them).
 */
history: Array<ShownEntry>, };

export type ShownEntry = { pattern: string, 
/**
 * `YYYY-MM-DD`, or null: from always.
 */
since: string | null, source: string, origin: Origin, bands: Array<ShownRates>, tiers: Array<ShownTier>, 
/**
 * Prompt tokens the rates apply above (bands only).
 */
above: number | null, input: number, cachedInput: number, cacheWrite: number, cacheWrite1h: number, output: number, };

export type ShownRates = { 
/**
 * Prompt tokens the rates apply above (bands only).
 */
above: number | null, input: number, cachedInput: number, cacheWrite: number, cacheWrite1h: number, output: number, };

export type ShownTier = { tier: Tier, bands: Array<ShownRates>, 
/**
 * Prompt tokens the rates apply above (bands only).
 */
above: number | null, input: number, cachedInput: number, cacheWrite: number, cacheWrite1h: number, output: number, };

export type Tier = "batch" | "flex" | "priority";

export type Origin = "table" | "overlay" | "update" | "config";

export type Counts = { 
/**
 * Ids with no entry before.
 */
added: number, 
/**
 * Ids whose price differs: a dated entry added.
 */
changed: number, unchanged: number, };

export type PriceShowRequest = { 
/**
 * A model id as an agent or a gateway writes it.
 */
model: string, 
/**
 * `YYYY-MM-DD` (default: today).
 */
at?: string, };

export type PriceUpdateRequest = { 
/**
 * A LiteLLM `model_prices_and_context_window.json`.
 */
file: string, 
/**
 * `YYYY-MM-DD`: the day its changed prices take effect (default: today).
 */
since?: string, };

export type Pin = { id: number, 
/**
 * The message pinned; `None` for a sentence.
 */
seq: number | null, text: string, };

export type PinKept = { id: PinId, kept: boolean, };

export type PinId = number | string;

export type PinRequest = { session: string, 
/**
 * Pin this message (its text as stored now)…
 */
seq: number | null, 
/**
 * …or this sentence.
 */
text: string | null, };

export type PinRemove = { session: string, id: number, };

/** Every agent Alisio reads, from the engine's one table: its source name, name and badge. */
export const AGENTS: ReadonlyArray<{ source: SourceKind; name: string; badge: string }> = [
  { source: "claude-code", name: "Claude Code", badge: "CC" },
  { source: "codex", name: "Codex", badge: "CX" },
  { source: "opencode", name: "OpenCode", badge: "OC" },
  { source: "kilo", name: "Kilo Code", badge: "KI" },
  { source: "gemini-cli", name: "Gemini CLI", badge: "GE" },
  { source: "qwen-code", name: "Qwen Code", badge: "QW" },
  { source: "pi", name: "pi", badge: "PI" },
  { source: "copilot-cli", name: "Copilot CLI", badge: "GH" },
  { source: "cline", name: "Cline", badge: "CL" },
  { source: "roo", name: "Roo Code", badge: "RO" },
  { source: "atif", name: "ATIF", badge: "AT" },
];

/** The checkpoint's sections, in order: [JSON key, heading]. */
export const CHECKPOINT_SECTIONS: ReadonlyArray<readonly [string, string]> = [
  ["goal", "Goal"],
  ["instructions", "User instructions/constraints"],
  ["discoveries", "Discoveries"],
  ["accomplished", "Accomplished"],
  ["currentState", "Current state"],
  ["nextSteps", "Next steps"],
  ["relevantFiles", "Relevant files"],
];

/** Windows reported above this many tokens are not trusted. */
export const WINDOW_TRUST_LIMIT = 2000000;

/** Characters per token in every estimate. */
export const CHARS_PER_TOKEN = 4;

/** The heading of the block of pins a compaction carries after its checkpoint. */
export const PINNED_HEADING = "## Pinned";
