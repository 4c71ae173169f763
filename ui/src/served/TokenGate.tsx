// The served page's door (`alisio serve`: a team's archive in a browser). Until the server has said
// which archive this is, nothing of the app runs; when it answers 401 (no token yet, or one
// revoked), a full-page form asks for an access token. Past it: the app, under a read-only badge.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../events";
import { archiveBadge, READ_ONLY } from "../logic";
import { login, onUnauthorized, serveInfo, type ServeInfo } from "../transport";

type Gate =
  | { state: "checking" }
  /** `again`: the page was open and the token stopped working. */
  | { state: "locked"; again: boolean }
  | { state: "failed"; error: string }
  | { state: "open"; info: ServeInfo };

const REFUSED = "That token is not valid, or it was revoked.";

export function TokenGate(props: { children: ComponentChildren }) {
  const [gate, setGate] = useState<Gate>({ state: "checking" });
  useEffect(() => {
    // Any command answered 401 locks the page, whatever asked.
    const off = onUnauthorized(() => setGate((g) => (g.state === "locked" ? g : { state: "locked", again: g.state === "open" })));
    serveInfo().then(
      (info) => setGate({ state: "open", info }),
      (e) => setGate((g) => (g.state === "locked" ? g : { state: "failed", error: errorMessage(e) })),
    );
    return off;
  }, []);
  if (gate.state === "checking") return <div class="token-gate muted">Connecting…</div>;
  if (gate.state === "locked") return <TokenForm initialError={gate.again ? REFUSED : null} />;
  if (gate.state === "failed") {
    return (
      <div class="token-gate">
        <div class="dialog token-form" role="alert" data-testid="served-failed">
          <strong>The archive could not be opened</strong>
          <div class="error">{gate.error}</div>
          <div class="row">
            <button onClick={() => location.reload()}>Try again</button>
          </div>
        </div>
      </div>
    );
  }
  return (
    <div class="served">
      <div class="served-badge" title={`${READ_ONLY}: served by alisio serve, nothing here writes`} data-testid="served-badge">
        {archiveBadge(gate.info)}
      </div>
      {props.children}
    </div>
  );
}

/** Keyboard first: the field has the focus, Enter submits; a token taken reloads the page. */
function TokenForm(props: { initialError: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(props.initialError);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const given = token.trim();
    if (!given || busy) return;
    setBusy(true);
    setError(null);
    try {
      if (await login(given)) {
        // The cookie is set: the simplest fresh start is the page's own.
        location.reload();
        return;
      }
      setError(REFUSED);
    } catch (err) {
      setError(errorMessage(err));
    }
    setBusy(false);
    field.current?.select();
  };
  return (
    <div class="token-gate">
      <form class="dialog token-form" onSubmit={submit} data-testid="token-form">
        <strong>Alisio</strong>
        <p>
          This is a team's archive served by Alisio. Enter an access token (ask whoever runs <code>alisio serve</code> for one:{" "}
          <code>alisio serve token create --archive NAME</code>).
        </p>
        <label>
          Access token
          <input
            ref={field}
            type="password"
            autocomplete="current-password"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
            data-testid="token-input"
          />
        </label>
        {error && (
          <div class="error" role="alert" data-testid="token-error">
            {error}
          </div>
        )}
        <div class="row">
          <button type="submit" disabled={busy || !token.trim()} data-testid="token-submit">
            {busy ? "Checking…" : "Open the archive"}
          </button>
        </div>
      </form>
    </div>
  );
}
