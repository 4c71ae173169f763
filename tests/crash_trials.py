#!/usr/bin/env python3
"""Crash trials: SIGKILL `alisio` at uniformly random times during a run with tools, a compaction,
an undo and a cache cut. After each kill: the database passes SQLite's integrity and foreign-key
checks, the next request the session sends is valid (every call answered exactly once, in place),
and no tool ran twice.

    tests/crash_trials.py [TRIALS_PER_KIND]     # default 3 (what ./tests/run does)

Needs the debug build of `alisio` and of the `scripted-server` example (ALISIO_BIN and
ALISIO_SCRIPTED_SERVER override where they are)."""

import collections
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.environ.get("ALISIO_BIN", os.path.join(TARGET, "debug", "alisio"))
SERVER = os.environ.get("ALISIO_SCRIPTED_SERVER", os.path.join(TARGET, "debug", "examples", "scripted-server"))

CHECKPOINT = json.dumps({"goal": "g", "instructions": ["keep the API"], "discoveries": ["d"], "accomplished": ["a"],
                         "currentState": "s", "nextSteps": ["n"], "relevantFiles": ["f.rs"]})


def tool(call_id):
    return {"id": call_id, "name": "shell",
            "arguments": {"command": f"echo {call_id} >> count.txt; sleep 0.15; echo done"}}


class Server:
    def __init__(self, script, home):
        path = os.path.join(home, f"script-{time.monotonic_ns()}.json")
        with open(path, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([SERVER, path], stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()

    def received(self):
        with urllib.request.urlopen(self.url + "/__received") as r:
            return json.load(r)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Trial:
    def __init__(self, kind):
        self.kind = kind
        self.home = tempfile.mkdtemp(prefix="alisio-crash-")
        self.ws = os.path.join(self.home, "ws")
        os.makedirs(self.ws)
        self.servers = []

    def configure(self, script, extra=None):
        server = Server(script, self.home)
        self.servers.append(server)
        config = {"provider": {"baseUrl": server.url, "model": "m", "maxRetries": 0, "retryBaseMs": 10,
                               "stream": random.choice([True, False])},
                  "permissions": {"shell": "allow", "write": "allow"}, "plugins": [],
                  "compaction": {"keepTurns": 1}}
        for key, value in (extra or {}).items():
            config.setdefault(key, {}).update(value)
        with open(os.path.join(self.home, "config.json"), "w") as f:
            json.dump(config, f)
        return server

    def alisio(self, *args):
        return subprocess.Popen([BIN, *args], cwd=self.ws, env={**os.environ, "ALISIO_HOME": self.home},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def call(self, *args):
        proc = self.alisio(*args)
        _, err = proc.communicate(timeout=60)
        return proc.returncode, err

    def session(self):
        with sqlite3.connect(f"file:{self.home}/sessions.db?mode=ro", uri=True) as db:
            return db.execute("SELECT id FROM sessions ORDER BY created_at LIMIT 1").fetchone()[0]

    def prepare(self):
        """Sets the session up and returns the arguments of the operation to kill."""
        if self.kind == "run":
            self.configure([{"calls": [tool("c1"), tool("c2")]}, {"calls": [tool("c3")]}, "done"])
            return ["run", "--json", "go"]
        if self.kind == "cache":
            self.configure([{"calls": [tool("c1")], "usage": [7000, 30, 0]}, "summary of the work", "resumed"],
                           {"compaction": {"strategy": "cache"}, "provider": {"contextWindow": 10000},
                            "cacheCompact": {"abortOnTrip": False, "autoResume": True}})
            return ["run", "--json", "go"]
        script = ["one", "two", "three", CHECKPOINT]
        self.configure(script)
        for prompt in ["first", "second", "third"]:
            assert self.call("run", *([] if prompt == "first" else ["--session", self.session()]), prompt)[0] == 0
        if self.kind == "compact":
            return ["compact", self.session(), "--focus", "crash"]
        assert self.call("compact", self.session())[0] == 0
        return ["compact", self.session(), "--undo"]

    def counts(self):
        path = os.path.join(self.ws, "count.txt")
        if not os.path.exists(path):
            return collections.Counter()
        with open(path) as f:
            return collections.Counter(line.strip() for line in f if line.strip())

    def check(self):
        """Integrity, a valid next request, no tool run twice. Returns how the session was left."""
        if not os.path.exists(os.path.join(self.home, "sessions.db")):
            return "nothing stored"
        with sqlite3.connect(f"file:{self.home}/sessions.db?mode=ro", uri=True) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity_check"
            assert db.execute("PRAGMA foreign_key_check").fetchall() == [], "foreign_key_check"
            tables = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'").fetchone()[0]
            has_session = tables > 0 and db.execute("SELECT count(*) FROM sessions").fetchone()[0] > 0
        before = self.counts()
        assert all(n == 1 for n in before.values()), f"a tool ran twice: {before}"
        if not has_session:
            return "nothing stored"
        server = self.configure(["ok"] * 4)
        session = self.session()
        code, err = self.call("run", "--session", session, "next")
        state = "clean"
        if code == 3:
            state = "uncertain"
            assert self.call("sessions", "recover", session, "--acknowledge")[0] == 0
            code, err = self.call("run", "--session", session, "next")
        assert code == 0, f"the next run failed ({code}): {err}"
        validate(server.received()[-1]["messages"])
        assert self.counts() == before, f"a tool re-ran: {before} → {self.counts()}"
        return state

    def close(self):
        for server in self.servers:
            server.stop()
        subprocess.run(["rm", "-rf", self.home], check=False)


def validate(messages):
    """Every call is answered exactly once before the next turn; every result answers a call."""
    open_calls = []
    for m in messages:
        if m["role"] == "tool":
            assert m.get("tool_call_id") in open_calls, f"orphan or repeated result {m.get('tool_call_id')}"
            open_calls.remove(m["tool_call_id"])
            continue
        assert not open_calls, f"calls without a result before a {m['role']} message: {open_calls}"
        open_calls = [c["id"] for c in m.get("tool_calls") or []]
    assert not open_calls or messages[-1]["role"] == "assistant", f"unanswered calls: {open_calls}"


def lifetime(kind):
    """How long the operation takes without a kill (median of three)."""
    times = []
    for _ in range(3):
        trial = Trial(kind)
        try:
            args = trial.prepare()
            started = time.monotonic()
            code, err = trial.call(*args)
            assert code == 0, f"{kind} without a kill failed ({code}): {err}"
            times.append(time.monotonic() - started)
        finally:
            trial.close()
    return sorted(times)[1]


def main():
    per_kind = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    seed = int(os.environ.get("ALISIO_CRASH_SEED", time.time_ns() % 2**32))
    random.seed(seed)
    print(f"crash trials: {per_kind} per kind, seed {seed}")
    outcomes = collections.Counter()
    failures = 0
    started = time.monotonic()
    for kind in ["run", "compact", "undo", "cache"]:
        span = lifetime(kind)
        for _ in range(per_kind):
            trial = Trial(kind)
            try:
                args = trial.prepare()
                proc = trial.alisio(*args)
                time.sleep(random.uniform(0, span))
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                outcomes[(kind, trial.check())] += 1
            except AssertionError as err:
                failures += 1
                print(f"FAILED {kind}: {err}")
            finally:
                trial.close()
        print(f"  {kind}: lifetime {span * 1000:.0f} ms; " + ", ".join(
            f"{state} {n}" for (k, state), n in sorted(outcomes.items()) if k == kind))
    total = sum(outcomes.values()) + failures
    print(f"{total - failures} passed, {failures} failed ({time.monotonic() - started:.0f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
