// A minimal WebDriver client over fetch (W3C protocol), enough to drive the real window.
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

export class Driver {
  constructor(base, session) {
    this.base = base;
    this.session = session;
  }

  /** A new session of the app (started with `args`, e.g. `["--profile", "p"]`). */
  static async connect(base, application, timeoutMs = 60_000, args = []) {
    return Driver.open(base, { alwaysMatch: { "tauri:options": { application, args } } }, timeoutMs);
  }

  /** A session of a browser WebKitWebDriver starts itself (WebKitGTK's MiniBrowser by default). */
  static async browser(base, binary, timeoutMs = 60_000) {
    return Driver.open(base, { alwaysMatch: { "webkitgtk:browserOptions": { binary, args: ["--automation"] } } }, timeoutMs);
  }

  /** A new session with `capabilities`, tried again until `timeoutMs`. */
  static async open(base, capabilities, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    let lastError;
    while (Date.now() < deadline) {
      try {
        // One attempt may hang on an app that never came up (its toolkit failed to start): each
        // is bounded, so the next one starts a fresh app.
        const res = await fetch(`${base}/session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ capabilities }),
          signal: AbortSignal.timeout(Math.max(1_000, Math.min(25_000, deadline - Date.now()))),
        });
        const body = await res.json();
        if (res.ok) return new Driver(base, body.value.sessionId);
        lastError = JSON.stringify(body);
      } catch (error) {
        lastError = String(error);
      }
      await sleep(500);
    }
    throw new Error(`could not open a WebDriver session: ${lastError}`);
  }

  /** Loads `url` in the browser. */
  async navigate(url) {
    await this.cmd("POST", "/url", { url });
  }

  async cmd(method, path, body) {
    const res = await fetch(`${this.base}/session/${this.session}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value)}`);
    return json.value;
  }

  async findAll(css) {
    const found = await this.cmd("POST", "/elements", { using: "css selector", value: css });
    return found.map((e) => e[ELEMENT]);
  }

  /** Waits until `css` matches (and, if given, an element's text contains `text`). */
  async waitFor(css, { text, timeoutMs = 20_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      // The page may re-render while WebKit collects the matches: then look again.
      const found = await this.findAll(css).catch((error) => {
        if (String(error).includes("stale element")) return [];
        throw error;
      });
      for (const id of found) {
        // An element can be re-rendered between finding and reading it: then look again.
        const content = text === undefined ? "" : await this.text(id).catch(() => null);
        if (text === undefined || (content !== null && content.includes(text))) return id;
      }
      await sleep(150);
    }
    throw new Error(`timed out waiting for ${css}${text ? ` containing ${JSON.stringify(text)}` : ""}`);
  }

  /** The first element below element `id` that matches `css`. */
  async findIn(id, css) {
    const found = await this.cmd("POST", `/element/${id}/element`, { using: "css selector", value: css });
    return found[ELEMENT];
  }

  async clear(id) {
    await this.cmd("POST", `/element/${id}/clear`, {});
  }

  async click(id) {
    await this.cmd("POST", `/element/${id}/click`, {});
  }

  async type(id, text) {
    await this.cmd("POST", `/element/${id}/value`, { text });
  }

  /** The element's text content (rendered-text rules would drop clipped, ellipsized text). */
  async text(id) {
    return this.execute("return arguments[0].textContent", [{ [ELEMENT]: id }]);
  }

  async screenshot() {
    return Buffer.from(await this.cmd("GET", "/screenshot"), "base64");
  }

  async execute(script, args = []) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  async close() {
    await fetch(`${this.base}/session/${this.session}`, { method: "DELETE" }).catch(() => {});
  }
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
