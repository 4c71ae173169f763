import { spawn, execFileSync } from "node:child_process";
// Measures the window on a long session: time from clicking a 100,000-message session to its rows
// on screen (5 runs); then scrolls it from its end to its first message and back to its end,
// sampling the RSS of the app process and of WebKit's web process every 250 ms (peaks reported).
// Usage: tests/bench/window_paint.sh (creates the session with the big_session example, starts Xvfb);
// PERF_SMAPS=1 also prints the app process's largest mappings after the opens.
import { Driver, sleep } from "../e2e/webdriver.mjs";
const home = process.env.ALISIO_HOME;
const td = spawn("tauri-driver", ["--port", "4444"], { env: process.env, stdio: "inherit" });
const app = process.env.ALISIO_APP;
const d = await Driver.connect("http://127.0.0.1:4444", app);
const startRss = () => {
  const pid = execFileSync("pgrep", ["-f", `^${app}$`]).toString().trim().split("\n")[0];
  return Number(/VmRSS:\s+(\d+)/.exec(execFileSync("cat", [`/proc/${pid}/status`]).toString())[1]) / 1024;
};
// A failed step must not leave the WebDriver session (and its window) behind.
process.on("uncaughtException", async (error) => {
  console.error(error);
  await d.close().catch(() => {});
  td.kill();
  process.exit(1);
});
await d.waitFor("[data-testid=session-item]", { text: "(100000 messages)" });
await sleep(3000);
console.log(`app process RSS at start (session list shown, nothing opened): ${startRss().toFixed(1)} MB`);
// Select a small session first so the big one is not preselected.
const results = [];
for (let run = 0; run < 5; run++) {
  const small = await d.waitFor("[data-testid=session-item]", { text: "(10 messages)" });
  await d.click(small);
  await sleep(800);
  const ms = await d.cmd("POST", "/execute/async", { script: `
    const done = arguments[arguments.length - 1];
    const items = [...document.querySelectorAll('[data-testid=session-item]')];
    const big = items.find((b) => b.textContent.includes("(100000 messages)"));
    const t0 = performance.now();
    big.click();
    const poll = () => {
      const rows = [...document.querySelectorAll('[data-testid=stored-view] [data-testid=message]')];
      if (rows.some((r) => Number(r.dataset.seq) > 98000)) {
        requestAnimationFrame(() => done(performance.now() - t0));
      } else setTimeout(poll, 2);
    };
    poll();`, args: [] });
  results.push(ms);
  await sleep(500);
}
console.log("first paint ms:", results.map((x) => x.toFixed(0)).join(", "));
const pid = execFileSync("pgrep", ["-f", `^${app}$`]).toString().trim().split("\n")[0];
const rss = (p) => Number(/VmRSS:\s+(\d+)/.exec(execFileSync("cat", [`/proc/${p}/status`]).toString())[1]) / 1024;
const webPids = () => {
  try {
    return execFileSync("pgrep", ["-f", "WebKitWebProcess"]).toString().trim().split("\n");
  } catch {
    return [];
  }
};
const peak = { app: 0, web: 0 };
const sample = () => {
  peak.app = Math.max(peak.app, rss(pid));
  for (const p of webPids()) peak.web = Math.max(peak.web, rss(p));
};
sample();
if (process.env.PERF_SMAPS) console.log(execFileSync("bash", ["-c", `grep -E 'RssAnon|RssFile' /proc/${pid}/status; awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$6} /^Rss:/{r[name]+=$2} END{for(n in r) print r[n], n}' /proc/${pid}/smaps | sort -rn | head -8`]).toString());
console.log(`RSS after the first-paint runs: app process ${peak.app.toFixed(1)} MB, WebKit web process ${peak.web.toFixed(1)} MB`);
peak.app = 0;
peak.web = 0;
const sampler = setInterval(sample, 250);
// Scroll to the first message, page by page, then back to the last one (minutes: no script timeout).
await d.cmd("POST", "/timeouts", { script: 1_800_000 });
const scrolled = await d.cmd("POST", "/execute/async", { script: `
  const done = arguments[arguments.length - 1];
  const list = () => document.querySelector('[data-testid=stored-view]');
  const seqs = () => [...document.querySelectorAll('[data-testid=stored-view] [data-testid=message]')].map((r) => Number(r.dataset.seq));
  const count = () => document.querySelector('[data-testid=stored-count]').textContent;
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  (async () => {
    const t0 = performance.now();
    let steps = 0;
    // As a user would: a wheel turn up (which ends following the bottom), then the scroll.
    while (count().includes("older") && steps < 5000) { list().dispatchEvent(new WheelEvent("wheel", { deltaY: -500 })); list().scrollTop = 0; steps++; await wait(40); }
    const up = performance.now() - t0;
    while (count().includes("newer") && steps < 10000) { list().dispatchEvent(new WheelEvent("wheel", { deltaY: 500 })); list().scrollTop = list().scrollHeight; steps++; await wait(40); }
    done({ up, down: performance.now() - t0 - up, steps, loaded: count(), last: Math.max(...seqs()) });
  })();`, args: [] });
clearInterval(sampler);
sample();
console.log(`scrolled to the first message in ${(scrolled.up / 1000).toFixed(1)} s and back to the last in ${(scrolled.down / 1000).toFixed(1)} s (${scrolled.steps} scroll steps; ${scrolled.loaded}; last message on screen #${scrolled.last})`);
console.log(`peak RSS while scrolling: app process ${peak.app.toFixed(1)} MB, WebKit web process ${peak.web.toFixed(1)} MB`);
await sleep(5000);
console.log("idle RSS after: app process MB:", rss(pid).toFixed(1), "· web processes MB:", webPids().map((p) => rss(p).toFixed(1)).join(", "));
await d.close(); td.kill();
