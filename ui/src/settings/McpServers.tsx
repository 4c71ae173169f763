// The MCP servers tab: each server as a card (stdio command or HTTP URL, permission, timeouts,
// enabled) and new servers by name.
import { useState } from "preact/hooks";
import { getIn, type SettingsDoc } from "../logic";
import { SchemaChoice, SchemaNumber, Text, type Edit } from "./fields";

export function McpServers(props: { doc: SettingsDoc; edit: Edit }) {
  const servers = (getIn(props.doc, ["mcpServers"]) ?? {}) as Record<string, Record<string, unknown>>;
  const [name, setName] = useState("");
  return (
    <div class="settings-section">
      {Object.entries(servers).map(([server, s]) => {
        const at = ["mcpServers", server];
        const http = typeof s.url === "string";
        return (
          <fieldset class="card" data-testid="mcp-card">
            <legend>{server}</legend>
            <div class="grid2">
              <label>
                Transport
                <select
                  value={http ? "http" : "stdio"}
                  onChange={(e) => {
                    const toHttp = (e.target as HTMLSelectElement).value === "http";
                    props.edit([...at, toHttp ? "command" : "url"], undefined);
                    props.edit([...at, toHttp ? "url" : "command"], "");
                  }}
                >
                  <option value="stdio">stdio (a command)</option>
                  <option value="http">streamable HTTP (a URL)</option>
                </select>
              </label>
              {http ? (
                <Text doc={props.doc} edit={props.edit} path={[...at, "url"]} label="URL" placeholder="http://127.0.0.1:9000/mcp" />
              ) : (
                <Text doc={props.doc} edit={props.edit} path={[...at, "command"]} label="Command" placeholder="mcp-server-time" />
              )}
              {!http && (
                <label>
                  Arguments (one per line)
                  <textarea
                    rows={2}
                    value={Array.isArray(s.args) ? (s.args as string[]).join("\n") : ""}
                    onInput={(e) => {
                      const lines = (e.target as HTMLTextAreaElement).value.split("\n").filter((l) => l !== "");
                      props.edit([...at, "args"], lines.length ? lines : undefined);
                    }}
                  />
                </label>
              )}
              <SchemaChoice doc={props.doc} edit={props.edit} path={[...at, "permission"]} label="Permission" />
              <SchemaNumber doc={props.doc} edit={props.edit} path={[...at, "startupTimeoutMs"]} label="Startup timeout (ms)" />
              <SchemaNumber doc={props.doc} edit={props.edit} path={[...at, "toolTimeoutMs"]} label="Call timeout (ms)" />
              <label class="check">
                <input type="checkbox" checked={s.enabled !== false} onChange={(e) => props.edit([...at, "enabled"], (e.target as HTMLInputElement).checked ? undefined : false)} />
                enabled
              </label>
            </div>
            <button class="secondary" onClick={() => props.edit(at, undefined)}>
              Remove
            </button>
          </fieldset>
        );
      })}
      <div class="row">
        <input placeholder="server name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} data-testid="new-mcp-name" />
        <button class="secondary" disabled={!name.trim() || name.trim() in servers} onClick={() => { props.edit(["mcpServers", name.trim()], { command: "", permission: "ask" }); setName(""); }} data-testid="add-mcp">
          Add server
        </button>
      </div>
      <p class="muted small">Their tools are offered as mcp__server__tool; `alisio mcp list` shows each server's status and the characters its tools add.</p>
    </div>
  );
}
