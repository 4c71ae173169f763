import { spawn, execFileSync } from "node:child_process";
// Measures the window on a long session: time from clicking a 100,000-message session to its rows
// on screen (5 runs), then the idle RSS of the app process and of WebKit's web process.
// Usage: tests/e2e/perf.sh (creates the session with the big_session example, starts Xvfb).
import { Driver, sleep } from "./webdriver.mjs";
const home = process.env.ALISIO_HOME;
const td = spawn("tauri-driver", ["--port", "4444"], { env: process.env, stdio: "inherit" });
const app = process.env.ALISIO_APP;
const d = await Driver.connect("http://127.0.0.1:4444", app);
await d.waitFor("[data-testid=session-item]", { text: "(100000 messages)" });
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
await sleep(10000);
const pid = execFileSync("pgrep", ["-f", `^${app}$`]).toString().trim().split("\n")[0];
const rss = (p) => Number(/VmRSS:\s+(\d+)/.exec(execFileSync("cat", [`/proc/${p}/status`]).toString())[1]) / 1024;
console.log("idle RSS main process MB:", rss(pid).toFixed(1));
try {
  const web = execFileSync("pgrep", ["-f", "WebKitWebProcess"]).toString().trim().split("\n");
  console.log("WebKit web processes MB:", web.map((p) => rss(p).toFixed(1)).join(", "));
} catch {}
await d.close(); td.kill();
