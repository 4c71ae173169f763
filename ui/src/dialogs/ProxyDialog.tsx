// Proxy…: the recording proxy started, watched and stopped from the window, with the calls it
// captured and its last errors.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { ProxyEvent, ProxyStatus } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";

/**
 * Proxy… (Ctrl+Shift+P): `alisio proxy` inside the window. Point an agent's base URL at the
 * address shown and every request it sends is recorded byte for byte, joined to the session it
 * belongs to; the panel lists the calls captured and the last errors while it runs (it keeps
 * running with the panel closed, until stopped or the window closes).
 */
export function ProxyDialog(props: { onClose: () => void; onOpen: (session: string) => void; onStatus: (status: ProxyStatus) => void }) {
  const [status, setStatus] = useState<ProxyStatus | null>(null);
  const [upstream, setUpstream] = useState("");
  const [listen, setListen] = useState("127.0.0.1:8788");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const show = (s: ProxyStatus) => {
    setStatus(s);
    props.onStatus(s);
    if (s.upstream) setUpstream((u) => u || (s.upstream as string));
  };
  useEffect(() => {
    const poll = () => api.proxyStatus({}).then(show, (e) => setError(errorMessage(e)));
    poll();
    const timer = setInterval(poll, 1000);
    return () => clearInterval(timer);
  }, []);
  const act = async (run: () => Promise<ProxyStatus>) => {
    setBusy(true);
    setError(null);
    try {
      show(await run());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const start = () => upstream.trim() && act(() => api.proxyStart({ upstream: upstream.trim(), listen: listen.trim() || null }));
  const copy = async () => {
    if (!status?.address) return;
    try {
      await navigator.clipboard.writeText(status.address);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch (e) {
      setError(`Could not copy (${errorMessage(e)}); select the address and copy it by hand.`);
    }
  };
  const running = status?.running ?? false;
  return (
    <Dialog title="Recording proxy" onClose={props.onClose} testId="proxy-dialog">
      <p class="muted">
        Requests sent to the proxy go on to the model server unchanged, answers come back as they stream; each call is recorded exactly as sent (credentials taken
        out) and joined to the agent's session.
      </p>
      <label>
        Model server (upstream)
        <input autoFocus value={upstream} placeholder="https://api.openai.com" disabled={running} onInput={(e) => setUpstream((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && !running && start()} data-testid="proxy-upstream" />
      </label>
      <label>
        Listen on
        <input value={listen} disabled={running} onInput={(e) => setListen((e.target as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && !running && start()} data-testid="proxy-listen" />
      </label>
      <div class="row">
        {running ? (
          <button onClick={() => act(() => api.proxyStop({}))} disabled={busy} data-testid="proxy-stop">Stop</button>
        ) : (
          <button onClick={start} disabled={busy || !upstream.trim()} data-testid="proxy-start">{busy ? "Starting…" : "Start"}</button>
        )}
        <button class="secondary" onClick={props.onClose}>Close</button>
      </div>
      {error && <div class="error" role="alert">{error}</div>}
      {running && status?.address && (
        <div class="proxy-address" data-testid="proxy-running">
          Point the agent's base URL at <input readOnly value={status.address} onFocus={(e) => (e.target as HTMLInputElement).select()} data-testid="proxy-address" />{" "}
          <button class="secondary" onClick={copy} data-testid="proxy-copy">{copied ? "Copied" : "Copy"}</button>
          <div class="muted small">forwarding to {status.upstream}</div>
        </div>
      )}
      {status && <ProxyCalls status={status} onOpen={props.onOpen} />}
    </Dialog>
  );
}

/** The calls captured (newest first; a click opens the session) and the last errors. */
function ProxyCalls(props: { status: ProxyStatus; onOpen: (session: string) => void }) {
  const { status } = props;
  const captured = (status.recent ?? []).filter((e): e is Extract<ProxyEvent, { type: "captured" }> => e.type === "captured");
  return (
    <div class="proxy-calls">
      <div data-testid="proxy-captured"><strong>{status.captured}</strong> call{status.captured === 1 ? "" : "s"} captured</div>
      {captured.length > 0 && (
        <table class="calls">
          <thead><tr><th>session</th><th>#</th><th>path</th><th>status</th><th>prompt</th><th>cached</th></tr></thead>
          <tbody>
            {[...captured].reverse().map((c) => (
              <tr onClick={() => props.onOpen(c.session)} title="Open the session" data-testid="proxy-call">
                <td><code>{c.session.slice(0, 8)}</code></td>
                <td>{c.n}</td>
                <td>{c.path}</td>
                <td class={c.status >= 400 ? "failed" : ""}>{c.status}</td>
                <td>{c.promptTokens ?? "–"}</td>
                <td>{c.cachedTokens ?? "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {status.errors.length > 0 && (
        <div data-testid="proxy-errors">
          <div class="muted small">Last errors</div>
          {status.errors.map((e) => <div class="error small">{e}</div>)}
        </div>
      )}
    </div>
  );
}
