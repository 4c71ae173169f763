// What the window does once at start: the demo session on a first start, model servers looked for
// when there is no config file yet (one click makes one the active profile), and whether the
// recording proxy already runs. Served (`alisio serve`, read-only) none of it: the list is loaded
// and nothing is written, looked for or asked of this machine.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { FoundServer, JsonValue } from "../bindings";
import { profileName, withProfile } from "../logic";
import { served } from "../transport";
import type { Feedback } from "./useAction";

export function useStartup(feedback: Feedback) {
  useEffect(() => {
    // The act's refresh loads the list; served, there is nothing to prepare before it.
    if (served) {
      feedback.act(async () => null, { busy: "Loading…" });
      return;
    }
    // On a first start the engine produces the demo session before the list is shown.
    feedback.act(() => api.sessionsEnsureDemo({}), { busy: "Preparing…" });
    // With no config file yet, the usual local ports are asked for a model server to use.
    api.configGet({}).then((doc) => {
      if (Object.keys((doc.raw ?? {}) as object).length === 0) api.configFindServers({}).then(setFound, () => {});
    }, () => {});
  }, []);
  const [found, setFound] = useState<FoundServer[]>([]);
  const [proxyRunning, setProxyRunning] = useState(false);
  useEffect(() => {
    if (!served) api.proxyStatus({}).then((s) => setProxyRunning(s.running), () => {});
  }, []);
  /** Saves a profile for `server` and makes it active. */
  const adoptServer = (server: FoundServer) =>
    feedback.act(async () => {
      await api.configSave({ raw: withProfile({}, server) as JsonValue });
      setFound([]);
      return server;
    }, { notice: (s) => `Profile "${profileName(s)}" saved and active: ${s.baseUrl}, model ${s.models[0] ?? "default"}.` });
  return { found, setFound, adoptServer, proxyRunning, setProxyRunning };
}
