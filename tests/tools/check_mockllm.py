#!/usr/bin/env python3
"""Equivalence check: tests/tools/mockllm.py --variant V answers like the per-agent copy it replaced.

For each (fork, variant, recorded request logs) below, start the fork and the merged server on free ports on
127.0.0.1 (fresh, for every log), replay the log's request bodies in order (POST to the recorded path, plus
GET /v1/models first), and compare status, content-type and the response bodies byte for byte. Only the
per-run clock fields are masked: "created" and "created_at" (int(time.time()) in the chat-completions and
Responses answers). The LOGFILE (and LOGFILE.side) the two servers write must be identical too.

Usage: check_mockllm.py [--forks-from GIT_REV] [NAME ...]
  --forks-from REV  take the forks from git (`git show REV:<path>`) instead of the working tree (they are
                    deleted from the tree once merged; default: the tree when they are there, else HEAD)
Exits 1 on any difference.
"""
import glob, gzip, http.client, json, os, re, socket, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MERGED = os.path.join(ROOT, "tests/tools/mockllm.py")
FX = "tests/fixtures/"

# name -> (fork path, variant, request logs (globs), env)
CASES = {
    "agents/tools": ("agents/tools/mockllm.py", "base",
                     ["agents/cline/requests.jsonl", "agents/copilot/requests.jsonl", "agents/gemini/requests.jsonl",
                      "agents/pi/requests.jsonl", "agents/qwen/requests.jsonl", "compat/pi/requests/*",
                      "compat/opencode/requests/*", "compat/cline/requests/3.0.65.jsonl",
                      "compat/kilo/requests/7.7.9.jsonl.gz"], {}),
    "qwen-code": ("compat/qwen-code/tools/mockllm.py", "qwen-code", ["compat/qwen-code/requests/*"], {}),
    "cline-tasks": ("agents/cline-tasks/tools/mockllm.py", "cline-tasks",
                    ["agents/cline-tasks/requests.jsonl", "compat/cline/requests/1.0.10.jsonl.gz",
                     "compat/cline/requests/2.18.0.jsonl.gz"], {}),
    "roo": ("agents/roo/tools/mockllm.py", "roo", ["agents/roo/requests.jsonl", "compat/roo/requests/*"],
            {"PTOK_WITH_TOOLS": "1", "CACHE_READ_FIELD": "1"}),
    "claude-code": ("compat/claude-code/tools/mockllm.py", "claude-code", ["compat/claude-code/requests/*"],
                    {"BLOCK_DELAY": "0"}),
    "codex": ("compat/codex/tools/mockllm.py", "codex", ["compat/codex/requests/*"], {"MODEL_IDS": "gpt-5"}),
    "gemini-cli": ("compat/gemini-cli/tools/mockllm.py", "gemini-cli", ["compat/gemini-cli/requests/*"], {}),
    "copilot-cli": ("compat/copilot-cli/tools/mockllm.py", "copilot-cli", ["compat/copilot-cli/requests/*"], {}),
    "kilo": ("compat/kilo/tools/mockllm.py", "kilo", ["compat/kilo/requests/*"], {}),
    "aider": ("compat/aider/tools/mockllm.py", "aider", ["compat/aider/requests/*"], {}),
    "hermes": ("compat/hermes/tools/mockllm.py", "hermes", ["compat/hermes/requests/*"], {}),
    "openclaw": ("compat/openclaw/tools/mockllm.py", "openclaw", ["compat/openclaw/requests/*"],
                 {"OVERFLOW_AT": "9000"}),
    "amp": ("compat/amp/tools/mockllm.py", "amp", ["compat/amp/requests/*"], {"BLOCK_DELAY": "0"}),
    "auggie": ("compat/auggie/tools/mockllm.py", "auggie", ["compat/auggie/requests/*"],
               {"AUG_MODELS": json.dumps({"default_model": "mock-model", "models": []}), "AUG_MAX_CTX": "200000"}),
    "droid": ("compat/droid/tools/mockllm.py", "droid", ["compat/droid/requests/*"], {}),
    "kimi": ("compat/kimi/tools/mockllm.py", "kimi", ["compat/kimi/requests/*"], {}),
}
# each fork is checked on the logs recorded with it (its additions fire there); agents/tools also on the logs of
# the agents that used it unchanged. The env is the one its RUN.md used where that matters.

CLOCK = re.compile(rb'"(created|created_at)": \d+')


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def read_log(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return [json.loads(l) for l in f if l.strip()]


def start(argv, env, port):
    p = subprocess.Popen(argv, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return p
        except OSError:
            if p.poll() is not None:
                raise RuntimeError("server exited: " + " ".join(argv))
            time.sleep(0.05)
    raise RuntimeError("server did not start: " + " ".join(argv))


def ask(port, method, path, body=None):
    """(status, content-type, request-id header, body with the clock masked); a server that drops the
    connection (an exception in its handler) gives ("no answer", the error's name, None, b"")."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    data = None if body is None else json.dumps(body).encode()
    try:
        c.request(method, path, body=data, headers={"content-type": "application/json"} if data else {})
        r = c.getresponse()
        out = (r.status, r.getheader("content-type"), r.getheader("request-id"), CLOCK.sub(rb'"\1": 0', r.read()))
    except (http.client.HTTPException, OSError) as e:
        out = ("no answer", type(e).__name__, None, b"")
    finally:
        c.close()
    return out


def replay(fork_file, variant, log, env, tmp):
    """replay one log against both servers; returns (requests replayed, list of differences)."""
    recs = read_log(log)
    # a log may also hold the paths of the agent's service; GET /v1/models first, then the POSTs in order
    reqs = [("GET", "/v1/models", None)] + [("POST", r["path"], r["body"]) for r in recs]
    answers, logs = [], []
    for tag, argv in (("fork", [sys.executable, fork_file]), ("merged", [sys.executable, MERGED, "--variant", variant])):
        port = free_port()
        lf = os.path.join(tmp, f"{tag}-{os.path.basename(log)}.log")
        p = start(argv + [str(port), lf], env, port)
        try:
            answers.append([ask(port, m, path, b) for m, path, b in reqs])
        finally:
            p.terminate(); p.wait()
        got = []
        for x in (lf, lf + ".side"):
            got.append(open(x, "rb").read() if os.path.exists(x) else None)
        logs.append(got)
    diffs = []
    for n, (a, b) in enumerate(zip(*answers)):
        if a != b:
            diffs.append(f"request {n} {reqs[n][0]} {reqs[n][1]}: fork {a[:3]} {a[3][:300]!r}\n"
                         f"    merged {b[:3]} {b[3][:300]!r}")
    if logs[0] != logs[1]:
        diffs.append("the LOGFILE / LOGFILE.side the servers wrote differ")
    return len(reqs), diffs


def main():
    args = sys.argv[1:]
    rev = None
    if args[:1] == ["--forks-from"]:
        rev, args = args[1], args[2:]
    names = args or list(CASES)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            fork, variant, globs, env = CASES[name]
            fork_file = os.path.join(ROOT, FX, fork)
            if rev or not os.path.exists(fork_file):
                fork_file = os.path.join(tmp, name.replace("/", "_") + "-fork.py")
                src = subprocess.run(["git", "-C", ROOT, "show", f"{rev or 'HEAD'}:{FX}{fork}"],
                                     check=True, capture_output=True).stdout
                open(fork_file, "wb").write(src)
            logs = sorted(x for g in globs for x in glob.glob(os.path.join(ROOT, FX, g)))
            total, ok = 0, True
            for log in logs:
                n, diffs = replay(fork_file, variant, log, env, tmp)
                total += n
                rel = os.path.relpath(log, os.path.join(ROOT, FX))
                if diffs:
                    ok = False
                    print(f"  DIFF {name} --variant {variant} {rel}: {len(diffs)} difference(s)")
                    for d in diffs[:5]:
                        print("    " + d)
                else:
                    print(f"  same {name} --variant {variant} {rel}: {n} requests")
            print(f"{'IDENTICAL' if ok else 'DIFFERENT'} {name} (--variant {variant}): {total} requests"
                  f" in {len(logs)} logs")
            bad += not ok
    print("all identical" if not bad else f"{bad} fork(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
