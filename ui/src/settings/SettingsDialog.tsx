// Settings: forms over the config file (profiles, compaction, limits, permissions, MCP servers),
// checked by the engine exactly as the CLI checks them before anything is written; the JSON stays
// editable under Advanced. Keys are never shown or stored: a profile names the variable only.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { JsonValue, ModelsReport } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";
import { profileName, setIn, withProfile, type SettingsDoc } from "../logic";
import { AboutLine } from "./AboutLine";
import type { Edit } from "./fields";
import { McpServers } from "./McpServers";
import { Profiles } from "./Profiles";
import { Compaction, Limits, Permissions } from "./sections";

type Tab = "profiles" | "compaction" | "limits" | "permissions" | "mcp" | "advanced";
const TABS: [Tab, string][] = [
  ["profiles", "Profiles"],
  ["compaction", "Compaction"],
  ["limits", "Limits"],
  ["permissions", "Permissions"],
  ["mcp", "MCP servers"],
  ["advanced", "Advanced (JSON)"],
];

export function SettingsDialog(props: { onClose: () => void; onSaved: () => void }) {
  const { doc, path, effective, message, tab, json, setJson, tests, edit, current, switchTo, save, test } = useSettings(props.onSaved);
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
      <AboutLine />
    </Dialog>
  );
}

/**
 * The dialog's state: the document being edited (or its JSON text under Advanced), where it is
 * stored, the effective configuration, the last message, and each profile's connection test.
 */
function useSettings(onSaved: () => void) {
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
      onSaved();
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
  return { doc, path, effective, message, tab, json, setJson, tests, edit, current, switchTo, save, test };
}
