// The team's archive in a real browser: a PostgreSQL server started here, a home that imported a
// Claude Code session and pushed it, `alisio serve` on a free port, and WebKitGTK's MiniBrowser
// driven by WebKitWebDriver: the token form refuses a wrong token and lets the right one in, the
// library shows the pushed session, its messages open, nothing that writes is offered, and a
// write sent by hand is refused (403).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Driver, sleep } from "./webdriver.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const app = process.env.ALISIO_APP;
const browserBinary = process.env.ALISIO_BROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const password = "served-test-password";
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "alisio-served-"));
fs.chmodSync(scratch, 0o755); // the postgres user reaches its folder inside
const home = path.join(scratch, "home");
const pgDir = path.join(scratch, "pg");
let pgPort, server, webDriver, driver;

const root_ = process.getuid?.() === 0;
/** A PostgreSQL tool, as the `postgres` user when this runs as root (PostgreSQL refuses root). */
function pgTool(name, args) {
  const bin = fs.existsSync(`/usr/local/bin/${name}`) ? `/usr/local/bin/${name}` : `/usr/lib/postgresql/15/bin/${name}`;
  return root_ ? execFileSync("runuser", ["-u", "postgres", "--", bin, ...args]) : execFileSync(bin, args);
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function cli(...args) {
  return execFileSync(app, args, { env: { ...process.env, ALISIO_HOME: home, ALISIO_TEST_PG: password }, encoding: "utf8" });
}

before(async () => {
  fs.mkdirSync(pgDir);
  fs.writeFileSync(path.join(pgDir, "pw"), password);
  if (root_) execFileSync("chown", ["-R", "postgres", pgDir]);
  pgTool("initdb", ["-D", path.join(pgDir, "data"), "-U", "alisio", "-A", "scram-sha-256", "--no-sync", `--pwfile=${path.join(pgDir, "pw")}`]);
  pgPort = await freePort();
  pgTool("pg_ctl", ["-D", path.join(pgDir, "data"), "-o", `-p ${pgPort} -k ${pgDir} -c listen_addresses=127.0.0.1 -c fsync=off`, "-l", path.join(pgDir, "log"), "-w", "start"]);
  fs.mkdirSync(home, { recursive: true });
  const archives = { team: { url: `postgres://alisio@127.0.0.1:${pgPort}/postgres`, passwordEnv: "ALISIO_TEST_PG", machine: "laptop-ana", user: "ana" } };
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ plugins: [], archives }));
  const fixture = path.join(root, "tests/fixtures/compat/claude-code/2.1.332/.claude/projects/-tmp-compat-claude-code-proj/cfc9143a-d1b6-4589-bf16-6d2ac7d12477.jsonl");
  cli("import", fixture);
  cli("push");

  server = spawn(app, ["serve", "--archive", "team", "--listen", "127.0.0.1:0"], {
    env: { ...process.env, ALISIO_HOME: home, ALISIO_TEST_PG: password },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const base = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const found = out.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (found) resolve(found[0]);
    });
    server.on("exit", (code) => reject(new Error(`alisio serve exited (${code}): ${out}`)));
  });
  server.base = base;
  const driverPort = await freePort();
  webDriver = spawn("WebKitWebDriver", [`--port=${driverPort}`], { stdio: ["ignore", "inherit", "inherit"] });
  driver = await Driver.browser(`http://127.0.0.1:${driverPort}`, browserBinary);
});

after(async () => {
  await driver?.close();
  webDriver?.kill();
  server?.kill();
  try {
    pgTool("pg_ctl", ["-D", path.join(pgDir, "data"), "-m", "immediate", "stop"]);
  } catch {}
  fs.rmSync(scratch, { recursive: true, force: true });
});

test("the served archive: a token let in, the pushed session read, nothing that writes offered", async () => {
  const token = cli("serve", "token", "create", "--label", "browser").trim().split(/\s+/).pop();
  await driver.navigate(`${server.base}/`);
  const input = await driver.waitFor("[data-testid=token-input]");
  await driver.type(input, "alisio_not_a_token");
  await driver.click(await driver.waitFor("[data-testid=token-submit]"));
  await driver.waitFor("[data-testid=token-error]", { text: "not valid" });
  await driver.cmd("POST", `/element/${input}/clear`, {});
  await driver.type(input, token);
  await driver.click(await driver.waitFor("[data-testid=token-submit]"));
  await driver.waitFor("[data-testid=served-badge]", { text: "team" });

  // The library: the session pushed from the other home, opened by a click.
  const listed = JSON.parse(cli("sessions", "list", "--json"));
  const title = listed[0].title;
  await driver.click(await driver.waitFor("[data-testid=session-item]", { text: title.slice(0, 20) }));
  await driver.waitFor("[data-testid=message]", { timeoutMs: 30_000 });
  const composer = await driver.findAll("[data-testid=composer]");
  const writable = composer.length > 0 && !(await driver.execute("return arguments[0].disabled", [{ "element-6066-11e4-a52e-4f735466cecf": composer[0] }]));
  assert.equal(writable, false, "no turn can be sent from a served archive");

  // Who pushed it, from where: in the sidebar, and as the Library's columns and filters.
  await driver.waitFor("[data-testid=session-pushed-by]", { text: "ana@laptop-ana" });
  await driver.click(await driver.waitFor("[data-testid=tab-library]"));
  await driver.click(await driver.waitFor("[data-testid=library-columns]"));
  await driver.waitFor("[data-testid=library-column-user]");
  await driver.waitFor("[data-testid=library-column-machine]");
  await driver.waitFor("[data-testid=library-view-user] option", { text: "ana" });

  // A write sent by hand is refused; a read answered — with the page's own cookie.
  const status = await driver.execute(
    "return fetch('/api/pins_add', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({session: arguments[0], text: 'x'})}).then(r => r.status)",
    [listed[0].id],
  );
  assert.equal(status, 403);
  const read = await driver.execute("return fetch('/api/sessions_list', {method: 'POST', body: '{}'}).then(r => r.status)");
  assert.equal(read, 200);
  await sleep(0);
});
