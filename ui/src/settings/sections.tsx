// The small settings tabs: compaction, limits and permissions, each a grid of schema-driven fields.
import { getIn, type SettingsDoc } from "../logic";
import { SchemaChoice, SchemaNumber, type Edit } from "./fields";

export function Compaction(props: { doc: SettingsDoc; edit: Edit }) {
  const f = (path: string[], label: string, step?: string) => <SchemaNumber doc={props.doc} edit={props.edit} path={path} label={label} step={step} />;
  return (
    <div class="settings-section grid2">
      <SchemaChoice doc={props.doc} edit={props.edit} path={["compaction", "strategy"]} label="Strategy" testId="field-compaction.strategy" />
      <label class="check">
        <input type="checkbox" checked={getIn(props.doc, ["compaction", "auto"]) !== false} onChange={(e) => props.edit(["compaction", "auto"], (e.target as HTMLInputElement).checked ? undefined : false)} />
        compact automatically at the threshold
      </label>
      {f(["compaction", "threshold"], "Threshold (share of the window)", "0.01")}
      {f(["compaction", "keepTurns"], "Turns kept verbatim")}
      {f(["compaction", "maxOutputTokens"], "Checkpoint max tokens")}
      {f(["cacheCompact", "threshold"], "Cache strategy: threshold (% of the limit)")}
      {f(["cacheCompact", "contextLimit"], "Cache strategy: context limit (tokens)")}
      {f(["cacheCompact", "summaryMaxTokens"], "Cache strategy: summary max tokens")}
    </div>
  );
}

export function Limits(props: { doc: SettingsDoc; edit: Edit }) {
  const f = (key: string, label: string) => <SchemaNumber doc={props.doc} edit={props.edit} path={["limits", key]} label={label} />;
  return (
    <div class="settings-section grid2">
      {f("maxContextChars", "Hard limit: conversation characters")}
      {f("maxOutputTokens", "Max output tokens per answer")}
      {f("maxStepsPerTurn", "Max model calls per turn")}
      {f("maxTokens", "Token budget per turn (blank: none)")}
    </div>
  );
}

export function Permissions(props: { doc: SettingsDoc; edit: Edit }) {
  return (
    <div class="settings-section grid2">
      <SchemaChoice doc={props.doc} edit={props.edit} path={["permissions", "shell"]} label="shell" testId="permission-shell" />
      <SchemaChoice doc={props.doc} edit={props.edit} path={["permissions", "write"]} label="write_file / edit_file" testId="permission-write" />
      <p class="muted small">MCP servers have their own permission (MCP servers tab).</p>
    </div>
  );
}
