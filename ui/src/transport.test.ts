// Tests of transport.ts, served: each command a POST to /api/<command> with the JSON request, the
// answer or the `{ code, message }` thrown, a 401 told to the listeners, the token traded at login.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchCommand, isServed, login, onUnauthorized } from "./transport";

/** A fetch that answers `status` with `body` (a string as is, anything else as JSON) and records its calls. */
function answering(status: number, body: unknown = "", statusText = "") {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const send = vi.fn(async (_url: string, _init?: RequestInit) => new Response(status === 204 ? null : text, { status, statusText }));
  vi.stubGlobal("fetch", send);
  return send;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe("isServed", () => {
  it("is the window when Tauri set its internals, served otherwise", () => {
    expect(isServed({ __TAURI_INTERNALS__: {} })).toBe(false);
    expect(isServed({})).toBe(true);
    expect(isServed(undefined)).toBe(false);
  });
});

describe("fetchCommand", () => {
  it("posts the request as JSON with the cookie, and returns the answer", async () => {
    const send = answering(200, [{ id: "s1" }]);
    await expect(fetchCommand("sessions_list", { source: null })).resolves.toEqual([{ id: "s1" }]);
    expect(send).toHaveBeenCalledTimes(1);
    const [url, init] = send.mock.calls[0];
    expect(url).toBe("/api/sessions_list");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect(init?.headers).toEqual({ "Content-Type": "application/json" });
    expect(JSON.parse(String(init?.body))).toEqual({ source: null });
  });

  it("sends {} without a request, and reads an answer of null", async () => {
    const send = answering(200, "null");
    await expect(fetchCommand("proxy_status")).resolves.toBeNull();
    expect(send.mock.calls[0][1]?.body).toBe("{}");
  });

  it("throws the server's { code, message } on a refusal", async () => {
    answering(403, { code: "forbidden", message: "sessions_rename writes: not served" });
    await expect(fetchCommand("sessions_rename", { session: "s", title: "t" })).rejects.toEqual({ code: "forbidden", message: "sessions_rename writes: not served" });
  });

  it("throws the status text when the body is not JSON", async () => {
    answering(502, "<html>bad gateway</html>", "Bad Gateway");
    await expect(fetchCommand("views_stored", {})).rejects.toEqual({ code: "failed", message: "Bad Gateway" });
    answering(500, "");
    await expect(fetchCommand("views_stored", {})).rejects.toEqual({ code: "failed", message: "HTTP 500" });
  });

  it("on a 401 tells every listener, then throws", async () => {
    const first = vi.fn();
    const second = vi.fn();
    const offFirst = onUnauthorized(first);
    const offSecond = onUnauthorized(second);
    answering(401, { code: "unauthorized", message: "no valid token" });
    await expect(fetchCommand("sessions_list", {})).rejects.toEqual({ code: "unauthorized", message: "no valid token" });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
    offFirst();
    await expect(fetchCommand("sessions_list", {})).rejects.toMatchObject({ code: "unauthorized" });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(2);
    offSecond();
  });

  it("does not tell the listeners of other refusals", async () => {
    const listener = vi.fn();
    const off = onUnauthorized(listener);
    answering(404, { code: "notFound", message: "no such command" });
    await expect(fetchCommand("no_such_command", {})).rejects.toMatchObject({ code: "notFound" });
    expect(listener).not.toHaveBeenCalled();
    off();
  });

  it("throws a { code, message } when the server does not answer", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    await expect(fetchCommand("sessions_list", {})).rejects.toEqual({ code: "failed", message: "The server did not answer: Failed to fetch" });
  });
});

describe("login", () => {
  it("posts the token and takes a 204", async () => {
    const send = answering(204);
    await expect(login("tok-1")).resolves.toBe(true);
    const [url, init] = send.mock.calls[0];
    expect(url).toBe("/api/login");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect(JSON.parse(String(init?.body))).toEqual({ token: "tok-1" });
  });

  it("is false on a 401, without telling the listeners", async () => {
    const listener = vi.fn();
    const off = onUnauthorized(listener);
    answering(401, { code: "unauthorized", message: "bad token" });
    await expect(login("nope")).resolves.toBe(false);
    expect(listener).not.toHaveBeenCalled();
    off();
  });
});

describe("invoke", () => {
  it("served (no Tauri internals), fetches", async () => {
    vi.stubGlobal("window", {});
    const send = answering(200, { archive: "team", readOnly: true });
    const transport = await import("./transport");
    expect(transport.served).toBe(true);
    expect(transport.servedReadOnly).toBe("Read-only: a team's archive");
    await expect(transport.invoke("serve_info", {})).resolves.toEqual({ archive: "team", readOnly: true });
    expect(send.mock.calls[0][0]).toBe("/api/serve_info");
  });

  it("in the window, never fetches", async () => {
    vi.stubGlobal("window", { __TAURI_INTERNALS__: { invoke: async () => "from tauri", transformCallback: () => 0 } });
    const send = answering(200, "{}");
    const transport = await import("./transport");
    expect(transport.served).toBe(false);
    expect(transport.servedReadOnly).toBeNull();
    await expect(transport.invoke("sessions_list", {})).resolves.toBe("from tauri");
    expect(send).not.toHaveBeenCalled();
  });
});
