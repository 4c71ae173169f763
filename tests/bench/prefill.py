#!/usr/bin/env python3
"""What a 12-turn plan costs a prefix-caching server, per strategy (#25, "fire where the output is
read once"). The plan reads a source file each turn; turn 11 reads a 150-line log that pushes the
request over the threshold mid-turn. Every request body the scripted server received is replayed
against a model of a prefix cache (a request reuses the longest prefix it shares with any earlier
one, compared on its serialized messages): what is not reused is prefilled.

    tests/bench/prefill.py [--alisio target/debug/alisio] [--before OLD/alisio] [--server …/scripted-server] [--smoke]

With --smoke (what ./tests/run does) it exits non-zero unless, with the binary measured, each
strategy compacted at turn 11 and read the log outside the cache exactly once.

Prints, per binary and strategy: requests, characters prefilled (not reused), characters reused,
and cost units = prefilled + 0.1 × reused (a cache read priced at a tenth of a prompt token, as
the large providers price it), the log's reads outside the cache, and where compactions fired.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TURNS = 12
BIG_TURN = 11
CHECKPOINT = json.dumps({"goal": "finish the parser plan", "instructions": ["keep the public API"],
                         "discoveries": ["the tests read test.log"], "accomplished": "steps 1-7",
                         "currentState": "running the tests", "nextSteps": ["read the log"],
                         "relevantFiles": ["src/step_1.rs"]})


def script(strategy):
    """The scripted answers in the order the strategy asks for them. The usage each reports is what
    the cache strategy's trip reads: under its threshold, but for the step that carried the log."""
    entries = []
    for turn in range(1, TURNS + 1):
        path = "test.log" if turn == BIG_TURN else f"src/step_{turn}.rs"
        entries.append({"calls": [{"id": f"call_{turn}", "name": "read_file", "arguments": {"path": path}}],
                        "usage": [1500, 20, 0]})
        if turn == BIG_TURN and strategy == "native":
            entries.append(CHECKPOINT)  # due before the call that carries the log
        entries.append({"text": f"step {turn} done", "usage": [4200 if turn == BIG_TURN else 1500, 20, 0]})
        if turn == BIG_TURN and strategy == "cache":
            entries.append("GOAL: finish the plan. DONE: steps 1-11. NEXT: step 12.")
    return entries


def workspace(ws):
    (ws / "src").mkdir(parents=True)
    for turn in range(1, TURNS + 1):
        body = "".join(f"pub fn step_{turn}_{i}(input: &str) -> Result<Token, Error> {{ parse(input, {i}) }}\n"
                       for i in range(10))
        (ws / "src" / f"step_{turn}.rs").write_text(body)
    (ws / "test.log").write_text("".join(f"test parser::case_{i:03} ... ok (LOG-LINE-{i:03})\n" for i in range(150)))


def run(alisio, server_bin, strategy):
    home = Path(tempfile.mkdtemp(prefix="alisio-prefill-"))
    ws = home / "ws"
    workspace(ws)
    path = home / "script.json"
    path.write_text(json.dumps(script(strategy)))
    server = subprocess.Popen([server_bin, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        config = {"provider": {"baseUrl": url, "model": "m", "maxRetries": 0, "stream": False, "contextWindow": 3800},
                  "plugins": [], "compaction": {"strategy": strategy, "keepTurns": 2},
                  "cacheCompact": {"threshold": 68, "autoResume": True}}
        (home / "config.json").write_text(json.dumps(config))
        env = {**os.environ, "ALISIO_HOME": str(home)}
        session = None
        fired = []
        for turn in range(1, TURNS + 1):
            args = [alisio, "run", "--json", "--yes"] + (["--session", session] if session else [])
            done = subprocess.run(args + [f"Step {turn} of the plan: read the next file and report."], cwd=ws,
                                  env=env, capture_output=True, text=True, timeout=60)
            if done.returncode != 0:
                sys.exit(f"{strategy}, turn {turn}: {done.stderr.strip()[:600]}")
            for line in done.stdout.splitlines():
                event = json.loads(line)
                session = session or event.get("session")
                if event.get("type") == "compaction_completed":
                    fired.append(turn)
        with urllib.request.urlopen(url + "/__received") as r:
            bodies = [b["body"] if "body" in b else b for b in json.load(r)]
        return [b for b in bodies if isinstance(b, dict) and "messages" in b], fired
    finally:
        server.kill()
        server.wait()


def serialized(body):
    """The request as a prefix cache sees it: tools, then each message in order."""
    parts = [json.dumps(body.get("tools"), sort_keys=True)]
    parts += [json.dumps(m, sort_keys=True) for m in body["messages"]]
    return "".join(parts)


def common(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def measure(bodies):
    seen, prefilled, reused, log_reads = [], 0, 0, 0
    for body in bodies:
        text = serialized(body)
        hit = max((common(text, earlier) for earlier in seen), default=0)
        prefilled += len(text) - hit
        reused += hit
        # The log read outside the cache: its marker past the reused prefix.
        log_reads += text[hit:].count("LOG-LINE-077")
        seen.append(text)
    return prefilled, reused, log_reads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--alisio", default=str(ROOT / "target/debug/alisio"))
    parser.add_argument("--before")
    parser.add_argument("--server", default=str(ROOT / "target/debug/examples/scripted-server"))
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    failures = []
    binaries = [("now", args.alisio)] + ([("before", args.before)] if args.before else [])
    print(f"| binary | strategy | requests | prefilled chars | reused chars | cost units | log read outside the cache | compactions at turn |")
    print("|---|---|---|---|---|---|---|---|")
    for label, binary in binaries:
        for strategy in ("native", "cache"):
            bodies, fired = run(binary, args.server, strategy)
            prefilled, reused, log_reads = measure(bodies)
            cost = prefilled + reused // 10
            print(f"| {label} | {strategy} | {len(bodies)} | {prefilled:,} | {reused:,} | {cost:,} | {log_reads}× | {fired} |")
            if label == "now" and (fired != [BIG_TURN] or log_reads != 1):
                failures.append(f"{strategy}: compactions at {fired}, the log read {log_reads}× outside the cache")
    if args.smoke and failures:
        sys.exit("; ".join(failures))


if __name__ == "__main__":
    main()
