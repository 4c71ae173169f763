// Find servers: the usual local ports asked for a model server, each found one offered as a profile.
import { useState } from "preact/hooks";
import { api } from "../api";
import type { FoundServer } from "../bindings";
import { windowLabel } from "../logic";

/**
 * Find servers: the usual local ports (llama.cpp 8080, Ollama 11434, LM Studio 1234, vLLM 8000)
 * asked at once; each server that answers is listed with its models and window, and one click
 * makes it a profile (saved and active).
 */
export function ServerFinder(props: { onUse: (server: FoundServer) => void }) {
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
