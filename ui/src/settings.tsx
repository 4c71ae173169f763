// Settings: forms over the config file (profiles, compaction, limits, permissions, MCP servers),
// checked by the engine exactly as the CLI checks them before anything is written; the JSON stays
// editable under Advanced. Keys are never shown or stored: a profile names the variable only.
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { errorMessage } from "./events";
import type { FoundServer, JsonValue, ModelsReport } from "./bindings";
import { Dialog } from "./components";
import { defaultHint, getIn, numberValue, optionsAt, profileName, rangeHint, setIn, windowLabel, withProfile, type SettingsDoc } from "./logic";

type Tab = "profiles" | "compaction" | "limits" | "permissions" | "mcp" | "advanced";
const TABS: [Tab, string][] = [
  ["profiles", "Profiles"],
  ["compaction", "Compaction"],
  ["limits", "Limits"],
  ["permissions", "Permissions"],
  ["mcp", "MCP servers"],
  ["advanced", "Advanced (JSON)"],
];

type Edit = (path: string[], value: unknown) => void;

export function SettingsDialog(props: { onClose: () => void; onSaved: () => void }) {
  const [doc, setDoc] = useState<SettingsDoc>({});
  const [path, setPath] = useState("");
  const [effective, setEffective] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>("profiles");
  const [json, setJson] = useState("");
  const [tests, setTests] = useState<Record<string, ModelsReport | string>>({});
  useEffect(() => {
    api.configGet({}).then((d) => {
      setDoc((d.raw ?? {}) as SettingsDoc);
      setEffective(JSON.stringify(d.effective, null, 2));
      setPath(d.path);
    }).catch((e) => setMessage(errorMessage(e)));
  }, []);
  const edit: Edit = (at, value) => setDoc((d) => setIn(d, at, value));
  /** The document being edited (the JSON text when Advanced is open); null when it does not parse. */
  const current = (): SettingsDoc | null => {
    if (tab !== "advanced") return doc;
    try {
      return JSON.parse(json || "{}");
    } catch (e) {
      setMessage(`Not valid JSON: ${errorMessage(e)}`);
      return null;
    }
  };
  const switchTo = (next: Tab) => {
    if (next === tab) return;
    if (tab === "advanced") {
      const parsed = current();
      if (parsed === null) return;
      setDoc(parsed);
    }
    if (next === "advanced") setJson(JSON.stringify(doc, null, 2));
    setTab(next);
  };
  const save = async (next: SettingsDoc, saved: string) => {
    try {
      const d = await api.configSave({ raw: next as JsonValue });
      setDoc(next);
      if (tab === "advanced") setJson(JSON.stringify(next, null, 2));
      setEffective(JSON.stringify(d.effective, null, 2));
      setMessage(saved);
      props.onSaved();
    } catch (e) {
      setMessage(`Not saved: ${errorMessage(e)}`);
    }
  };
  const test = async (profile: string | null) => {
    const base = current();
    if (base === null) return;
    const key = profile ?? "";
    setTests((t) => ({ ...t, [key]: "Connecting…" }));
    try {
      const report = await api.configTestConnection({ raw: { ...base, activeProfile: profile } as JsonValue });
      setTests((t) => ({ ...t, [key]: report }));
    } catch (e) {
      setTests((t) => ({ ...t, [key]: errorMessage(e) }));
    }
  };
  return (
    <Dialog title="Settings" onClose={props.onClose} testId="settings-dialog">
      <p class="muted small">{path} — checked like the CLI checks it; nothing is written until it is valid.</p>
      <div class="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button role="tab" class={tab === id ? "tab active" : "tab"} aria-selected={tab === id} onClick={() => switchTo(id)} data-testid={`settings-tab-${id}`}>
            {label}
          </button>
        ))}
      </div>
      {tab === "profiles" && (
        <Profiles
          doc={doc}
          edit={edit}
          tests={tests}
          onTest={test}
          onFound={(server) => {
            const next = withProfile(doc, server);
            save(next, `Profile "${profileName(server)}" saved and active: ${server.baseUrl}, model ${server.models[0] ?? "default"}.`);
          }}
        />
      )}
      {tab === "compaction" && <Compaction doc={doc} edit={edit} />}
      {tab === "limits" && <Limits doc={doc} edit={edit} />}
      {tab === "permissions" && <Permissions doc={doc} edit={edit} />}
      {tab === "mcp" && <McpServers doc={doc} edit={edit} />}
      {tab === "advanced" && (
        <textarea class="editor" value={json} onInput={(e) => setJson((e.target as HTMLTextAreaElement).value)} data-testid="settings-editor" />
      )}
      {message && <div class="notice" data-testid="settings-message">{message}</div>}
      <div class="row">
        <button
          onClick={() => {
            const next = current();
            if (next !== null) save(next, "Saved.");
          }}
          data-testid="settings-save"
        >
          Save
        </button>
      </div>
      <details>
        <summary>Effective configuration (defaults filled in)</summary>
        <pre class="content">{effective}</pre>
      </details>
    </Dialog>
  );
}

/** A text field bound to `path`; blank removes the key. */
function Text(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; placeholder?: string; list?: string; testId?: string }) {
  const value = getIn(props.doc, props.path);
  return (
    <label>
      {props.label}
      <input
        value={typeof value === "string" ? value : ""}
        placeholder={props.placeholder}
        list={props.list}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          props.edit(props.path, text === "" ? undefined : text);
        }}
        data-testid={props.testId}
      />
    </label>
  );
}

/** A number field bound to `path`; blank means the default (shown as the placeholder). */
function NumberField(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; placeholder?: string; step?: string; testId?: string }) {
  const value = getIn(props.doc, props.path);
  const [text, setText] = useState(typeof value === "number" ? String(value) : "");
  const [bad, setBad] = useState(false);
  return (
    <label>
      {props.label}
      <input
        inputMode="decimal"
        step={props.step}
        value={text}
        placeholder={props.placeholder}
        aria-invalid={bad}
        onInput={(e) => {
          const typed = (e.target as HTMLInputElement).value;
          setText(typed);
          const n = numberValue(typed);
          setBad(n === null);
          if (n !== null) props.edit(props.path, n);
        }}
        data-testid={props.testId}
      />
      {bad && <span class="small warn">not a number</span>}
    </label>
  );
}

function Choice(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; options: string[]; fallback: string; testId?: string }) {
  const value = getIn(props.doc, props.path);
  return (
    <label>
      {props.label}
      <select value={typeof value === "string" ? value : props.fallback} onChange={(e) => props.edit(props.path, (e.target as HTMLSelectElement).value)} data-testid={props.testId}>
        {props.options.map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

function Profiles(props: {
  doc: SettingsDoc;
  edit: Edit;
  tests: Record<string, ModelsReport | string>;
  onTest: (profile: string | null) => void;
  onFound: (server: FoundServer) => void;
}) {
  const profiles = (getIn(props.doc, ["profiles"]) ?? {}) as Record<string, unknown>;
  const active = getIn(props.doc, ["activeProfile"]);
  const [name, setName] = useState("");
  const card = (title: string, profile: string | null, at: string[]) => {
    const report = props.tests[profile ?? ""];
    const listId = `models-${profile ?? "provider"}`;
    return (
      <fieldset class="card" data-testid="profile-card" data-profile={profile ?? ""}>
        <legend>
          <label class="check">
            <input type="radio" name="active-profile" checked={profile === null ? !active : active === profile} onChange={() => props.edit(["activeProfile"], profile ?? undefined)} data-testid="profile-active" />
            {title}
          </label>
        </legend>
        <div class="grid2">
          <Text doc={props.doc} edit={props.edit} path={[...at, "baseUrl"]} label="Base URL" placeholder={defaultHint(["provider", "baseUrl"])} testId="profile-base-url" />
          <Text doc={props.doc} edit={props.edit} path={[...at, "model"]} label="Model" placeholder={defaultHint(["provider", "model"])} list={listId} testId="profile-model" />
          <SchemaChoice doc={props.doc} edit={props.edit} path={[...at, "api"]} schemaPath={["provider", "api"]} label="API" />
          <Text doc={props.doc} edit={props.edit} path={[...at, "apiKeyEnv"]} label="API key: environment variable name" placeholder={profile === null ? defaultHint(["provider", "apiKeyEnv"]) : "none"} testId="profile-key-env" />
          <NumberField
            doc={props.doc}
            edit={props.edit}
            path={[...at, "contextWindow"]}
            label="Context window (tokens)"
            placeholder={typeof report === "object" && report.reportedContextWindow ? `discovered: ${report.reportedContextWindow}` : "ask the server"}
            testId="profile-window"
          />
        </div>
        <datalist id={listId}>{typeof report === "object" && report.modelIds.map((m) => <option value={m} />)}</datalist>
        <div class="row">
          <button class="secondary" onClick={() => props.onTest(profile)} data-testid="profile-test">
            Test connection
          </button>
          {profile !== null && (
            <button class="secondary" onClick={() => { props.edit(["profiles", profile], undefined); if (active === profile) props.edit(["activeProfile"], undefined); }}>
              Remove
            </button>
          )}
        </div>
        {report && (
          <div class="small" data-testid="profile-test-result">
            {typeof report === "string"
              ? report
              : `Connected to ${report.baseUrl}: ${report.modelIds.join(", ") || "no models listed"}; context window ${report.contextWindow ?? "unknown"}${report.contextWindow ? ` (${windowLabel(report.windowSource)})` : ""}`}
          </div>
        )}
      </fieldset>
    );
  };
  return (
    <div class="settings-section">
      {card("Default provider (no profile)", null, ["provider"])}
      {Object.keys(profiles).map((p) => card(`Profile ${p}`, p, ["profiles", p]))}
      <div class="row">
        <input placeholder="new profile name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} data-testid="new-profile-name" />
        <button class="secondary" disabled={!name.trim() || name.trim() in profiles} onClick={() => { props.edit(["profiles", name.trim()], { baseUrl: "http://127.0.0.1:8080/v1", apiKeyEnv: null }); setName(""); }} data-testid="add-profile">
          Add profile
        </button>
      </div>
      <ServerFinder onUse={props.onFound} />
    </div>
  );
}

/** A number field whose placeholder is the engine's default and whose label shows the allowed range. */
function SchemaNumber(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; step?: string; schemaPath?: string[]; testId?: string }) {
  const at = props.schemaPath ?? props.path;
  const range = rangeHint(at);
  return (
    <NumberField
      doc={props.doc}
      edit={props.edit}
      path={props.path}
      label={range ? `${props.label} (${range})` : props.label}
      placeholder={defaultHint(at)}
      step={props.step}
      testId={props.testId ?? `field-${props.path.join(".")}`}
    />
  );
}

/** A choice among the values the schema allows, the engine's default preselected. */
function SchemaChoice(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; schemaPath?: string[]; testId?: string }) {
  const at = props.schemaPath ?? props.path;
  return <Choice doc={props.doc} edit={props.edit} path={props.path} label={props.label} options={optionsAt(at)} fallback={defaultHint(at)} testId={props.testId} />;
}

function Compaction(props: { doc: SettingsDoc; edit: Edit }) {
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

function Limits(props: { doc: SettingsDoc; edit: Edit }) {
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

function Permissions(props: { doc: SettingsDoc; edit: Edit }) {
  return (
    <div class="settings-section grid2">
      <SchemaChoice doc={props.doc} edit={props.edit} path={["permissions", "shell"]} label="shell" testId="permission-shell" />
      <SchemaChoice doc={props.doc} edit={props.edit} path={["permissions", "write"]} label="write_file / edit_file" testId="permission-write" />
      <p class="muted small">MCP servers have their own permission (MCP servers tab).</p>
    </div>
  );
}

function McpServers(props: { doc: SettingsDoc; edit: Edit }) {
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

/**
 * Find servers: the usual local ports (llama.cpp 8080, Ollama 11434, LM Studio 1234, vLLM 8000)
 * asked at once; each server that answers is listed with its models and window, and one click
 * makes it a profile (saved and active).
 */
function ServerFinder(props: { onUse: (server: FoundServer) => void }) {
  const [found, setFound] = useState<FoundServer[] | null>(null);
  const [busy, setBusy] = useState(false);
  const find = async () => {
    setBusy(true);
    try {
      setFound(await api.configFindServers({}));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="finder" data-testid="server-finder">
      <button class="secondary" onClick={find} disabled={busy} data-testid="find-servers">
        {busy ? "Looking on 127.0.0.1…" : "Find servers"}
      </button>
      {found && found.length === 0 && <div class="muted small">Nothing answers on 127.0.0.1 ports 8080, 11434, 1234 or 8000.</div>}
      {found?.map((s) => (
        <div class="row" key={s.baseUrl} data-testid="found-server">
          <span>
            <strong>{s.name}</strong> {s.baseUrl} · {s.models.length} model{s.models.length === 1 ? "" : "s"}
            {s.contextWindow ? ` · window ${s.contextWindow.toLocaleString("en-US")} (${windowLabel(s.windowSource)})` : ""}
          </span>
          <button onClick={() => props.onUse(s)} data-testid="use-server">
            Use as profile
          </button>
        </div>
      ))}
    </div>
  );
}
