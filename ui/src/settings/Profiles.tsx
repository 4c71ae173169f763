// The Profiles tab: the default provider and each profile as a card (base URL, model, API, key
// variable, window), a connection test per card, new profiles, and the server finder.
import { useState } from "preact/hooks";
import type { FoundServer, ModelsReport } from "../bindings";
import { defaultHint, getIn, windowLabel, type SettingsDoc } from "../logic";
import { NumberField, SchemaChoice, Text, type Edit } from "./fields";
import { ServerFinder } from "./ServerFinder";

export function Profiles(props: {
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
