// The window over a big library (#24): opens the app on a home that follows N sessions (HOME with
// the agents' folders, ALISIO_HOME already imported), scrolls the whole session list, opens 10
// sessions, then measures the web process's memory and, over IDLE_SECONDS (default 300), the CPU
// the app and its web process use while nothing changes. The Library view (#39): the time from its
// tab to every row's table painted, each of three sorts, and the web process after scrolling every
// row.
//
//   ALISIO_APP=target/release/alisio BENCH_HOME=/tmp/lib5000 BENCH_ALISIO_HOME=/tmp/m-now/alisio \
//     xvfb-run -a node tests/bench/window.mjs        (LIBRARY_ONLY=1: the Library view alone)
// (needs tauri-driver and WebKitWebDriver, as the window tests do: tests/e2e/run.sh)
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Driver } from "../e2e/webdriver.mjs";

const app = path.resolve(process.env.ALISIO_APP ?? "target/release/alisio");
const home = process.env.BENCH_HOME;
const alisioHome = process.env.BENCH_ALISIO_HOME;
const idle = Number(process.env.IDLE_SECONDS ?? 300);
if (!home || !alisioHome) throw new Error("set BENCH_HOME and BENCH_ALISIO_HOME");
const ticks = Number(execFileSync("getconf", ["CLK_TCK"]).toString());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The processes named `name` (exact comm) among all, with their CPU ticks and RSS. */
function processes(pattern) {
  const out = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!pattern.test(comm)) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cpu = Number(fields[11]) + Number(fields[12]);
      const rss = Number(fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]) / 1024;
      out.push({ pid, comm, cpu, rss });
    } catch {}
  }
  return out;
}

const env = { ...process.env, HOME: home, ALISIO_HOME: alisioHome, CODEX_HOME: path.join(home, ".codex"), XDG_DATA_HOME: path.join(home, ".local/share"), NO_AT_BRIDGE: "1", DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent" };
const tauriDriver = spawn(process.env.TAURI_DRIVER ?? "tauri-driver", ["--port", "4446", "--native-port", "4447"], { env, stdio: ["ignore", "ignore", "inherit"] });
let driver;
try {
  const opened = Date.now();
  driver = await Driver.connect("http://127.0.0.1:4446", app);
  let shown = "";
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(100)) {
    shown = await driver.execute("const c = document.querySelector('[data-testid=library-count]'); return c ? c.textContent : ''");
    if (/^[1-9]/.test(shown)) break;
  }
  console.log(`first paint of the library: ${Date.now() - opened} ms (${shown})`);
  const webRss = () => processes(/^WebKitWebProces/).map((p) => p.rss.toFixed(0)).join(", ");
  await sleep(2000);
  console.log(`web process RSS after first paint: ${webRss()} MB`);
  if (process.env.LIBRARY_ONLY) {
    // The Library view alone, as #39 measures it: its table, every row scrolled, three sorts.
    await libraryView();
    process.exit(0);
  }
  // Scroll the whole list, a screen at a time.
  const steps = await driver.execute(`
    const list = document.querySelector('[data-testid=sessions]');
    return Math.ceil(list.scrollHeight / list.clientHeight);`);
  for (let i = 0; i <= steps; i++) {
    await driver.execute(`const l = document.querySelector('[data-testid=sessions]'); l.scrollTop = ${i} * l.clientHeight;`);
    await sleep(30);
  }
  console.log(`scrolled ${steps} screens; web process RSS: ${webRss()} MB`);
  await driver.execute("const l = document.querySelector('[data-testid=sessions]'); l.scrollTop = 0;");
  await sleep(300);
  for (let i = 0; i < 10; i++) {
    await driver.execute(`document.querySelectorAll('[data-testid=session-item]')[${i}].click();`);
    await driver.waitFor("[data-testid=session-item].active");
    await sleep(500);
  }
  console.log("opened 10 sessions");
  await libraryView();
  await sleep(3000);
  const web = processes(/^WebKitWebProces/);
  const main = processes(/^alisio(-window)?$/);
  console.log(`web process RSS: ${web.map((p) => p.rss.toFixed(0)).join(", ")} MB; app RSS: ${main.map((p) => p.rss.toFixed(0)).join(", ")} MB`);
  const before = [...web, ...main].reduce((n, p) => n + p.cpu, 0);
  await sleep(idle * 1000);
  const after = [...processes(/^WebKitWebProces/), ...processes(/^alisio(-window)?$/)].reduce((n, p) => n + p.cpu, 0);
  const percent = (100 * (after - before)) / ticks / idle;
  console.log(`idle CPU over ${idle} s: ${percent.toFixed(2)} % of a core (app and web process)`);
} finally {
  await driver?.close();
  tauriDriver.kill();
}

/** The Library view: first paint, scrolling every row, sorting by three columns. */
async function libraryView() {
  const painted = () => driver.execute("return document.querySelectorAll('[data-testid=library-row]').length");
  let started = Date.now();
  await driver.execute("document.querySelector('[data-testid=tab-library]').click()");
  while ((await painted()) === 0) await sleep(5);
  const count = await driver.execute("return document.querySelector('[data-testid=library-view] [data-testid=library-count]').textContent");
  console.log(`Library view first paint: ${Date.now() - started} ms (${count})`);
  const steps = await driver.execute(`
    const t = document.querySelector('[data-testid=library-table] .vlist') ?? document.querySelector('[data-testid=library-table]');
    return Math.ceil(t.scrollHeight / t.clientHeight);`);
  for (let i = 0; i <= steps; i++) {
    await driver.execute(`const t = document.querySelector('[data-testid=library-table] .vlist') ?? document.querySelector('[data-testid=library-table]'); t.scrollTop = ${i} * t.clientHeight;`);
    await sleep(20);
  }
  console.log(`Library view: scrolled ${steps} screens`);
  for (const column of ["tokensIn", "cost", "lastActive"]) {
    const first = () => driver.execute("const r = document.querySelector('[data-testid=library-row]'); return r ? r.dataset.session : ''");
    const before = await first();
    started = Date.now();
    await driver.execute(`document.querySelector('[data-testid=library-header-${column}]').click()`);
    const order = () => driver.execute(`return document.querySelector('[data-testid=library-header-${column}]').getAttribute('aria-sort')`);
    while (!["ascending", "descending"].includes(await order())) await sleep(5);
    console.log(`Library view: sorted by ${column} in ${Date.now() - started} ms (first row ${before === (await first()) ? "unchanged" : "changed"})`);
  }
  await sleep(2000);
  console.log(`Library view: web process RSS after scrolling every row and three sorts: ${processes(/^WebKitWebProces/).map((p) => p.rss.toFixed(0)).join(", ")} MB`);
}
