// How a command of the application API reaches the engine. Inside the window it is Tauri's IPC;
// served (`alisio serve`: the same UI in a browser, read-only, over a team's archive) it is
// `POST /api/<command>` with the request as the JSON body, authorized by the cookie `/api/login`
// sets. Errors have one shape either way: `{ code, message }`.
import { invoke as tauriInvoke } from "@tauri-apps/api/core";
import { writeBlocked } from "./logic/served";

/** An error as the API rejects with it (served adds the codes "unauthorized" and "forbidden"). */
export type TransportError = { code: string; message: string };

/** What the server says about itself (`serve_info`). */
export type ServeInfo = { archive: string; readOnly: boolean };

/** Outside the window: Tauri v2 sets `__TAURI_INTERNALS__` before the page's scripts run. */
export function isServed(global: object | undefined): boolean {
  return global !== undefined && !("__TAURI_INTERNALS__" in global);
}

/** The page is served over HTTP (a browser), not shown in Alisio's window. */
export const served: boolean = isServed(typeof window === "undefined" ? undefined : window);

/** Why a control that writes is off (its title): served, always; in the window, null. */
export const servedReadOnly: string | null = writeBlocked(served);

const unauthorized = new Set<() => void>();

/** Calls `callback` whenever the server answers 401 (no token, or one revoked); returns the unsubscribe. */
export function onUnauthorized(callback: () => void): () => void {
  unauthorized.add(callback);
  return () => unauthorized.delete(callback);
}

/** One command of the application API: `cmd` with its request `args`, the answer typed `T`. */
export function invoke<T>(cmd: string, args?: unknown): Promise<T> {
  return served ? fetchCommand<T>(cmd, args) : tauriInvoke<T>(cmd, args as Record<string, unknown> | undefined);
}

/** Served: `POST /api/<cmd>`. A 401 tells the listeners (the page asks for a token) and throws. */
export async function fetchCommand<T>(cmd: string, args?: unknown, send: typeof fetch = fetch): Promise<T> {
  const response = await post(send, `/api/${cmd}`, args ?? {});
  if (response.status === 401) unauthorized.forEach((callback) => callback());
  if (!response.ok) throw await errorOf(response);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** Served: which archive the server shows (and that the cookie is good: a 401 otherwise). */
export function serveInfo(): Promise<ServeInfo> {
  return fetchCommand<ServeInfo>("serve_info", {});
}

/** Served: trades `token` for the session cookie. True when taken, false when refused (401). */
export async function login(token: string, send: typeof fetch = fetch): Promise<boolean> {
  const response = await post(send, "/api/login", { token });
  if (response.status === 401) return false;
  if (!response.ok) throw await errorOf(response);
  return true;
}

async function post(send: typeof fetch, url: string, body: unknown): Promise<Response> {
  try {
    return await send(url, { method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin", body: JSON.stringify(body) });
  } catch (e) {
    // The server is gone (or the network): the same shape as any other error.
    throw { code: "failed", message: `The server did not answer: ${e instanceof Error ? e.message : String(e)}` } satisfies TransportError;
  }
}

/** The `{ code, message }` of a failed answer; a body that is not one gives the status text. */
async function errorOf(response: Response): Promise<TransportError> {
  const fallback: TransportError = { code: "failed", message: response.statusText || `HTTP ${response.status}` };
  try {
    const body: unknown = await response.json();
    if (body && typeof body === "object" && "message" in body) {
      const { code, message } = body as { code?: unknown; message: unknown };
      return { code: typeof code === "string" ? code : "failed", message: String(message) };
    }
    return fallback;
  } catch {
    return fallback;
  }
}
