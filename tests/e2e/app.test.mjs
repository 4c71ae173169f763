// End-to-end: the real Alisio window under Xvfb, driven through tauri-driver + WebKitWebDriver.
// Run by tests/e2e/run.sh (which builds the app with the bundled UI and starts Xvfb).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Driver } from "./webdriver.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const app = process.env.ALISIO_APP ?? path.join(root, "target/debug/alisio");
const scriptedServer = process.env.ALISIO_SCRIPTED_SERVER ?? path.join(root, "target/debug/examples/scripted-server");
const shots = process.env.ALISIO_SCREENSHOTS;
const home = fs.mkdtempSync(path.join(os.tmpdir(), "alisio-e2e-"));
// A Codex CLI home the window follows: a real rollout, written in two steps by the import test.
const codexHome = path.join(home, "codex");
// Qwen Code's sessions as its real CLI wrote them, in the location the window follows; the other
// new agents' likewise, each where its environment variable points.
const qwenHome = path.join(home, "qwen");
const agentHomes = {
  PI_CODING_AGENT_DIR: ["pi/home/.pi/agent", "pi-agent"],
  COPILOT_HOME: ["copilot/home/.copilot", "copilot"],
  GEMINI_CLI_HOME: ["gemini/home", "gemini-home"],
  CLINE_DIR: ["cline/home/.cline", "cline"],
};
const agentEnv = Object.fromEntries(Object.entries(agentHomes).map(([name, [, dir]]) => [name, path.join(home, dir)]));
const rollout = path.join(root, "tests/fixtures/import/codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl");
const rolloutLines = fs.readFileSync(rollout, "utf8").trimEnd().split("\n");
const followed = path.join(codexHome, "sessions/2026/11/30", path.basename(rollout));
const checkpoint = {
  goal: "Report parse errors with line numbers",
  instructions: ["Keep parse_config's API"],
  discoveries: ["ParseError lacks a line field"],
  accomplished: ["Added the line field"],
  currentState: "Tests pending",
  nextSteps: ["Run the parser tests again"],
  relevantFiles: ["src/parser.rs"],
};

let server;
let driver;
let tauriDriver;

function cli(...args) {
  return JSON.parse(execFileSync(app, [...args, "--json"], { env: { ...process.env, ALISIO_HOME: home } }).toString());
}

async function shot(name) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  fs.writeFileSync(path.join(shots, `${name}.png`), await driver.screenshot());
}

/** The suite's scripted model server (tests/scripted_server.rs), answering `texts` in order. */
async function startScriptedServer(texts, port) {
  const script = path.join(home, `script-${port ?? "any"}.json`);
  fs.writeFileSync(script, JSON.stringify(texts));
  const child = spawn(scriptedServer, port ? [script, String(port)] : [script], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.split("\n")[0].trim());
    });
    child.on("exit", (code) => reject(new Error(`the scripted server exited (${code})`)));
  });
  return {
    url,
    received: async () => (await fetch(`${url}/__received`)).json(),
    close: () => child.kill(),
  };
}

before(async () => {
  const forgetful = { goal: "tidy up", instructions: [], discoveries: [], accomplished: [], currentState: "fine", nextSteps: [], relevantFiles: [] };
  server = await startScriptedServer([
    "The parser tests will need the line field first.",
    JSON.stringify(checkpoint),
    JSON.stringify(forgetful),
    JSON.stringify(checkpoint), // the pins test's compaction
    "Forked and continued another way.", // the fork test's turn
  ]);
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ provider: { baseUrl: server.url, model: "e2e", maxRetries: 0 }, plugins: [] }));
  // Up to just after the manual compaction; turn 6 is appended while the window shows it.
  fs.cpSync(path.join(root, "tests/fixtures/agents/qwen/home/.qwen"), qwenHome, { recursive: true });
  // Qwen Code 0.24.4's sessions, one renamed with its `/rename` (a title record of its own).
  fs.cpSync(path.join(root, "tests/fixtures/compat/qwen-code/0.24.4/.qwen/projects"), path.join(qwenHome, "projects"), { recursive: true });
  for (const [name, [fixture]] of Object.entries(agentHomes)) {
    fs.cpSync(path.join(root, "tests/fixtures/agents", fixture), agentEnv[name], { recursive: true });
  }
  // Cline's extension task folders beside its 3.x sessions.
  for (const sub of ["tasks", "state"]) {
    fs.cpSync(path.join(root, "tests/fixtures/agents/cline-tasks/home/.cline/data", sub), path.join(agentEnv.CLINE_DIR, "data", sub), { recursive: true });
  }
  // Kilo Code's database where the window follows it ($XDG_DATA_HOME/kilo/kilo.db).
  fs.mkdirSync(path.join(home, "xdg", "kilo"), { recursive: true });
  fs.copyFileSync(path.join(root, "tests/fixtures/compat/kilo/7.7.9/.local/share/kilo/kilo.db"), path.join(home, "xdg", "kilo", "kilo.db"));
  fs.mkdirSync(path.dirname(followed), { recursive: true });
  fs.writeFileSync(followed, rolloutLines.slice(0, 87).join("\n") + "\n");
  tauriDriver = spawn(process.env.TAURI_DRIVER ?? "tauri-driver", ["--port", "4444"], {
    env: { ...process.env, ALISIO_HOME: home, CODEX_HOME: codexHome, QWEN_HOME: qwenHome, XDG_DATA_HOME: path.join(home, "xdg"), ...agentEnv, NO_AT_BRIDGE: "1", DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  driver = await Driver.connect("http://127.0.0.1:4444", app);
});

after(async () => {
  await driver?.close();
  tauriDriver?.kill(); // SIGTERM: tauri-driver stops WebKitWebDriver too
  server?.close();
});

test("the demo session: views, checkpoints, diffs, acknowledging, compacting with a focus, undo", async () => {
  try {
    await demoFlow();
  } catch (error) {
    fs.writeFileSync(path.join(os.tmpdir(), "alisio-e2e-failure.png"), await driver.screenshot().catch(() => Buffer.alloc(0)));
    throw error;
  }
});

async function demoFlow() {
  // First start on a fresh machine: the engine produced the demo session by itself.
  const demo = await driver.waitFor("[data-testid=session-item]", { text: "Demo", timeoutMs: 60_000 });
  await driver.click(demo);
  await driver.waitFor("[data-testid=uncertain-badge]");
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]");
  await driver.waitFor("[data-testid=uncertain-banner]", { text: "cargo test --test parse" });
  await shot("stored-view");

  // Stored view: compacted history is grouped; checkpoints are cards with their sections.
  const groups = await driver.findAll("[data-testid=compacted-group]");
  assert.ok(groups.length >= 1, "compacted messages are grouped");
  const goal = await driver.waitFor("[data-testid=stored-view] [data-testid=section-goal]");
  assert.match(await driver.text(goal), /line number/);
  await driver.waitFor("[data-testid=partial-warning]", { text: "compaction.maxOutputTokens" });

  // Model view: exactly what the next request carries.
  await driver.click(await driver.waitFor("[data-testid=tab-model]"));
  const summary = await driver.waitFor("[data-testid=model-summary]", { text: "Next request" });
  const modelView = cli("sessions", "show", await sessionId(), "--view", "model");
  assert.match(await driver.text(summary), new RegExp(`${modelView.messages.length} messages`));
  await shot("model-view");

  // Trimmed output: the original beside what the model got.
  await driver.click(await driver.waitFor("[data-testid=tab-diffs]"));
  await driver.click(await driver.waitFor("[data-testid=trimmed-item]"));
  const diff = await driver.waitFor("[data-testid=diff-view]", { text: "cut" });
  assert.match(await driver.text(diff), /truncated by context budget/);
  await shot("trimmed-diff");

  // Acknowledge the uncertain tool call by clicking.
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
  await driver.click(await driver.waitFor("[data-testid=acknowledge-banner]"));
  await driver.waitFor("[data-testid=notice]", { text: "result unknown" });

  // A turn from the composer (streamed), then compact with a focus typed as /compact.
  const composer = await driver.waitFor("[data-testid=composer]");
  await driver.type(composer, "What comes next?");
  await driver.click(await driver.waitFor("[data-testid=send]"));
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]", { text: "line field first", timeoutMs: 30_000 });
  // The turn is over: Send is back (Stop used to stay when the turn ended before runTurn answered).
  await driver.waitFor("[data-testid=send]", { timeoutMs: 10_000 });
  await driver.click(await driver.waitFor("[data-testid=compact-button]"));
  await driver.type(await driver.waitFor("[data-testid=focus-input]"), "e2e focus on the parser");
  await driver.click(await driver.waitFor("[data-testid=compact-confirm]"));
  await driver.waitFor("[data-testid=notice]", { text: "applied", timeoutMs: 30_000 });
  await driver.click(await driver.waitFor("[data-testid=tab-timeline]"));
  await driver.waitFor("[data-testid=timeline-entry]", { text: "e2e focus on the parser" });
  await driver.waitFor("[data-testid=timeline-trigger]", { text: "Why: asked for" });
  await shot("timeline");
  const nextSteps = await driver.waitFor("[data-testid=section-nextSteps]", { text: "Run the parser tests again" });
  assert.ok(nextSteps);

  // Requests: the call after the demo's first compaction rewrote the prefix — a cache break.
  await driver.click(await driver.waitFor("[data-testid=tab-requests]"));
  const rows = await driver.waitFor("[data-testid=request-row]");
  assert.ok(rows);
  await driver.click(await driver.waitFor("[data-testid=request-row]:nth-child(6) td"));
  await driver.waitFor("[data-testid=cache-badge]", { text: "cache break at message 1" });
  await driver.waitFor("[data-testid=divergence]", { text: "messages 1" });
  await driver.waitFor("[data-testid=raw-response]", { text: "Answer as received" });
  // The chart: a bar per call, the compactions marked, the cache breaks flagged; exported as SVG.
  const bars = await driver.findAll("[data-testid=chart-bar]");
  const listed = await driver.findAll("[data-testid=request-row]");
  assert.equal(bars.length, listed.length);
  assert.ok((await driver.findAll("[data-testid=chart-compaction]")).length >= 2);
  assert.ok((await driver.findAll("[data-testid=chart-break]")).length >= 1);
  // A click on a compaction marker opens that call (the demo's first compaction is call 5).
  await driver.click(await driver.waitFor("[data-testid=chart-compaction] rect"));
  await driver.waitFor("[data-testid=request-title]", { text: "Call #5" });
  await driver.waitFor("[data-testid=divergence]", { text: "(absent)" });
  await driver.click(await driver.waitFor("[data-testid=chart-export] option[value=svg]"));
  await driver.waitFor("[data-testid=notice]", { text: "Chart saved to" });
  const saved = await driver.execute("return document.querySelector('[data-testid=notice]').textContent");
  const file = saved.match(/Chart saved to (\S+\.svg)/)[1];
  assert.ok(fs.readFileSync(file, "utf8").includes("<svg"), "the exported chart is an SVG file");
  await shot("requests");

  // The summarizer got the live request with the focus appended.
  const ask = (await server.received())[1].messages.at(-1).content;
  assert.match(ask, /Focus the checkpoint on: e2e focus on the parser/);

  // Undo: the database shows the compaction reverted, nothing deleted.
  await driver.click(await driver.waitFor("[data-testid=undo-button]"));
  await driver.waitFor("[data-testid=notice]", { text: "Reverted" });
  const stored = cli("sessions", "show", await sessionId());
  const manual = stored.compactions.filter((c) => c.focus === "e2e focus on the parser");
  assert.equal(manual.length, 1);
  assert.equal(manual[0].status, "reverted");
  assert.ok(stored.toolCalls.some((t) => t.callId === "call_tests-5" && t.state === "acknowledged"));
  assert.ok(stored.messages.some((m) => m.reverted && m.summary), "the reverted checkpoint stays stored");

  // A preview whose checkpoint forgets things: the dialog says what, and "add to checkpoint" puts
  // an item into its section before applying; the timeline then shows the score.
  await driver.click(await driver.waitFor("[data-testid=compact-button]"));
  await driver.click(await driver.waitFor("[data-testid=preview-check]"));
  await driver.click(await driver.waitFor("[data-testid=compact-confirm]"));
  await driver.waitFor("[data-testid=proposal-dialog] [data-testid=fidelity-missing]", { timeoutMs: 30_000 });
  const missingBefore = (await driver.findAll("[data-testid=proposal-dialog] [data-testid=fidelity-missing]")).length;
  const firstValue = await driver.execute("return document.querySelector('[data-testid=fidelity-missing] strong').nextSibling.textContent.trim()");
  await shot("proposal-fidelity");
  await driver.click(await driver.waitFor("[data-testid=fidelity-add]"));
  const editor = await driver.execute("return document.querySelector('[data-testid=proposal-editor]').value");
  assert.ok(editor.includes(JSON.stringify(firstValue).slice(1, -1)), `the editor holds the added item: ${firstValue}`);
  assert.equal((await driver.findAll("[data-testid=proposal-dialog] [data-testid=fidelity-missing]")).length, missingBefore - 1);
  await driver.click(await driver.waitFor("[data-testid=proposal-apply]"));
  await driver.waitFor("[data-testid=notice]", { text: "applied", timeoutMs: 30_000 });
  await driver.click(await driver.waitFor("[data-testid=tab-timeline]"));
  await driver.waitFor("[data-testid=timeline-entry] [data-testid=fidelity-score]", { text: "kept" });
  const applied = cli("sessions", "show", await sessionId()).compactions.at(-1);
  assert.equal(applied.fidelity.missing.length, missingBefore - 1, "the applied checkpoint keeps the added item");
}

test("pins: a message pinned from its button is listed; the dialog previews each strategy, masks, then summarizes with the pin right after the checkpoint", async () => {
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
  // Every checkpoint undone (the demo's and the demo test's): the whole history is live again,
  // the build log's long output with it (cut by the budget).
  const undone = await sessionId();
  for (;;) {
    const applied = cli("sessions", "show", undone).compactions.filter((c) => c.status === "applied" && c.kind === "checkpoint");
    if (applied.length === 0) break;
    await driver.click(await driver.waitFor("[data-testid=undo-button]"));
    await driver.waitFor("[data-testid=notice]", { text: `#${applied.at(-1).id}` }).catch(async (e) => {
      throw new Error(`${e.message}: ${JSON.stringify(applied)} ${await driver.execute("return document.body.innerText.slice(0, 3000)")}`);
    });
  }
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]", { text: "What comes next?" });
  await driver.execute(`
    const row = Array.from(document.querySelectorAll('[data-testid=stored-view] [data-testid=message]'))
      .find((m) => m.textContent.includes('What comes next?') && m.querySelector('[data-testid=pin-message]'));
    row.querySelector('[data-testid=pin-message]').click();`);
  await driver.waitFor("[data-testid=pins] [data-testid=pin]", { text: "What comes next?" });
  const id = await sessionId();
  assert.deepEqual(cli("pin", id, "--list").map((p) => p.text), ["What comes next?"]);

  // The dialog previews every strategy before anything is applied; masking is chosen first.
  const before = cli("sessions", "show", id).compactions.length;
  await driver.click(await driver.waitFor("[data-testid=compact-button]"));
  const plan = cli("compact", id, "--plan");
  const mask = plan.find((p) => p.strategy === "mask");
  assert.equal(mask.unavailable, null, JSON.stringify(plan));
  assert.ok(mask.afterTokens < mask.beforeTokens && mask.masked > 0, JSON.stringify(mask));
  await driver.waitFor("[data-testid=strategy-mask] [data-testid=strategy-effect]", { text: `→ ${mask.afterTokens.toLocaleString("en-US")} tokens` });
  await driver.waitFor("[data-testid=strategy-native] [data-testid=strategy-effect]", { text: "+ a checkpoint ≤" });
  await shot("compact-strategies");
  await driver.click(await driver.waitFor("[data-testid=strategy-mask] input"));
  await driver.click(await driver.waitFor("[data-testid=compact-confirm]", { text: "Compact: Mask" }));
  await driver.waitFor("[data-testid=notice]", { text: "applied", timeoutMs: 30_000 });
  const masked = cli("sessions", "show", id).compactions;
  assert.equal(masked.length, before + 1);
  assert.equal(masked.at(-1).reason, "mask");
  const view = cli("sessions", "show", id, "--view", "model").messages;
  assert.equal(view.filter((m) => m.role === "tool" && String(m.content).startsWith("[output omitted: ")).length, mask.masked);
  assert.ok(view.some((m) => m.content === "What comes next?"), "the pinned message is never masked");

  // Then the summary: the pin follows its checkpoint.
  await driver.click(await driver.waitFor("[data-testid=compact-button]"));
  await driver.click(await driver.waitFor("[data-testid=strategy-native] input"));
  await driver.click(await driver.waitFor("[data-testid=compact-confirm]", { text: "Compact: Summary" }));
  await driver.waitFor("[data-testid=notice]", { text: "applied", timeoutMs: 30_000 });
  await driver.waitFor("[data-testid=stored-view] .kind-pinned", { text: "What comes next?" });
  await shot("pinned");
  // What the next request carries: the checkpoint, then the pinned block.
  const model = cli("sessions", "show", id, "--view", "model").messages;
  const at = model.findLastIndex((m) => typeof m.content === "string" && m.content.startsWith("## Checkpoint"));
  assert.ok(at >= 0, "a checkpoint in the model view");
  assert.ok(model[at + 1].content.startsWith("## Pinned") && model[at + 1].content.includes("\nWhat comes next?\n"), model[at + 1].content);
  const applied = cli("sessions", "show", id).compactions.at(-1);
  assert.deepEqual(applied.fidelity.pins, [{ id: 1, kept: true }]);
  // The model view marks the block.
  await driver.click(await driver.waitFor("[data-testid=tab-model]"));
  await driver.waitFor("[data-testid=wire-item] [data-testid=wire-pinned]");
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));

  // Removed from the panel: the list is empty again.
  await driver.click(await driver.waitFor("[data-testid=remove-pin]"));
  await driver.waitFor("[data-testid=notice]", { text: "Pin 1 removed" });
  assert.deepEqual(cli("pin", id, "--list"), []);
});

test("compare strategies: the demo forked and compacted by masking and pruning, each arm's probes in a table; the library unchanged", async () => {
  const demo = await sessionId();
  const before = cli("sessions", "list").length;
  await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "Demo" }));
  await driver.click(await driver.waitFor("[data-testid=tab-timeline]"));
  await driver.click(await driver.waitFor("[data-testid=compare-strategies]"));
  await driver.waitFor("[data-testid=bench-dialog]");
  // No summarizer arm: nothing for the scripted server to answer.
  for (const arm of ["native", "cache", "hybrid"]) await driver.click(await driver.waitFor(`[data-testid=bench-check-${arm}]`));
  await driver.click(await driver.waitFor("[data-testid=bench-run]"));
  await driver.waitFor("[data-testid=bench-arm][data-strategy=prune]", { timeoutMs: 60_000 });
  const expected = cli("bench", "compaction", demo, "--strategies", "mask,prune");
  for (const arm of expected.arms) {
    const row = await driver.waitFor(`[data-testid=bench-arm][data-strategy=${arm.strategy}]`);
    const shown = await driver.text(row);
    const probes = arm.probes.total === 0 ? "—" : `${arm.probes.kept}/${arm.probes.total}`;
    assert.ok(shown.includes(probes), `${arm.strategy}: ${shown} shows ${probes}`);
  }
  await shot("compare-strategies");
  assert.equal(cli("sessions", "list").length, before, "the forks were removed");
  await driver.execute("document.querySelector('[data-testid=bench-dialog]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))");
  for (let i = 0; i < 50 && (await driver.execute("return document.querySelector('[data-testid=bench-dialog]') !== null")); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
});

test("fork and compare: forked from a message, a turn run in the fork, the two compared", async () => {
  const source = await sessionId();
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
  const answer = await driver.waitFor("[data-testid=stored-view] [data-testid=message]", { text: "line field first" });
  const at = await driver.execute(
    "return Number([...document.querySelectorAll('[data-testid=stored-view] [data-testid=message]')].find((m) => m.textContent.includes('line field first') && m.querySelector('[data-testid=fork-message]')).dataset.seq)",
  );
  await driver.click(await driver.findIn(answer, "[data-testid=fork-message]"));
  await driver.waitFor("[data-testid=notice]", { text: `Forked at #${at}` });
  await driver.waitFor("[data-testid=session-item].active", { text: "Fork of Demo" });
  const fork = cli("sessions", "list").find((s) => s.title.startsWith("Fork of Demo"));
  const shown = cli("sessions", "show", fork.id);
  assert.deepEqual(shown.forkedFrom, { session: source, seq: at });

  // A turn in the fork: its request carries the source's history up to the fork point.
  const before = (await server.received()).length;
  await driver.type(await driver.waitFor("[data-testid=composer]"), "Try another way.");
  await driver.click(await driver.waitFor("[data-testid=send]"));
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]", { text: "Forked and continued another way.", timeoutMs: 30_000 });
  const sent = (await server.received()).slice(before);
  assert.equal(sent.length, 1);
  const texts = sent[0].messages.map((m) => m.content);
  assert.ok(texts.includes("The parser tests will need the line field first."), JSON.stringify(texts));
  assert.equal(texts.at(-1), "Try another way.");

  // Compare: the fork beside its source, the shared prefix and where they part.
  const diff = cli("sessions", "diff", source, fork.id);
  await driver.click(await driver.waitFor("[data-testid=tab-compare]"));
  await driver.waitFor("[data-testid=compare-summary]", { text: `${diff.sharedMessages} message` });
  await driver.waitFor("[data-testid=first-divergence]", { text: "Try another way." });
  await driver.waitFor("[data-testid=compare-row]", { text: "calls" });
  await shot("compare");
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
  await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "Demo —" }));
});

test("an imported Codex session: source badge, read-only, reconstructed view, its compaction, followed live", async () => {
  try {
    await importFlow();
  } catch (error) {
    fs.writeFileSync(path.join(os.tmpdir(), "alisio-e2e-import-failure.png"), await driver.screenshot().catch(() => Buffer.alloc(0)));
    throw error;
  }
});

async function importFlow() {
  // The window follows the default locations: the rollout is there without asking.
  await driver.waitFor("[data-testid=source-location]", { text: "codex: 1 session", timeoutMs: 30_000 });
  // Among every agent's sessions, found by its agent's filter.
  await driver.execute("const s = document.querySelector('[data-testid=library-agent]'); s.value = 'codex'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  const item = await driver.waitFor("[data-testid=session-item]", { text: "DO exec_command", timeoutMs: 30_000 });
  await driver.click(item);
  await driver.waitFor("[data-testid=session-item].active [data-testid=source-badge]", { text: "codex" });
  await driver.execute("const s = document.querySelector('[data-testid=library-agent]'); s.value = ''; s.dispatchEvent(new Event('change', { bubbles: true }));");
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
  await driver.waitFor("[data-testid=stored-view] [data-testid=checkpoint-card]", { text: "Another language model" });
  assert.equal(await driver.execute("return document.querySelector('[data-testid=composer]').disabled"), true, "run is refused");
  assert.equal(await driver.execute("return document.querySelector('[data-testid=compact-button]').disabled"), true, "compact is refused");
  assert.match(await driver.execute("return document.querySelector('[data-testid=composer]').placeholder"), /Imported from codex/);

  await driver.click(await driver.waitFor("[data-testid=tab-timeline]"));
  await driver.waitFor("[data-testid=timeline-entry]", { text: "compaction · manual" });
  await driver.click(await driver.waitFor("[data-testid=tab-model]"));
  await driver.waitFor("[data-testid=reconstructed]");
  await driver.waitFor("[data-testid=model-summary]", { text: "reconstructed" });
  await driver.waitFor("[data-testid=model-missing]", { text: "tools not recorded by Codex: ≈" });
  await shot("imported-codex");

  // Every call says how its body is known; a reconstructed one lists what Codex did not record,
  // and the composition chart stacks those parts as hatched estimates.
  await driver.click(await driver.waitFor("[data-testid=tab-requests]"));
  await driver.waitFor("[data-testid=request-row] [data-testid=source-badge]", { text: "reconstructed" });
  const badges = await driver.execute("return [...document.querySelectorAll('[data-testid=request-row] [data-testid=source-badge]')].map((b) => b.textContent)");
  const calls = cli("calls", "list", session().id);
  assert.deepEqual(badges, calls.map((c) => (c.exact ? "exact" : "reconstructed")), "one badge per call, as the ledger says");
  await driver.waitFor("[data-testid=provenance] [data-testid=missing-parts]", { text: "system prompt not recorded by Codex: ≈" });
  await driver.click(await driver.waitFor("[data-testid=chart-composition]"));
  await driver.waitFor("[data-testid=composition-chart] [data-testid=composition-missing]");
  assert.equal(await driver.execute("return document.querySelectorAll('[data-testid=composition-bar]').length"), calls.length);
  await shot("composition");

  // Codex appends turn 6: it shows up in place, without a reload.
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
  const marker = await driver.execute("const v = document.querySelector('[data-testid=stored-view]'); v.dataset.marker = 'kept'; return v.dataset.marker");
  fs.appendFileSync(followed, rolloutLines.slice(87).join("\n") + "\n");
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]", { text: "ack call_11-Zq.9/x", timeoutMs: 10_000 });
  assert.equal(await driver.execute("return document.querySelector('[data-testid=stored-view]').dataset.marker"), marker, "the view was not rebuilt");
  assert.equal(session().sourcePath, followed);
}

function session() {
  return cli("sessions", "list").find((s) => s.source === "codex");
}

test("usage and the cache: the Usage view over every session, the sessions behind a row, a break's cause", async () => {
  const usage = cli("usage", "--by", "source");
  await driver.click(await driver.waitFor("[data-testid=tab-usage]"));
  await driver.waitFor("[data-testid=usage-view] [data-testid=usage-total]", { text: `over ${usage.total.calls} calls` });
  await driver.waitFor("[data-testid=usage-chart] [data-testid=usage-bar]");
  // The models without a price, named with the command that prices them, as `alisio usage` says.
  if (usage.unpricedModels.length > 0) {
    const note = await driver.waitFor("[data-testid=usage-unpriced-models]", { text: usage.unpricedModels[0].model });
    assert.match(await driver.text(note), /alisio prices update/);
  } else {
    assert.equal(await driver.execute("return document.querySelectorAll('[data-testid=usage-unpriced-models]').length"), 0);
  }
  await driver.execute("const s = document.querySelector('[data-testid=usage-by]'); s.value = 'source'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  const codex = await driver.waitFor("[data-testid=usage-row]", { text: "codex" });
  const rows = await driver.execute("return document.querySelectorAll('[data-testid=usage-row]').length");
  assert.equal(rows, usage.rows.length, "one row per source, as `alisio usage --by source` says");
  await shot("usage");
  await driver.click(await driver.findIn(codex, "td"));
  await driver.click(await driver.waitFor("[data-testid=usage-session]", { text: "DO exec_command" }));
  await driver.waitFor("[data-testid=session-item].active [data-testid=source-badge]", { text: "codex" });

  // Its break: the cause the engine finds, in the header, the Requests pane and the chart.
  const breaks = cli("calls", "breaks", session().id);
  assert.ok(breaks.length > 0, "the followed Codex session has a cache break");
  const last = breaks.at(-1);
  await driver.waitFor("[data-testid=cache-header] [data-testid=live-hit-rate]", { text: "%" });
  await driver.click(await driver.waitFor("[data-testid=tab-requests]"));
  const flagged = await driver.waitFor("[data-testid=row-cache-break]", { text: last.cause });
  await driver.click(flagged);
  await driver.waitFor("[data-testid=break-cause]", { text: `Cache ${last.cause} against call #${last.against}` });
  await driver.waitFor("[data-testid=break-cause]", { text: `${last.lostTokens.toLocaleString("en-US")} tokens processed again` });
  await shot("break-cause");
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
});

test("search: a query in the sidebar (Ctrl+K) lists matching messages of every session and opens one at its place", async () => {
  const expected = cli("search", '"ParseError"*');
  assert.ok(expected.total > 0);
  const box = await driver.waitFor("[data-testid=session-search]");
  await driver.type(box, "ParseError");
  await driver.waitFor("[data-testid=search-total]", { text: `${expected.total} message` });
  const hit = expected.hits[0];
  const first = await driver.waitFor("[data-testid=search-hit]", { text: `#${hit.seq} ${hit.role}` });
  await shot("search");
  await driver.click(first);
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]", { text: "ParseError" });
  const shown = await driver.execute("return document.querySelector('[data-testid=composer]').placeholder");
  assert.ok(!shown.includes("Imported from codex"), "the hit's session (the demo) is open, not the one before");
  // What developers type — ids, model names, symbols, file names, paths, a lone quote — is found
  // as typed, under its session.
  // Written where the window follows Codex's sessions, so the window imports it itself.
  const text = 'ERR-42 came back from gpt-4o while foo::bar parsed notes.txt under src/parser.rs; it said "quoted fragment here';
  const typedId = "01a22d92-0000-7000-8000-00000000e42e";
  const meta = { timestamp: "2026-11-30T10:00:00.000Z", type: "session_meta", payload: { id: typedId, timestamp: "2026-11-30T10:00:00.000Z", cwd: "/tmp/search", originator: "codex_cli_rs", cli_version: "0.39.0" } };
  const said = { timestamp: "2026-11-30T10:00:01.000Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text }] } };
  const typedFile = path.join(codexHome, "sessions/2026/11/30", `rollout-2026-11-30T10-00-00-${typedId}.jsonl`);
  fs.writeFileSync(typedFile, [meta, said].map((r) => JSON.stringify(r)).join("\n") + "\n");
  let found = cli("search", "ERR-42");
  for (let i = 0; i < 100 && found.total === 0; i++) {
    await new Promise((r) => setTimeout(r, 200));
    found = cli("search", "ERR-42");
  }
  const typed = found.hits[0].session;
  const query = (q) => driver.execute(`const b = document.querySelector('[data-testid=session-search]'); b.value = arguments[0]; b.dispatchEvent(new Event('input', { bubbles: true }));`, [q]);
  for (const q of ["ERR-42", "gpt-4o", "foo::bar", "notes.txt", "src/parser.rs", '"quoted', "parser.rs notes.txt"]) {
    await query(q);
    await driver.waitFor(`[data-testid=search-group][data-session="${typed}"]`);
    assert.equal(cli("search", q, "--session", typed).total, 1, `the CLI finds ${q} too`);
  }
  await driver.execute("const b = document.querySelector('[data-testid=session-search]'); b.value = ''; b.dispatchEvent(new Event('input', { bubbles: true }));");
  // The list is back (where it was scrolled: the session shown need not be in view).
  await driver.waitFor("[data-testid=session-item]");
  assert.equal(await driver.execute("return document.querySelector('[data-testid=search-hits]')"), null, "the hits go with the query");
});

test("library: sessions grouped by project or agent, filtered by agent, opened from the list", async () => {
  // The session list is resized from its edge, and keeps its width.
  await driver.execute(`
    const handle = document.querySelector('[data-testid=sidebar-resizer]');
    handle.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, clientX: 240 }));
    window.dispatchEvent(new MouseEvent('mousemove', { clientX: 420 }));
    window.dispatchEvent(new MouseEvent('mouseup', {}));`);
  const measure = () => driver.execute("return [Math.round(document.querySelector('.sidebar').getBoundingClientRect().width), localStorage.getItem('alisio.sidebarWidth')]");
  let width = await measure();
  for (let i = 0; i < 50 && width[0] !== 420; i++) {
    await new Promise((r) => setTimeout(r, 100));
    width = await measure();
  }
  assert.deepEqual(width, [420, "420"], "the sidebar is as wide as it was dragged, and remembered");
  // Back to its default, so no later test (nor a later run: WebKit keeps localStorage) inherits it.
  await driver.execute(`
    document.querySelector('[data-testid=sidebar-resizer]').dispatchEvent(new MouseEvent('mousedown', { bubbles: true, clientX: 420 }));
    window.dispatchEvent(new MouseEvent('mousemove', { clientX: 240 }));
    window.dispatchEvent(new MouseEvent('mouseup', {}));`);
  const sessions = cli("sessions", "list");
  const projects = new Set(sessions.map((s) => s.project || s.workspace));
  await driver.waitFor("[data-testid=library] [data-testid=library-count]", { text: `${sessions.length} sessions` });
  const groups = () => driver.execute("return [...document.querySelectorAll('[data-testid=library-group] .group-label')].map((g) => g.textContent)");
  await driver.execute("const s = document.querySelector('[data-testid=library-grouping]'); s.value = 'project'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  // Groups out of view are not in the page (the list is virtualized): those shown are projects,
  // and there are as many as projects.
  assert.ok((await groups()).every((g) => projects.has(g)), "each group is a project");
  assert.equal(Number(await driver.execute("return document.querySelector('[data-testid=library-count]').dataset.groups")), projects.size, "one group per project");
  await driver.execute("const s = document.querySelector('[data-testid=library-grouping]'); s.value = 'agent'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  const agents = new Set(sessions.map((s) => s.source ?? "alisio"));
  for (const agent of ["qwen-code", "pi", "copilot-cli", "gemini-cli", "cline", "kilo"]) {
    assert.ok(agents.has(agent), `${agent}'s sessions, followed from their default location, are in the library`);
  }
  // Each of Cline's two locations (3.x sessions, extension task folders) counts its own sessions.
  await driver.waitFor("[data-testid=source-location]", { text: "cline: 2 sessions · 2 imported" });
  await driver.waitFor("[data-testid=source-location]", { text: "cline: 5 sessions · 5 imported" });
  await driver.waitFor(`[data-testid=library-count][data-groups="${agents.size}"]`);
  assert.ok((await groups()).every((g) => agents.has(g)), "each group is an agent");
  await shot("library");
  // Only Codex: the count says so, and its session opens from the list.
  await driver.execute("const s = document.querySelector('[data-testid=library-agent]'); s.value = 'codex'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  const codex = sessions.filter((s) => s.source === "codex").length;
  await driver.waitFor("[data-testid=library-count]", { text: `${codex} of ${sessions.length} sessions` });
  await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "DO exec_command" }));
  await driver.waitFor("[data-testid=session-item].active [data-testid=source-badge]", { text: "codex" });
  // A collapsed group keeps its header alone.
  await driver.click(await driver.waitFor("[data-testid=library-group]", { text: "codex" }));
  assert.equal(await driver.execute("return document.querySelectorAll('[data-testid=session-item]').length"), 0);
  await driver.click(await driver.waitFor("[data-testid=library-group]", { text: "codex" }));
  // Each new agent: its filter counts its sessions, and one opens with its own badge, read-only.
  for (const agent of ["pi", "copilot-cli", "gemini-cli", "cline", "kilo"]) {
    await driver.execute(`const s = document.querySelector('[data-testid=library-agent]'); s.value = '${agent}'; s.dispatchEvent(new Event('change', { bubbles: true }));`);
    const count = sessions.filter((s) => s.source === agent).length;
    await driver.waitFor("[data-testid=library-count]", { text: `${count} of ${sessions.length} sessions` });
    await driver.click(await driver.waitFor("[data-testid=session-item]"));
    await driver.waitFor("[data-testid=session-item].active [data-testid=source-badge]", { text: agent });
  }
  await driver.execute("const s = document.querySelector('[data-testid=library-agent]'); s.value = ''; s.dispatchEvent(new Event('change', { bubbles: true }));");
  await driver.execute("const s = document.querySelector('[data-testid=library-grouping]'); s.value = 'project'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "Demo" }));
});

test("the Library view: every session in a table, sorted by a column, filtered, renamed and opened; titles from the agents' records", async () => {
  // Every followed folder read (the list stops growing): the table and the CLI see the same library.
  let sessions = cli("sessions", "list");
  for (let seen = -1; seen !== sessions.length; sessions = cli("sessions", "list")) {
    seen = sessions.length;
    await new Promise((r) => setTimeout(r, 1500));
  }
  const byId = new Map(sessions.map((s) => [s.id, s]));
  await driver.click(await driver.waitFor("[data-testid=tab-library]"));
  await driver.waitFor("[data-testid=library-view] [data-testid=library-count]", { text: `${sessions.length} sessions` });
  const shownRows = () => driver.execute("return [...document.querySelectorAll('[data-testid=library-row]')].map((r) => r.dataset.session)");
  const sortBy = async (column, order) => {
    const header = await driver.waitFor(`[data-testid=library-header-${column}]`);
    const sorted = () => driver.execute(`return document.querySelector('[data-testid=library-header-${column}]').getAttribute('aria-sort')`);
    for (let i = 0; i < 3 && (await sorted()) !== order; i++) {
      await driver.click(header);
    }
    await driver.waitFor(`[data-testid=library-header-${column}][aria-sort=${order}]`);
  };
  // By calls, most first: the rows on screen are in that order, the busiest session first.
  await sortBy("calls", "descending");
  let rows = await shownRows();
  assert.ok(rows.length >= Math.min(sessions.length, 6), "the table shows rows");
  const calls = rows.map((id) => byId.get(id).calls);
  assert.deepEqual(calls, [...calls].sort((a, b) => b - a), "sorted by calls, most first");
  assert.equal(calls[0], Math.max(...sessions.map((s) => s.calls)));
  // By tokens in, fewest first.
  await sortBy("tokensIn", "ascending");
  rows = await shownRows();
  const tokens = rows.map((id) => byId.get(id).promptTokens);
  assert.deepEqual(tokens, [...tokens].sort((a, b) => a - b), "sorted by tokens in, fewest first");
  // The title Qwen Code's `/rename` recorded is the session's title; the filter finds it.
  const renamed = sessions.find((s) => s.title === "compat custom title 0.24");
  assert.ok(renamed, "the agent's own title record names the session");
  await driver.type(await driver.waitFor("[data-testid=library-filter]"), "compat custom title");
  await driver.waitFor("[data-testid=library-view] [data-testid=library-count]", { text: `1 of ${sessions.length} sessions` });
  assert.deepEqual(await shownRows(), [renamed.id]);
  await shot("library-view");
  // Renamed in Alisio: the new title shows, the agent's is kept apart.
  await driver.click(await driver.waitFor("[data-testid=library-row]"));
  await driver.click(await driver.waitFor("[data-testid=library-rename]"));
  // The field opens with its title selected; the new one is typed over it and Enter saves.
  await driver.waitFor("[data-testid=rename-input]");
  await driver.execute(`
    const field = document.querySelector('[data-testid=rename-input]');
    field.value = 'compat custom title 0.24 (checked)';
    field.dispatchEvent(new Event('input', { bubbles: true }));
    field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));`);
  await driver.waitFor("[data-testid=library-row] [data-testid=agent-title]", { text: "compat custom title 0.24" });
  const after = cli("sessions", "list").find((s) => s.id === renamed.id);
  assert.deepEqual([after.title, after.agentTitle], ["compat custom title 0.24 (checked)", "compat custom title 0.24"]);
  // Opened with a double click: the session is the one shown.
  await driver.execute("document.querySelector('[data-testid=library-row]').dispatchEvent(new MouseEvent('dblclick', { bubbles: true }))");
  await driver.waitFor("[data-testid=session-item].active", { text: "compat custom title 0.24 (checked)" });
  await driver.waitFor("[data-testid=session-item].active [data-testid=source-badge]", { text: "qwen-code" });
  // Back to the agent's own title, and the filter cleared, for the tests after this one.
  execFileSync(app, ["sessions", "rename", renamed.id], { env: { ...process.env, ALISIO_HOME: home } });
  await driver.click(await driver.waitFor("[data-testid=tab-library]"));
  await driver.clear(await driver.waitFor("[data-testid=library-filter]"));
  await driver.click(await driver.waitFor("[data-testid=tab-stored]"));
});

test("export: the shown session written as JSON with secrets redacted", async () => {
  const target = path.join(home, "exported", "session.json");
  await driver.click(await driver.waitFor("[data-testid=export-button]"));
  await driver.waitFor("[data-testid=export-dialog]");
  await driver.execute("const s = document.querySelector('[data-testid=export-format]'); s.value = 'json'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  await driver.type(await driver.waitFor("[data-testid=export-path]"), target);
  await driver.click(await driver.waitFor("[data-testid=export-run]"));
  await driver.waitFor("[data-testid=export-result]", { text: `Wrote ${target}; ` });
  assert.match(await driver.text(await driver.waitFor("[data-testid=export-result]")), /secrets? redacted/);
  const doc = JSON.parse(fs.readFileSync(target, "utf8"));
  assert.deepEqual(Object.keys(doc), ["v", "session", "messages", "compactions", "modelCalls"]);
  assert.equal(doc.v, 1);
  await shot("export");
  await driver.click(await driver.waitFor("[data-testid=export-dialog] [aria-label=Close]"));
});

test("export review: what will be redacted is listed, an added pattern is redacted in the written page", async () => {
  const target = path.join(home, "exported", "demo.html");
  await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "Demo" }));
  await driver.waitFor("[data-testid=stored-view] [data-testid=message]");
  await driver.click(await driver.waitFor("[data-testid=export-button]"));
  await driver.waitFor("[data-testid=export-review-summary]", { text: "redacted" });
  await driver.execute("const s = document.querySelector('[data-testid=export-format]'); s.value = 'html'; s.dispatchEvent(new Event('change', { bubbles: true }));");
  await driver.type(await driver.waitFor("[data-testid=export-path]"), target);
  await driver.type(await driver.waitFor("[data-testid=export-extra]"), "ParseError");
  await driver.click(await driver.waitFor("[data-testid=export-extra-add]"));
  await driver.waitFor("[data-testid=export-extra-chip]", { text: "ParseError" });
  await driver.waitFor("[data-testid=export-finding]", { text: "extra in" });
  await shot("export-review");
  await driver.click(await driver.waitFor("[data-testid=export-run]"));
  await driver.waitFor("[data-testid=export-result]", { text: `Wrote ${target}; ` });
  const page = fs.readFileSync(target, "utf8");
  assert.ok(page.startsWith("<!doctype html>"), "a self-contained page");
  assert.ok(!page.includes("ParseError"), "the added pattern is redacted");
  assert.ok(page.includes("[REDACTED:extra]"));
  await driver.click(await driver.waitFor("[data-testid=export-dialog] [aria-label=Close]"));
});

test("settings: a server found on a usual port becomes a profile, tested, and a bad value is refused", async () => {
  // LM Studio's usual port; the finder asks it for /v1/models like the real server answers.
  const local = await startScriptedServer(["unused"], 1234);
  try {
    await settingsFlow();
  } catch (error) {
    fs.writeFileSync(path.join(os.tmpdir(), "alisio-e2e-failure.png"), await driver.screenshot().catch(() => Buffer.alloc(0)));
    throw error;
  } finally {
    local.close();
  }
});

async function settingsFlow() {
  await driver.click(await driver.waitFor("[data-testid=open-settings]"));
  await driver.waitFor("[data-testid=settings-dialog]");
  // The About line names the same release and commit as `alisio --version`.
  const version = execFileSync(app, ["--version"]).toString().trim().replace(/^alisio /, "Alisio ");
  await driver.waitFor("[data-testid=about]", { text: version });
  await driver.click(await driver.waitFor("[data-testid=find-servers]"));
  await driver.waitFor("[data-testid=found-server]", { text: "127.0.0.1:1234", timeoutMs: 20_000 });
  const found = await driver.findAll("[data-testid=found-server]");
  let lmstudio = null;
  for (const row of found) if ((await driver.text(row)).includes(":1234")) lmstudio = row;
  assert.match(await driver.text(lmstudio), /LM Studio .* 1 model · window 32,768/);
  await driver.click(await driver.findIn(lmstudio, "[data-testid=use-server]"));
  await driver.waitFor("[data-testid=settings-message]", { text: 'Profile "lmstudio" saved and active' });
  const saved = JSON.parse(fs.readFileSync(path.join(home, "config.json"), "utf8"));
  assert.deepEqual(saved.profiles.lmstudio, { baseUrl: "http://127.0.0.1:1234/v1", model: "e2e-local", apiKeyEnv: null });
  assert.equal(saved.activeProfile, "lmstudio");
  await shot("settings-profile");

  // The profile's card: tested, the discovered window offered as the field's placeholder.
  const card = await driver.waitFor("[data-testid=profile-card][data-profile=lmstudio]");
  await driver.click(await driver.findIn(card, "[data-testid=profile-test]"));
  await driver.waitFor("[data-testid=profile-card][data-profile=lmstudio] [data-testid=profile-test-result]", { text: "Connected to http://127.0.0.1:1234/v1: e2e-local; context window 32768" });
  assert.equal(await driver.execute("return document.querySelector('[data-testid=profile-card][data-profile=lmstudio] [data-testid=profile-window]').placeholder"), "discovered: 32768");

  // A bad value is refused naming the key, and nothing is written.
  const url = await driver.findIn(card, "[data-testid=profile-base-url]");
  await driver.clear(url);
  await driver.type(url, "localhost:1234");
  await driver.click(await driver.waitFor("[data-testid=settings-save]"));
  await driver.waitFor("[data-testid=settings-message]", { text: "profiles.lmstudio.baseUrl" });
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, "config.json"), "utf8")), saved);

  // Permissions and MCP servers are forms too.
  await driver.click(await driver.waitFor("[data-testid=settings-tab-permissions]"));
  await driver.waitFor("[data-testid=permission-shell]");
  await driver.click(await driver.waitFor("[data-testid=settings-tab-mcp]"));
  await driver.type(await driver.waitFor("[data-testid=new-mcp-name]"), "time");
  await driver.click(await driver.waitFor("[data-testid=add-mcp]"));
  await driver.waitFor("[data-testid=mcp-card]", { text: "time" });
}

test("--profile reaches the window: the meter shows the profile's window; the forms show the engine's defaults", async () => {
  // A window started with a profile, as `alisio --profile roomy` starts it.
  await driver.close();
  const config = JSON.parse(fs.readFileSync(path.join(home, "config.json"), "utf8"));
  config.profiles = { ...config.profiles, roomy: { baseUrl: server.url, model: "e2e", apiKeyEnv: null, contextWindow: 54321 } };
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify(config));
  driver = await Driver.connect("http://127.0.0.1:4444", app, 60_000, ["--profile", "roomy"]);
  try {
    await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "Demo", timeoutMs: 60_000 }));
    await driver.waitFor("[data-testid=context-meter]", { text: "54.3k tokens (the profile's contextWindow)" });
    await driver.click(await driver.waitFor("[data-testid=open-settings]"));
    await driver.click(await driver.waitFor("[data-testid=settings-tab-compaction]"));
    const placeholder = (key) => driver.execute(`return document.querySelector('[data-testid="field-${key}"]').placeholder`);
    assert.equal(await placeholder("compaction.maxOutputTokens"), "16000");
    assert.equal(await placeholder("cacheCompact.threshold"), "68");
    assert.equal(await placeholder("cacheCompact.summaryMaxTokens"), "1200");
    await driver.click(await driver.waitFor("[data-testid=settings-tab-limits]"));
    assert.equal(await placeholder("limits.maxOutputTokens"), "8192");
  } catch (error) {
    fs.writeFileSync(path.join(os.tmpdir(), "alisio-e2e-failure.png"), await driver.screenshot().catch(() => Buffer.alloc(0)));
    throw error;
  }
});

test("the meter names the strategy in force, for each of the four", async () => {
  const original = fs.readFileSync(path.join(home, "config.json"), "utf8");
  try {
    for (const strategy of ["native", "cache", "mask", "hybrid"]) {
      await driver.close();
      const config = JSON.parse(original);
      config.compaction = { ...config.compaction, strategy };
      fs.writeFileSync(path.join(home, "config.json"), JSON.stringify(config));
      driver = await Driver.connect("http://127.0.0.1:4444", app, 60_000);
      await driver.click(await driver.waitFor("[data-testid=session-item]", { text: "Demo", timeoutMs: 60_000 }));
      await driver.waitFor("[data-testid=context-meter] [data-testid=meter-strategy]", { text: strategy });
      const legend = await driver.text(await driver.waitFor("[data-testid=context-meter]"));
      // The trigger in force: cacheCompact.threshold (68 %) for cache, compaction.threshold (85 %) for the rest.
      assert.match(legend, strategy === "cache" ? /threshold 68 %/ : /threshold 85 %/, legend);
    }
  } catch (error) {
    fs.writeFileSync(path.join(os.tmpdir(), "alisio-e2e-failure.png"), await driver.screenshot().catch(() => Buffer.alloc(0)));
    throw error;
  } finally {
    fs.writeFileSync(path.join(home, "config.json"), original);
  }
});

async function sessionId() {
  const sessions = cli("sessions", "list");
  const demo = sessions.find((s) => s.title.startsWith("Demo"));
  assert.ok(demo, "the demo session exists");
  return demo.id;
}

test("the recording proxy: started from its panel, a call through it captured byte for byte and opened", async () => {
  const upstream = await startScriptedServer(["Answered through the proxy."]);
  try {
    // Whatever dialog an earlier test left open closes with Escape.
    await driver.execute("window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }))");
    await driver.click(await driver.waitFor("[data-testid=proxy-button]"));
    await driver.type(await driver.waitFor("[data-testid=proxy-upstream]"), upstream.url);
    await driver.clear(await driver.waitFor("[data-testid=proxy-listen]"));
    await driver.type(await driver.waitFor("[data-testid=proxy-listen]"), "127.0.0.1:0");
    await driver.click(await driver.waitFor("[data-testid=proxy-start]"));
    await driver.waitFor("[data-testid=proxy-running]", { text: upstream.url });
    const address = await driver.execute("return document.querySelector('[data-testid=proxy-address]').value");
    assert.match(address, /^http:\/\/127\.0\.0\.1:\d+$/);
    await driver.waitFor("[data-testid=proxy-button]", { text: "● Proxy" });

    const body = JSON.stringify({ model: "e2e", messages: [{ role: "user", content: "through the proxy" }], stream: false });
    const answer = await fetch(`${address}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-e2e-secret-key-0000000000" }, body });
    assert.equal(answer.status, 200);
    assert.match(await answer.text(), /Answered through the proxy/);
    const received = await upstream.received();
    assert.deepEqual(received.at(-1), JSON.parse(body), "the upstream got the request sent");

    await driver.waitFor("[data-testid=proxy-captured]", { text: "1 call captured" });
    await shot("proxy");
    await driver.click(await driver.waitFor("[data-testid=proxy-call] td"));
    await driver.click(await driver.waitFor("[data-testid=tab-requests]"));
    await driver.waitFor("[data-testid=request-row] [data-testid=source-badge]", { text: "exact" });
    await driver.waitFor("[data-testid=provenance]", { text: "alisio proxy" });

    await driver.click(await driver.waitFor("[data-testid=proxy-button]"));
    await driver.click(await driver.waitFor("[data-testid=proxy-stop]"));
    await driver.waitFor("[data-testid=proxy-start]");
    await driver.click(await driver.waitFor("[data-testid=proxy-dialog] [aria-label=Close]"));
    await driver.waitFor("[data-testid=proxy-button]", { text: "Proxy…" });
    await assert.rejects(fetch(`${address}/chat/completions`, { method: "POST", body }), "nothing listens once stopped");
  } finally {
    upstream.close();
  }
});
