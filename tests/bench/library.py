#!/usr/bin/env python3
"""The library benchmark (#24): a home of N sessions built from the real session files in the
corpus (copied, each with its own ids, project and words), imported by one or two `alisio`
binaries side by side.

    tests/bench/library.py --alisio target/release/alisio [--before OLD/alisio] [--sessions 5000]

Measures, for each binary: first import (wall time, peak RSS), re-import with nothing changed,
`alisio search` p50/p95 over 25 queries developers type (three runs each; queries a binary
refuses are counted), a 1M-line Codex rollout, and the store size of a
30k-line Claude Code session against its file. Prints a table; --json FILE writes the figures.
"""
import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

# The real session files the repository keeps (the same files as the shared corpus).
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "import"
WORDS = ("kestrel marmot ocelot pangolin quokka tapir vicuna wombat axolotl bongo caracal dingo "
         "ermine fossa gharial hoatzin ibex jacana kinkajou lemur").split()
# What developers type (#39): words, then file names, paths, ids, model names, symbols, flags,
# error codes and an unbalanced quote — plain text, each token matched literally.
QUERIES = ["kestrel", "marmot line", "ocelot", "hello", "quokka vicuna", "error", "summary", "lemur",
           "notes.txt", "CLAUDE.md", "README.md", "src/parser.rs", "/home/dev/work", "46c4be69",
           "claude-opus-5-5", "gpt-4o", "foo::bar", "ERR-42", "--max-findings", "old_string",
           "system-reminder", "\"line 12", "e.g.", "#42", "cargo test"]


def templates():
    claude = sorted((FIXTURES / "claude").rglob("*.jsonl"))
    codex = sorted((FIXTURES / "codex").rglob("*.jsonl"))
    return claude, codex


def vary(text, old_id, new_id, project, word):
    text = text.replace(old_id, new_id)
    for cwd in ("/home/dev/work/claude/proj2", "/home/dev/work/claude/proj", "/home/dev/work/codex/proj"):
        text = text.replace(cwd, project)
    return text.replace(" line ", f" {word} line ")


def build_home(root: Path, sessions: int):
    """~/.claude/projects, ~/.codex/sessions and an OpenCode database, `sessions` in all."""
    claude, codex = templates()
    rng = random.Random(24)
    opencode_sessions = max(1, sessions // 25)
    jsonl = sessions - opencode_sessions
    for i in range(jsonl):
        project = f"/home/dev/work/project-{i % 40:02d}"
        word = WORDS[i % len(WORDS)] + " " + rng.choice(WORDS)
        new_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if i % 2 == 0:
            src = claude[(i // 2) % len(claude)]
            old_id = src.stem
            dest = root / ".claude/projects" / project.replace("/", "-") / f"{new_id}.jsonl"
        else:
            src = codex[(i // 2) % len(codex)]
            old_id = src.stem[-36:]
            day = 1 + i % 28
            dest = root / f".codex/sessions/2026/11/{day:02d}" / f"rollout-2026-11-{day:02d}T10-00-00-{new_id}.jsonl"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(vary(src.read_text(), old_id, new_id, project, word))
    # OpenCode: the corpus database with its sessions copied under new ids.
    db = root / ".local/share/opencode/opencode.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(FIXTURES / "opencode" / "opencode.db")
    conn.execute("VACUUM INTO ?", (str(db),))
    conn.close()
    conn = sqlite3.connect(db)
    originals = [r[0] for r in conn.execute("SELECT id FROM session")]
    copies = 0
    while copies + len(originals) < opencode_sessions:
        for sid in originals:
            new = f"{sid}_{copies}"
            cols = lambda t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
            scols = cols("session")
            conn.execute(
                f"INSERT INTO session ({','.join(scols)}) SELECT {','.join('?' if c == 'id' else c for c in scols)} FROM session WHERE id = ?",
                (new, sid))
            mcols = cols("message")
            for (mid,) in conn.execute("SELECT id FROM message WHERE session_id = ?", (sid,)).fetchall():
                nmid = f"{mid}_{copies}"
                sel = ",".join("?" if c == "id" else ("?" if c == "session_id" else c) for c in mcols)
                args = [nmid if c == "id" else new for c in mcols if c in ("id", "session_id")]
                conn.execute(f"INSERT INTO message ({','.join(mcols)}) SELECT {sel} FROM message WHERE id = ?", (*args, mid))
                pcols = cols("part")
                for (pid,) in conn.execute("SELECT id FROM part WHERE message_id = ?", (mid,)).fetchall():
                    psel = ",".join("?" if c in ("id", "message_id", "session_id") else c for c in pcols)
                    pargs = [{"id": f"{pid}_{copies}", "message_id": nmid, "session_id": new}[c]
                             for c in pcols if c in ("id", "message_id", "session_id")]
                    conn.execute(f"INSERT INTO part ({','.join(pcols)}) SELECT {psel} FROM part WHERE id = ?", (*pargs, pid))
            copies += 1
            if copies + len(originals) >= opencode_sessions:
                break
    conn.commit()
    conn.close()


def measured(cmd, env):
    """Runs `cmd` under a python helper that reports its child's own peak RSS."""
    helper = ("import resource,subprocess,sys,time,json;t=time.monotonic();"
              "p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.PIPE);"
              "print(json.dumps({'rc':p.returncode,'wall':time.monotonic()-t,"
              "'rss':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024,'err':p.stderr.decode()[-500:]}))")
    out = subprocess.run([sys.executable, "-c", helper, *map(str, cmd)], env=env, stdout=subprocess.PIPE, check=True)
    return json.loads(out.stdout)


def codex_rollout(path: Path, lines: int):
    with path.open("w") as f:
        f.write(json.dumps({"timestamp": "2026-11-30T17:48:49.883Z", "type": "session_meta",
                            "payload": {"id": "bench-1m", "cwd": "/w", "model": "m"}}) + "\n")
        turn = 0
        written = 1
        while written < lines:
            call = f"call_{turn}"
            for rec in (
                {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                      "content": [{"type": "input_text", "text": f"t{turn}"}]}},
                {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": call}},
                {"type": "response_item", "payload": {"type": "function_call_output", "call_id": call, "output": "ok"}},
                {"type": "token_usage_record", "payload": {"response_id": f"r{turn}", "usage": {"input_tokens": 1, "output_tokens": 1}}},
            ):
                rec["timestamp"] = "2026-11-30T17:48:49.883Z"
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
                written += 1
            turn += 1


def claude_session(path: Path, lines: int):
    """A Claude Code session of `lines` records grown from the corpus' records."""
    claude, _ = templates()
    records = [json.loads(l) for l in claude[1].read_text().splitlines() if l.strip()]
    records = [r for r in records if r.get("type") in ("user", "assistant", "system", "attachment")]
    sid = "22222222-2222-4222-8222-222222222222"
    with path.open("w") as f:
        parent = None
        for i in range(lines):
            rec = dict(records[i % len(records)])
            rec["uuid"] = f"00000000-0000-4000-8000-{i:012d}"
            rec["parentUuid"] = parent
            rec["sessionId"] = sid
            if rec.get("type") == "assistant" and isinstance(rec.get("message"), dict):
                rec["message"] = dict(rec["message"], id=f"msg_{i}")
            if rec.get("type") == "system" and rec.get("subtype") == "compact_boundary":
                rec["subtype"] = "informational"
            parent = rec["uuid"]
            f.write(json.dumps(rec) + "\n")


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bench(binary: Path, home: Path, work: Path, searches: bool, big=(1_000_000, 30_000)):
    out = {}
    alisio_home = work / "alisio"
    env = dict(os.environ, HOME=str(home), ALISIO_HOME=str(alisio_home), XDG_DATA_HOME=str(home / ".local/share"),
               CODEX_HOME=str(home / ".codex"))
    first = measured([binary, "import", "--json"], env)
    out["first_import_s"], out["first_import_rss_mib"] = first["wall"], first["rss"]
    again = measured([binary, "import", "--json"], env)
    out["reimport_s"], out["reimport_rss_mib"] = again["wall"], again["rss"]
    out["sessions"] = json.loads(subprocess.run([binary, "sessions", "list", "--json"], env=env,
                                                stdout=subprocess.PIPE, check=True).stdout).__len__()
    if searches:
        # Each query three times (the store warm after the first): p50 and p95 over every run; a
        # query the binary refuses (an older one's syntax errors) is counted, not timed.
        times, refused = [], 0
        for q in QUERIES:
            for _ in range(3):
                t = time.monotonic()
                r = subprocess.run([binary, "search", "--json", "--", q], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
                if r.returncode != 0:
                    refused += 1
                    break
                times.append((time.monotonic() - t) * 1000)
        times.sort()
        out["search_refused_queries"] = refused
        out["search_p50_ms"] = statistics.median(times)
        out["search_p95_ms"] = times[int(0.95 * (len(times) - 1) + 0.5)]
    # A 1M-line Codex rollout and a 30k-line Claude Code session, each in a fresh home.
    for name, make, lines in (("codex_1m", codex_rollout, big[0]), ("claude_30k", claude_session, big[1])):
        src = work / f"{name}.jsonl" if name == "codex_1m" else work / "p" / "22222222-2222-4222-8222-222222222222.jsonl"
        src.parent.mkdir(parents=True, exist_ok=True)
        if not src.exists():
            make(src, lines)
        h = work / f"home-{name}"
        shutil.rmtree(h, ignore_errors=True)
        r = measured([binary, "import", "--json", src], dict(env, ALISIO_HOME=str(h)))
        out[f"{name}_s"], out[f"{name}_rss_mib"] = r["wall"], r["rss"]
        out[f"{name}_store_ratio"] = du(h) / src.stat().st_size
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--alisio", required=True, type=Path)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--sessions", type=int, default=5000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path, help="build the home here and keep it")
    ap.add_argument("--smoke", action="store_true",
                    help="the mechanics only: 30 sessions, small big files, every figure present (no time checked)")
    args = ap.parse_args()
    if args.smoke:
        args.sessions = 30
    root = Path(tempfile.mkdtemp(prefix="alisio-library-"))
    home = args.keep or root / "home"
    if not (home / ".claude").exists():
        t = time.monotonic()
        build_home(home, args.sessions)
        print(f"home of {args.sessions} sessions, {du(home) / 2**20:.0f} MiB, built in {time.monotonic() - t:.0f} s",
              file=sys.stderr)
    results = {}
    for label, binary in (("before", args.before), ("now", args.alisio)):
        if binary:
            print(f"== {label}: {binary}", file=sys.stderr)
            work = root / label
            work.mkdir()
            # The same files: each binary reads its own copy of the work inputs but the one home.
            big = (2_000, 300) if args.smoke else (1_000_000, 30_000)
            results[label] = bench(binary.resolve(), home, work, searches=True, big=big)
            print(json.dumps(results[label], indent=1), file=sys.stderr)
    keys = sorted({k for r in results.values() for k in r})
    print(f"{'figure':28} " + " ".join(f"{l:>12}" for l in results))
    for k in keys:
        cells = []
        for r in results.values():
            v = r.get(k)
            cells.append(f"{v:12.2f}" if isinstance(v, float) else f"{'n/a' if v is None else v:>12}")
        print(f"{k:28} " + " ".join(cells))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.smoke:
        now = results["now"]
        assert now["sessions"] >= args.sessions, now
        assert now["search_refused_queries"] == 0, f"plain text is refused: {now}"
        assert all(now[k] > 0 for k in ("search_p50_ms", "codex_1m_s", "claude_30k_s")), now
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
