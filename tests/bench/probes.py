#!/usr/bin/env python3
"""The probe benchmark (#25): what each compaction strategy keeps of a long session, and what the
request the model would see next costs.

    tests/bench/probes.py --smoke                  # CI: scripted server only, mechanics asserted (< 60 s)
    tests/bench/probes.py [--json FILE]            # scripted summaries: the table
    tests/bench/probes.py --llama [--ctx 16384]    # starts tests/llama/serve.py; the real model summarizes
    tests/bench/probes.py --base-url URL [--model M]          # any OpenAI-compatible server summarizes
    tests/bench/probes.py --profile NAME [--profiles-config F] # a connection profile of a config file

A scripted session of 13 turns is built once with the scripted server, in a workspace whose files,
command outputs, edits, decisions and user constraints each carry a unique fact (a code such as
KESTREL-4412), plus a `--text` pin, a `--seq` pin of a tool result and an AGENTS.md rule
(`compaction.pinFiles`). Each strategy then compacts its own copy of that history: none, native,
cache, mask, hybrid (at a window where masking is enough) and hybrid-tight (a window where the
summary follows the mask). The summarizer is the scripted server (a dry run on a copy shows what
the summarizer is sent, and the scripted checkpoint states every fact of it, so what is lost is
lost by the mechanics) or, with --llama / --base-url / --profile, the real model, chosen with
`--profile` on `alisio compact` while the history stays scripted.

A probe is kept when its fact is in the request `alisio sessions show --view model` says comes next
(case-insensitive; message texts and tool-call arguments); a pin only when its whole text is there
verbatim. Kinds: files (paths touched and their last contents), commands (their results),
decisions, constraints, pins, next step. Afterwards each strategy compacts a short session ten
times in a row (scripted summaries, a turn with a tool call in between) and the pins are checked
after each. Prints a markdown table; --json FILE writes the figures. --smoke exits 1 unless: every
strategy left the compaction records of its kind, pins are kept 100 % everywhere, mask asked no
model, none keeps everything, a checkpoint stating every fact it was sent carries them all (native,
cache; hybrid-tight loses at most what masking lost), and `compact --plan` said whether hybrid
would summarize.
"""
import argparse
import concurrent.futures
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["files", "commands", "decisions", "constraints", "pins", "next"]
STRATEGIES = ["none", "native", "cache", "mask", "hybrid", "hybrid-tight"]
THRESHOLD = 0.85

# -- the workspace ------------------------------------------------------------------------------

AGENTS_MD = ("# Working rules\n\n- Money amounts are integers in cents; never use floats for money "
             "(rule GANNET-7303).\n- Run sh scripts/check.sh before calling a task done.\n")
PIN_SENTENCE = "The release branch is release/2026.12 and nothing else ships this week (ROBIN-5530)."
CONTRACT_MD = "\n".join([
    "# Settlement API contract", "",
    "- POST /v2/settlements takes a batch of entries and answers 202 with a settlement id.",
    "- Settlement responses carry amounts in integer cents and an idempotency key (contract FALCON-7788).",
    "- A batch is at most 2 MB; larger uploads are refused with 413.",
    "- Retries reuse the idempotency key; the bank deduplicates for 24 hours.",
    "- GET /v2/settlements/{id} reports pending, settled or rejected with a reason code.", ""])

WORDS = ("account entry batch ledger posting balance journal fee cutoff holiday currency amount "
         "reversal refund payout transfer statement period").split()


def python_module(doc, prefix, facts, count):
    """A plausible module of `count` small functions; `facts` lines go in the middle."""
    lines = [f'"""{doc}"""', "", "from decimal import Decimal, ROUND_HALF_EVEN", "import logging", "",
             "log = logging.getLogger(__name__)", ""]
    for i in range(count):
        a, b = WORDS[i % len(WORDS)], WORDS[(i * 7 + 3) % len(WORDS)]
        if i == count // 2:
            lines += facts + [""]
        lines += [f"def {prefix}_{a}_{b}(rows, limit={10 + i}):",
                  f'    """Sums the {a} amounts of each {b}, at most {10 + i} rows at a time."""',
                  "    total = Decimal(0)",
                  "    for row in rows[:limit]:",
                  f"        total += Decimal(row['{a}_cents'])",
                  f"    log.debug('{prefix} {a}/{b}: %s', total)",
                  "    return int(total.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))", ""]
    return "\n".join(lines) + "\n"


def check_cases():
    return "".join(f"test_{WORDS[i % 7]}_{WORDS[(i * 5 + 2) % len(WORDS)]}_{i:03d} ... ok\n" for i in range(117))


CHECK_SH = """#!/bin/sh
limit=$(sed -n 's/^retry_limit = \\([0-9]*\\).*/\\1/p' config/ledger.toml)
cat scripts/check-cases.txt
if [ "$limit" -ge 7 ]; then
  echo "test_retry_budget ... ok"
  echo "ALL 118 CHECKS PASSED (run SWIFT-8012)"
else
  echo "test_retry_budget ... FAILED: retry_limit=$limit is below the incident budget of 7 (QUAIL-4471)"
  echo "117 passed, 1 failed"
  exit 1
fi
"""

RECONCILE_PY = "\n".join([
    '"""Batch reconciliation of settled entries against the bank statement.',
    "",
    "Reconciliation batches are stored in the SQLite table recon_batches (IBIS-6057).",
    '"""', "", "import sqlite3", "", "BATCH_SIZE = 100", "",
    "def batches(rows):",
    "    for start in range(0, len(rows), BATCH_SIZE):",
    "        yield rows[start:start + BATCH_SIZE]", "",
    "def store(db: sqlite3.Connection, batch_id: str, rows):",
    "    db.execute('CREATE TABLE IF NOT EXISTS recon_batches (id TEXT, entry TEXT, cents INTEGER)')",
    "    db.executemany('INSERT INTO recon_batches VALUES (?, ?, ?)',",
    "                   [(batch_id, r['entry'], r['cents']) for r in rows])", "",
    "def reconcile(db, settled, statement):",
    "    missing = [r for r in settled if r['entry'] not in statement]",
    "    for n, batch in enumerate(batches(missing)):",
    "        store(db, f'batch-{n}', batch)",
    "    return len(missing)", ""])


def write_workspace(ws: Path):
    files = {
        "AGENTS.md": AGENTS_MD,
        "ledger/settle.py": python_module(
            "Settlement of the day's ledger entries: grouped by account, fees applied, rounded.", "settle",
            ["# The settlement cutoff is 17:30 Europe/Lisbon; later entries settle the next business day "
             "(ORIOLE-5168).", 'CUTOFF = "17:30"', 'ROUNDING = "half-even"'], 15),
        "ledger/fees.py": python_module(
            "Fee schedules per account type.", "fee",
            ['FEE_TABLE_VERSION = "fees-v9"  # PLOVER-2740: the table the auditors signed off'], 14),
        "ledger/calendar.py": python_module(
            "Business days and bank holidays.", "cal",
            ["# TODO(PETREL-1183): handle the leap second in the 17:30 cutoff"], 3),
        "config/ledger.toml": '[ledger]\ncurrency = "EUR"\nretry_limit = 3\nbatch_window_s = 30\n',
        "docs/contract.md": CONTRACT_MD,
        "vendor/decimal_compat.py": "# Generated: do not edit.\n",
        "scripts/check.sh": CHECK_SH,
        "scripts/check-cases.txt": check_cases(),
        "scripts/bench.sh": "#!/bin/sh\ncat scripts/bench-samples.txt\n"
                            "echo 'p95 latency 41.7 ms over 100 runs (GROUSE-3056)'\n",
        "scripts/bench-samples.txt": "".join(
            f"run {i:03d}: settle {12 + (i * 37) % 29}.{(i * 13) % 10} ms, fees {3 + (i * 11) % 7}.{i % 10} ms\n"
            for i in range(100)),
    }
    for name, text in files.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# -- the session --------------------------------------------------------------------------------

def call(call_id, name, **arguments):
    return {"id": call_id, "name": name, "arguments": arguments}


def tools(*calls):
    return {"calls": list(calls)}


CHECK = "sh scripts/check.sh"
TURNS = [
    ("We are fixing the settlement retry bug in the ledger service. Read AGENTS.md and ledger/settle.py first.",
     [tools(call("call_agents", "read_file", path="AGENTS.md"),
            call("call_settle", "read_file", path="ledger/settle.py")),
      "I read AGENTS.md and ledger/settle.py."]),
    ("Never edit anything under vendor/: it is generated code (constraint KESTREL-4412). "
     f"Now run the checks with {CHECK}.",
     [tools(call("call_check1", "shell", command=CHECK)), "The checks ran; one of them fails."]),
    ("Open ledger/fees.py as well. Keep the public function names in ledger/fees.py unchanged: other teams import "
     "them (constraint HARRIER-3175).",
     [tools(call("call_fees", "read_file", path="ledger/fees.py")), "I read ledger/fees.py."]),
    ("Should we switch the rounding in settle.py to half-up while we are at it?",
     ["No. Decision: keep banker's rounding (half-even) in ledger/settle.py; half-up would shift the month-end "
      "totals (decision SKUA-2207)."]),
    ("Fix the retry budget the failing check complains about.",
     [tools(call("call_toml", "edit_file", path="config/ledger.toml", old="retry_limit = 3\n",
                 new="retry_limit = 7  # raised per incident CORMORANT-9921\n")),
      "Decision: raise retry_limit to 7 in config/ledger.toml instead of adding a backoff loop to settle.py "
      "(decision MERLIN-9140)."]),
    ("Read docs/contract.md, the settlement API contract.",
     [tools(call("call_contract", "read_file", path="docs/contract.md")), "I read the contract."]),
    ("Write ledger/reconcile.py for batch reconciliation. Use Python 3.9 syntax only, no match statements "
     "(constraint PUFFIN-8830). We store reconciliation batches in SQLite, not CSV (decision ALBATROSS-6623).",
     [tools(call("call_write", "write_file", path="ledger/reconcile.py", content=RECONCILE_PY)),
      "I wrote ledger/reconcile.py."]),
    ("Which TODOs are still open under ledger/?",
     [tools(call("call_grep", "grep", pattern="TODO", path="ledger")), "One TODO is open."]),
    ("Is a batch size of 100 right for the bank API?",
     [tools(call("call_batch", "edit_file", path="ledger/reconcile.py", old="BATCH_SIZE = 100",
                 new="BATCH_SIZE = 250  # TERN-3398")),
      "Decision: batches of 250 rows keep each upload under the bank API's 2 MB limit (decision CONDOR-4826)."]),
    ("Run the checks again.", [tools(call("call_check2", "shell", command=CHECK)), "All checks pass now."]),
    (f"Remember this for the rest of the work: {PIN_SENTENCE}", ["Noted."]),
    ("Run the settlement benchmark with sh scripts/bench.sh.",
     [tools(call("call_bench", "shell", command="sh scripts/bench.sh")), "The benchmark ran; p95 is within budget."]),
    ("Next step: add a --dry-run flag to ledger/reconcile.py that prints the batches without writing them "
     "(next step PELICAN-3301). We stop here for today.", ["Understood; that is where I will start."]),
]

# Probe → the fact that must be in the request. Pins are filled in from `alisio pin --list`.
PROBES = {
    "files": ["ledger/settle.py", "ledger/fees.py", "config/ledger.toml", "ledger/reconcile.py", "docs/contract.md",
              "ORIOLE-5168", "PLOVER-2740", "CORMORANT-9921", "IBIS-6057", "TERN-3398"],
    "commands": ["QUAIL-4471", "PETREL-1183", "SWIFT-8012", "GROUSE-3056"],
    "decisions": ["SKUA-2207", "MERLIN-9140", "ALBATROSS-6623", "CONDOR-4826"],
    "constraints": ["KESTREL-4412", "HARRIER-3175", "PUFFIN-8830"],
    "next": ["PELICAN-3301"],
}

# What a summarizer that forgets nothing it was shown writes (the scripted one): each line carries
# one fact, and the checkpoint keeps the lines whose fact was in the request it summarized, so what
# is lost is lost by the mechanics (what was cut or masked before the summary), not by a model.
ORACLE = [
    ("instructions", "Never edit vendor/, it is generated (KESTREL-4412)."),
    ("instructions", "Keep the public function names of ledger/fees.py (HARRIER-3175)."),
    ("instructions", "Python 3.9 syntax only, no match statements (PUFFIN-8830)."),
    ("instructions", "AGENTS.md: money in integer cents, never floats (GANNET-7303)."),
    ("instructions", "Only release/2026.12 ships this week (ROBIN-5530)."),
    ("discoveries", "ledger/settle.py: cutoff 17:30 Europe/Lisbon, half-even rounding (ORIOLE-5168)."),
    ("discoveries", "ledger/fees.py: FEE_TABLE_VERSION fees-v9 (PLOVER-2740)."),
    ("discoveries", "docs/contract.md: amounts in integer cents with an idempotency key (FALCON-7788)."),
    ("discoveries", "Open TODO in ledger/calendar.py: the leap second in the cutoff (PETREL-1183)."),
    ("discoveries", "The first check run failed test_retry_budget (QUAIL-4471)."),
    ("discoveries", "Benchmark: p95 41.7 ms (GROUSE-3056)."),
    ("accomplished", "config/ledger.toml: retry_limit = 7 (CORMORANT-9921)."),
    ("accomplished", "Chose the higher retry limit over a backoff loop (MERLIN-9140)."),
    ("accomplished", "Kept half-even rounding (SKUA-2207)."),
    ("accomplished", "Reconciliation batches go to SQLite, not CSV (ALBATROSS-6623)."),
    ("accomplished", "Wrote ledger/reconcile.py: table recon_batches (IBIS-6057)."),
    ("accomplished", "ledger/reconcile.py: BATCH_SIZE = 250 (TERN-3398)."),
    ("accomplished", "250 rows keep uploads under the 2 MB limit (CONDOR-4826)."),
    ("accomplished", "All 118 checks pass (SWIFT-8012)."),
    ("nextSteps", "Add a --dry-run flag to ledger/reconcile.py (PELICAN-3301)."),
]
FILES = ["ledger/settle.py", "ledger/fees.py", "config/ledger.toml", "ledger/reconcile.py", "docs/contract.md"]


def oracle(seen):
    """The checkpoint (JSON sections, and the same as text) stating each fact in `seen`."""
    low = seen.lower()
    lines = [(section, text) for section, text in ORACLE
             if text[text.rindex("(") + 1:-2].lower() in low]
    sections = {"goal": "Fix the settlement retry bug in the ledger service and add batch reconciliation.",
                "instructions": [], "discoveries": [], "accomplished": [], "currentState": "",
                "nextSteps": [], "relevantFiles": [f for f in FILES if f.lower() in low]}
    for section, text in lines:
        sections[section].append(text)
    sections["accomplished"] = " ".join(sections["accomplished"])
    text = "\n".join(f"- {t}" for _, t in lines) + "\nFiles: " + ", ".join(sections["relevantFiles"])
    return json.dumps(sections), text


def small_checkpoint(n):
    return json.dumps({"goal": f"goal after compaction {n}", "instructions": [], "discoveries": [],
                       "accomplished": "", "currentState": "idle", "nextSteps": ["continue"], "relevantFiles": []})


# -- driving alisio -----------------------------------------------------------------------------

class ScriptedServer:
    def __init__(self, binary, entries, directory):
        fd, path = tempfile.mkstemp(suffix=".json", dir=directory)
        with os.fdopen(fd, "w") as f:
            json.dump(entries, f)
        self.proc = subprocess.Popen([binary, path], stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            self.proc.kill()
            raise RuntimeError("the scripted server did not start")

    def received(self):
        with urllib.request.urlopen(self.url + "/__received") as r:
            return json.load(r)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.proc.kill()
        self.proc.wait()


class Failure(Exception):
    pass


class Home:
    """An ALISIO_HOME with its config; commands run in the shared workspace."""

    def __init__(self, opts, path: Path, ws: Path, config: dict):
        self.opts, self.path, self.ws = opts, path, ws
        path.mkdir(parents=True, exist_ok=True)
        self.write_config(config)

    def write_config(self, config):
        self.config = config
        (self.path / "config.json").write_text(json.dumps(config, indent=1))

    def alisio(self, *args, entries=None, profile=None, check=True):
        """Runs one command; `entries`: a scripted server answers its model calls (none: any call fails)."""
        extra = ["--profile", profile] if profile else []
        overlay = self.path / f"overlay-{time.monotonic_ns()}.json"
        with ScriptedServer(self.opts.server, entries or [], self.path) as server:
            overlay.write_text(json.dumps({"provider": {"baseUrl": server.url}}))
            proc = subprocess.run([self.opts.alisio, *args, "--config", str(overlay), *extra], cwd=self.ws,
                                  env={**os.environ, "ALISIO_HOME": str(self.path)}, capture_output=True, text=True,
                                  timeout=self.opts.timeout)
            bodies = server.received()
        overlay.unlink()
        if check and proc.returncode != 0:
            raise Failure(f"alisio {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
        proc.received, proc.bodies = len(bodies), bodies
        return proc

    def json(self, *args, **kw):
        return json.loads(self.alisio(*args, "--json", **kw).stdout)

    def events(self, *args, **kw):
        proc = self.alisio(*args, "--json", **kw)
        return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")], proc

    def run_turn(self, session, prompt, entries):
        args = ["run", "--yes"] + (["--session", session] if session else []) + [prompt]
        events, proc = self.events(*args, entries=entries)
        if proc.received != len(entries):
            raise Failure(f"turn {prompt[:40]!r}: the model was asked {proc.received} times, {len(entries)} expected")
        return events[0]["id"]


def base_config(opts, window):
    config = {
        "provider": {"baseUrl": "http://127.0.0.1:9/v1", "model": "scripted", "maxRetries": 0,
                     "retryBaseMs": 10, "contextWindow": window},
        "permissions": {"shell": "allow", "write": "allow"},
        "plugins": [],
        "compaction": {"auto": False, "keepTurns": opts.keep_turns, "threshold": THRESHOLD,
                       "maxOutputTokens": opts.summary_tokens},
        "cacheCompact": {"summaryMaxTokens": opts.summary_tokens},
    }
    if opts.real:
        config["profiles"] = {"real": opts.real}
    return config


def request_text(view):
    """Everything the model reads in the request: message texts and tool-call arguments."""
    out = []

    def strings(value):
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            for v in value:
                strings(v)
        elif isinstance(value, dict):
            for v in value.values():
                strings(v)

    for m in view["messages"]:
        strings(m.get("content"))
        for c in m.get("tool_calls") or []:
            arguments = c.get("function", {}).get("arguments", "")
            try:
                strings(json.loads(arguments))
            except (ValueError, TypeError):
                strings(arguments)
    return "\n".join(out)


def score(text, pins):
    low = text.lower()
    kept = {kind: [p for p in probes if p.lower() in low] for kind, probes in PROBES.items()}
    kept["pins"] = [name for name, pin in pins.items() if pin in text]
    return kept


# The workspace path is in the system prompt: a fixed one keeps the real model's greedy answers the
# same from run to run (so one benchmark at a time on a machine).
WORKSPACE = Path(tempfile.gettempdir()) / "alisio-probes-workspace"


def build(opts, work: Path):
    """The scripted history, once: returns its home, session and pins (name → verbatim text)."""
    ws = WORKSPACE
    shutil.rmtree(ws, ignore_errors=True)
    write_workspace(ws)
    home = Home(opts, work / "base", ws, base_config(opts, None))
    session = None
    for prompt, entries in TURNS:
        session = home.run_turn(session, prompt, entries)
    stored = home.json("sessions", "show", session)
    contract = [m for m in stored["messages"] if m.get("toolCallId") == "call_contract"]
    if len(contract) != 1:
        raise Failure(f"no single result of call_contract in the stored view: {len(contract)}")
    home.alisio("pin", session, "--text", PIN_SENTENCE)
    home.alisio("pin", session, "--seq", str(contract[0]["seq"]))
    listed = home.json("pin", session, "--list")
    pins = {("text pin" if p["seq"] is None else "seq pin"): p["text"] for p in listed}
    pins["AGENTS.md"] = AGENTS_MD
    return home, session, pins


def ledger(home, session):
    return home.json("calls", "list", session)


def records(home, session):
    return home.json("sessions", "show", session)["compactions"]


def compact(opts, home, session, strategy, answer=None):
    """One compaction; `answer`: what the scripted summarizer says (the real model's turn otherwise).
    Returns (events, new ledger rows, new records, the request bodies the scripted server got)."""
    calls_before, records_before = len(ledger(home, session)), len(records(home, session))
    scripted = not opts.real or strategy == "mask"
    events, proc = home.events("compact", session, "--strategy", strategy, check=False,
                               entries=[answer] if scripted and answer else None,
                               profile=None if scripted else "real")
    if proc.returncode != 0 and not any(e["type"] == "compaction_failed" for e in events):
        raise Failure(f"alisio compact --strategy {strategy} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return events, ledger(home, session)[calls_before:], records(home, session)[records_before:], proc.bodies


def scripted_answer(opts, home, session, mode):
    """The scripted summary of `mode`: a dry run on a copy shows what the summarizer is sent, and
    the answer states each fact of it."""
    dry = Home(opts, home.path.with_name(home.path.name + "-dry"), home.ws, home.config)
    shutil.rmtree(dry.path)
    shutil.copytree(home.path, dry.path)
    placeholder = "dry run" if mode == "cache" else small_checkpoint(0)
    _, _, _, bodies = compact(opts, dry, session, mode, placeholder)
    shutil.rmtree(dry.path)
    sections, text = oracle(request_text(bodies[-1]) if bodies else "")
    return text if mode == "cache" else sections


EXPECTED = {  # (kind, reason) of the records each compaction must leave, in order
    "none": [], "native": [("checkpoint", "manual")], "cache": [("checkpoint", "cache")],
    "mask": [("reduction", "mask")], "hybrid": [("reduction", "mask")],
    "hybrid-tight": [("reduction", "mask"), ("checkpoint", "manual")],
}


def measure(opts, work, base, session, pins, strategy, window):
    home_dir = work / strategy
    shutil.copytree(base.path, home_dir)
    home = Home(opts, home_dir, base.ws, base_config(opts, window))
    mode = "hybrid" if strategy.startswith("hybrid") else strategy
    planned = plan_of(home, session).get(mode, {})
    answer = None
    if not opts.real and mode in ("native", "cache", "hybrid"):
        answer = scripted_answer(opts, home, session, mode)
    started = time.monotonic()
    events, calls, added = [], [], []
    if strategy != "none":
        events, calls, added, _ = compact(opts, home, session, mode, answer)
    seconds = time.monotonic() - started
    view = home.json("sessions", "show", session, "--view", "model")
    kept = score(request_text(view), pins)
    summary_calls = [c for c in calls if c["purpose"] in ("compaction", "cache-summary")]
    if opts.real:
        summarizer_in = sum(c["promptTokens"] or 0 for c in summary_calls)
        summarizer_out = sum(c["completionTokens"] or 0 for c in summary_calls)
    else:  # the scripted server's usage is made up: estimates, as the context meter counts
        summarizer_in = (planned.get("summarizerTokens") or 0) if summary_calls else 0
        summarizer_out = math.ceil(len(answer) / 4) if summary_calls else 0
    failed = [e for e in events if e["type"] == "compaction_failed"]
    return {
        "strategy": strategy, "window": window, "seconds": round(seconds, 1),
        "kept": {k: sorted(v) for k, v in kept.items()},
        "lost": {k: sorted(set(PROBES.get(k, pins)) - set(v)) for k, v in kept.items()},
        "requestTokens": view["estimatedTokens"],
        "plan": planned or None,
        "summarizerCalls": len(summary_calls), "summarizerIn": summarizer_in, "summarizerOut": summarizer_out,
        "ledger": [{k: c.get(k) for k in ("purpose", "promptTokens", "completionTokens", "finishReason", "error")}
                   for c in calls],
        "records": [(r["kind"], r["reason"]) for r in added],
        "fidelityPins": [r["fidelity"]["pins"] for r in added if r.get("fidelity")],
        "failed": [e.get("error") for e in failed],
        "partial": any(r.get("partial") for r in added),
        "checkpoints": [r.get("checkpoint") for r in added if r["kind"] == "checkpoint"],
    }


def loop(opts, work, strategy, rounds=10):
    """Compacts a short session `rounds` times in a row, a turn with a tool call before each; the
    pins kept after each (scripted summaries: pins do not depend on what the summary says)."""
    ws = work / f"loop-{strategy}-ws"
    write_workspace(ws)
    window = 500 if strategy == "hybrid" else None  # so that hybrid summarizes after masking
    scripted = argparse.Namespace(**{**vars(opts), "real": None})
    home = Home(scripted, work / f"loop-{strategy}", ws, base_config(scripted, window))
    home.config["compaction"]["keepTurns"] = 1
    home.write_config(home.config)
    session = None
    for prompt, entries in [TURNS[0], (f"Remember this: {PIN_SENTENCE}", ["Noted."]), TURNS[5]]:
        session = home.run_turn(session, prompt, entries)
    contract = [m for m in home.json("sessions", "show", session)["messages"] if m.get("toolCallId") == "call_contract"]
    home.alisio("pin", session, "--text", PIN_SENTENCE)
    home.alisio("pin", session, "--seq", str(contract[0]["seq"]))
    pins = {("text pin" if p["seq"] is None else "seq pin"): p["text"] for p in home.json("pin", session, "--list")}
    pins["AGENTS.md"] = AGENTS_MD
    rows, problems, kinds = [], [], []
    for n in range(1, rounds + 1):
        home.run_turn(session, f"loop turn {n}: run the checks", [tools(call(f"call_loop_{n}", "shell", command=CHECK)),
                                                                  f"done {n}"])
        answer = f"Hand-off {n}: checks run." if strategy == "cache" else small_checkpoint(n)
        events, calls, added, _ = compact(scripted, home, session, strategy, answer)
        kinds.append([r["reason"] for r in added])
        if not added:
            problems.append(f"compaction {n}: no record ({[e['type'] for e in events]})")
        text = request_text(home.json("sessions", "show", session, "--view", "model"))
        rows.append({name: pin in text for name, pin in pins.items()})
    kept = sum(sum(r.values()) for r in rows)
    total = sum(len(r) for r in rows)
    lost = sorted({name for r in rows for name, ok in r.items() if not ok})
    return {"strategy": strategy, "compactions": rounds, "pinsKept": kept, "pinsChecked": total, "lost": lost,
            "records": kinds, "problems": problems}


# -- the run ------------------------------------------------------------------------------------

def plan_of(home, session):
    return {p["strategy"]: p for p in home.json("compact", session, "--plan")}


def planned(r):
    """What `compact --plan` said beforehand: the request after, + the checkpoint's budget."""
    plan = r["plan"]
    if not plan:
        return "–"
    if plan.get("unavailable"):
        return "unavailable"
    budget = plan.get("checkpointMaxTokens")
    return f"{plan['afterTokens']}" + (f" + ≤ {budget}" if budget else "")


def pct(kept, total):
    return f"{100 * kept / total:.0f} %" if total else "–"


def table(results, pins):
    totals = {k: len(PROBES.get(k, pins)) for k in KINDS}
    head = ["strategy", "files", "commands", "artifacts", "decisions", "constraints", "pins", "next step", "all",
            "request tokens", "plan ≈", "summarizer in / out", "compaction s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        n = {k: len(r["kept"][k]) for k in KINDS}
        artifacts = pct(n["files"] + n["commands"], totals["files"] + totals["commands"])
        everything = pct(sum(n.values()), sum(totals.values()))
        summ = f"{r['summarizerIn']} / {r['summarizerOut']}" if r["summarizerCalls"] else "–"
        if r["failed"]:
            summ += " (failed)"
        elif r["partial"]:
            summ += " (partial)"
        lines.append("| " + " | ".join([
            f"{r['strategy']}" + (f" (window {r['window']})" if r["strategy"].startswith("hybrid") else ""),
            pct(n["files"], totals["files"]), pct(n["commands"], totals["commands"]), artifacts,
            pct(n["decisions"], totals["decisions"]), pct(n["constraints"], totals["constraints"]),
            pct(n["pins"], totals["pins"]), pct(n["next"], totals["next"]), everything,
            str(r["requestTokens"]), planned(r), summ, f"{r['seconds']:.1f}"]) + " |")
    return "\n".join(lines)


def targets(results, loops, pins):
    by = {r["strategy"]: r for r in results}
    share = lambda r, kinds: sum(len(r["kept"][k]) for k in kinds) / sum(len(PROBES.get(k, pins)) for k in kinds)
    out = []
    pin_ok = all(not r["lost"]["pins"] for r in results) and all(not l["lost"] for l in loops)
    out.append(f"- pins 100 %: {'met' if pin_ok else 'NOT met'}"
               + "".join(f"; {r['strategy']} lost {', '.join(r['lost']['pins'])}" for r in results if r["lost"]["pins"])
               + "".join(f"; {l['strategy']} ×10 lost {', '.join(l['lost'])}" for l in loops if l["lost"]))
    native = share(by["native"], ["files", "commands"])
    out.append(f"- native keeps ≥ 90 % of artifact probes: {100 * native:.0f} % "
               f"({'met' if native >= 0.9 else 'NOT met'})")
    # What a strategy costs: the summarizer's call (read and written) and the next request. Hybrid
    # meets the target when it costs no more than native or mask wherever they score at least as well.
    total = lambda r: r["summarizerIn"] + r["summarizerOut"] + r["requestTokens"]
    for name in ("hybrid", "hybrid-tight"):
        h = by[name]
        rivals = [by["native"], by["mask"]]
        as_good = [r for r in rivals if share(r, KINDS) >= share(h, KINDS)]
        met = all(total(h) <= total(r) for r in as_good)
        said = "; ".join(f"{r['strategy']}: {total(r)} ({r['summarizerIn']} + {r['summarizerOut']} + {r['requestTokens']}), "
                         f"{100 * share(r, KINDS):.0f} %" for r in rivals)
        out.append(f"- {name} costs no more than native or mask where they score at least as well "
                   f"(tokens: summarizer read + written + next request): {total(h)} ({h['summarizerIn']} + "
                   f"{h['summarizerOut']} + {h['requestTokens']}), {100 * share(h, KINDS):.0f} % of probes; {said} — "
                   f"{'met' if met else 'not met'}")
    return "\n".join(out)


def smoke_checks(results, loops, pins):
    problems = []
    for r in results:
        if r["records"] != EXPECTED[r["strategy"]]:
            problems.append(f"{r['strategy']}: records {r['records']}, expected {EXPECTED[r['strategy']]}")
        if r["failed"]:
            problems.append(f"{r['strategy']}: compaction failed: {r['failed']}")
        if r["lost"]["pins"]:
            problems.append(f"{r['strategy']}: pins not carried verbatim: {r['lost']['pins']}")
        for fidelity in r["fidelityPins"]:
            if not all(p["kept"] for p in fidelity) or len(fidelity) != len(pins):
                problems.append(f"{r['strategy']}: fidelity.pins {fidelity}")
    by = {r["strategy"]: r for r in results}
    for name in ("mask", "hybrid"):
        if by[name]["ledger"]:
            problems.append(f"{name}: masking asked the model: {by[name]['ledger']}")
    for name in ("none", "native", "cache"):
        lost = {k: v for k, v in by[name]["lost"].items() if v}
        if lost:
            problems.append(f"{name}: lost {lost}" + ("" if name == "none" else
                                                       " although the checkpoint stated every fact it was sent"))
    masked = {p for k, v in by["mask"]["lost"].items() for p in v}
    beyond = {k: sorted(set(v) - masked) for k, v in by["hybrid-tight"]["lost"].items() if set(v) - masked}
    if beyond:
        problems.append(f"hybrid-tight: lost {beyond}, which masking had kept")
    for r in results:
        if r["strategy"].startswith("hybrid") and r["plan"]:
            said = r["plan"].get("summarizerTokens") is not None
            if said != bool(r["summarizerCalls"]):
                problems.append(f"{r['strategy']}: compact --plan said summarize={said}, the compaction "
                                f"made {r['summarizerCalls']} summarizer call(s)")
    for l in loops:
        problems += [f"{l['strategy']} ×10: {p}" for p in l["problems"]]
        if l["lost"]:
            problems.append(f"{l['strategy']} ×10: pins lost: {l['lost']} ({l['pinsKept']}/{l['pinsChecked']})")
    return problems


def report(header, results, loops, pins, real):
    lines = [header, "", table(results, pins), "",
             "Request tokens: `sessions show --view model` estimatedTokens (≈ 4 chars a token, tool catalog "
             "included); plan ≈: `compact --plan` afterTokens (+ the checkpoint's budget). Summarizer in / out: "
             + ("tokens the server reported." if real else "estimates (the scripted server's usage is made up)."),
             "", "Lost probes:"]
    for r in results:
        lost = {k: v for k, v in r["lost"].items() if v}
        lines.append(f"- {r['strategy']}: " + ("; ".join(f"{k}: {', '.join(v)}" for k, v in lost.items()) or "none")
                     + (f" — compaction failed: {r['failed']}" if r["failed"] else ""))
    lines += ["", "Pins over 10 consecutive compactions (scripted summaries, a turn with a tool call before each):"]
    for l in loops:
        lines.append(f"- {l['strategy']}: {pct(l['pinsKept'], l['pinsChecked'])} ({l['pinsKept']}/{l['pinsChecked']})"
                     + (f", lost {', '.join(l['lost'])}" if l["lost"] else "")
                     + (f"; {'; '.join(l['problems'])}" if l["problems"] else ""))
    lines += ["", "Targets (reported, not asserted):", targets(results, loops, pins)]
    return "\n".join(lines)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Llama:
    """tests/llama/serve.py on a free port, stopped on exit."""

    def __init__(self, ctx):
        python = subprocess.run([str(ROOT / "tests/llama/setup.sh")], check=True, capture_output=True,
                                text=True).stdout.strip().splitlines()[-1]
        cache = os.environ.get("ALISIO_LLAMA_CACHE", str(Path.home() / ".cache/alisio-llama"))
        env = {**os.environ, "ALISIO_MODEL_CACHE": os.path.join(cache, "models")}
        self.proc = subprocess.Popen([python, str(ROOT / "tests/llama/serve.py"), "--port", str(free_port()),
                                      "--ctx", str(ctx)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=env)
        self.url = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith("ready "):
                self.url = line.split(None, 1)[1].strip()
                break
        if not self.url:
            self.stop()
            raise RuntimeError("the llama.cpp server did not become ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def real_profile(parser, opts):
    """The connection profile that summarizes (--base-url, --profile), or None: scripted."""
    if opts.base_url:
        return {"baseUrl": opts.base_url, "model": opts.model or first_model(opts.base_url), "apiKeyEnv": None,
                "api": "chat", "timeoutMs": 600000, "maxRetries": 1}
    if opts.profile:
        path = opts.profiles_config or os.path.join(
            os.environ.get("ALISIO_HOME", str(Path.home() / ".local/share/alisio")), "config.json")
        profiles = json.loads(Path(path).read_text()).get("profiles", {})
        if opts.profile not in profiles:
            parser.error(f"{path} has no profile {opts.profile!r}")
        return dict(profiles[opts.profile])
    return None


def first_model(base_url):
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=10) as r:
            return json.load(r)["data"][0]["id"]
    except Exception:
        return "default"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--alisio", default=str(ROOT / "target/debug/alisio"))
    p.add_argument("--server", default=str(ROOT / "target/debug/examples/scripted-server"))
    p.add_argument("--smoke", action="store_true", help="CI: scripted server only, assert the mechanics")
    p.add_argument("--json", metavar="FILE", help="write the figures here")
    p.add_argument("--llama", action="store_true", help="start tests/llama/serve.py and let its model summarize")
    p.add_argument("--ctx", type=int, default=16384, help="the llama.cpp server's context (with --llama)")
    p.add_argument("--base-url", help="an OpenAI-compatible server that summarizes")
    p.add_argument("--model", help="its model (default: the first of GET /models)")
    p.add_argument("--profile", help="a connection profile that summarizes, from --profiles-config")
    p.add_argument("--profiles-config", help="config file holding the profile (default: $ALISIO_HOME/config.json)")
    p.add_argument("--keep-turns", type=int, default=2)
    p.add_argument("--summary-tokens", type=int, default=600,
                   help="compaction.maxOutputTokens and cacheCompact.summaryMaxTokens")
    p.add_argument("--timeout", type=int, default=600, help="seconds one alisio command may take")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    opts = p.parse_args()
    if opts.smoke and (opts.llama or opts.base_url or opts.profile):
        p.error("--smoke runs against the scripted server only")
    for binary in (opts.alisio, opts.server):
        if not os.access(binary, os.X_OK):
            p.error(f"{binary} is not an executable: build it (cargo build --examples) or pass --alisio/--server")
    started = time.monotonic()
    llama = None
    work = Path(tempfile.mkdtemp(prefix="alisio-probes-"))
    try:
        if opts.llama:
            llama = Llama(opts.ctx)
            opts.base_url, opts.model = llama.url, opts.model or "gemma3-270m"
        opts.real = real_profile(p, opts)
        summarizer = (f"{opts.real['baseUrl']} ({opts.real.get('model')})" if opts.real
                      else "scripted (states every fact it is sent)")

        base, session, pins = build(opts, work)
        plan = plan_of(base, session)
        before, masked = plan["native"]["beforeTokens"], plan["mask"]["afterTokens"]
        # Over the threshold but fitting once masked; and so tight that the summary must follow.
        roomy = math.ceil((before + masked) / 2 / THRESHOLD)
        tight = int(masked / THRESHOLD * 0.9)
        windows = {"hybrid": roomy, "hybrid-tight": tight}
        jobs = [(s, windows.get(s, roomy)) for s in STRATEGIES]
        workers = 1 if opts.real else 3
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(lambda j: measure(opts, work, base, session, pins, j[0], j[1]), jobs))
            loops = list(pool.map(lambda s: loop(opts, work, s), ["native", "cache", "mask", "hybrid"]))

        header = (f"Probe benchmark: {len(TURNS)} turns, {sum(len(v) for v in PROBES.values()) + len(pins)} probes, "
                  f"keepTurns {opts.keep_turns}, request before compaction ≈ {before} tokens (masked ≈ {masked}); "
                  f"window {roomy} (threshold {THRESHOLD}), hybrid-tight window {tight}; summarizer: {summarizer}")
        print(report(header, results, loops, pins, bool(opts.real)))
        print(f"\n{time.monotonic() - started:.0f} s")
        if opts.json:
            Path(opts.json).write_text(json.dumps({
                "summarizer": summarizer, "turns": len(TURNS), "keepTurns": opts.keep_turns,
                "beforeTokens": before, "maskedTokens": masked, "windows": {"default": roomy, **windows},
                "probes": {**PROBES, "pins": list(pins)}, "plan": plan, "strategies": results, "loops": loops,
            }, indent=1))
        if opts.smoke:
            problems = smoke_checks(results, loops, pins)
            elapsed = time.monotonic() - started
            if elapsed > 60:
                problems.append(f"the smoke run took {elapsed:.0f} s (limit 60 s)")
            if problems:
                print("\nSMOKE FAILED:\n" + "\n".join(f"- {x}" for x in problems))
                return 1
            print("\nsmoke: ok")
        return 0
    except Failure as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    finally:
        if llama:
            llama.stop()
        if opts.keep:
            print(f"work directory: {work} (workspace {WORKSPACE})", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(WORKSPACE, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
