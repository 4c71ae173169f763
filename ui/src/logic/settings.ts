// The settings document as the forms edit it: values read and written at a path, number fields,
// and a found server made the active profile.

/** The profile name a found server gets: what usually listens there, as a config key. */
export function profileName(server: { name: string }): string {
  return server.name.toLowerCase().replace(/[^a-z0-9]+/g, "");
}

/** `raw` (the settings document) with a profile for `server`, made active. */
export function withProfile(raw: Record<string, unknown>, server: { name: string; baseUrl: string; models: string[] }): Record<string, unknown> {
  const name = profileName(server);
  const profiles = { ...((raw.profiles as Record<string, unknown> | undefined) ?? {}) };
  profiles[name] = { baseUrl: server.baseUrl, model: server.models[0] ?? "default", apiKeyEnv: null };
  return { ...raw, profiles, activeProfile: name };
}

/** A settings document (the raw `config.json`), edited by the Settings forms. */
export type SettingsDoc = Record<string, unknown>;

/** The value at `path` in `doc` (undefined when any step is missing). */
export function getIn(doc: SettingsDoc, path: string[]): unknown {
  let at: unknown = doc;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * `doc` with `value` at `path` (objects on the way made as needed, the rest shared); `undefined`
 * removes the key, so the default applies again. `doc` itself is not changed.
 */
export function setIn(doc: SettingsDoc, path: string[], value: unknown): SettingsDoc {
  const [key, ...rest] = path;
  const next: SettingsDoc = { ...doc };
  if (rest.length === 0) {
    if (value === undefined) delete next[key];
    else next[key] = value;
    return next;
  }
  const child = doc[key];
  next[key] = setIn(child !== null && typeof child === "object" && !Array.isArray(child) ? (child as SettingsDoc) : {}, rest, value);
  return next;
}

/** A number field's text as a settings value: blank is "not set" (the default applies). */
export function numberValue(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}
