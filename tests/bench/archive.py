#!/usr/bin/env python3
"""The team archive benchmark: a home of N sessions (library.py's, built from the corpus) pushed to
a real PostgreSQL server (Debian's PostgreSQL, started here on a scratch directory and a free port
of 127.0.0.1), then read back as the team reads it.

    tests/bench/archive.py --alisio target/release/alisio [--sessions 5000] [--machines 10] [--keep DIR]

Measures, in this order (targets in brackets; a full run exits 1 when one is missed):
  1. the first push of the home to a fresh archive: wall time and the push's own peak RSS
     [≤ 2 min for 5,000 sessions]; a second push with nothing new (it must send 0 sessions);
  2. `push --watch`: from an `alisio import` of one new session finishing until the archive holds
     it (an open psql session polled every 20 ms), 5 rounds: min/median/max [≤ 2 s, each round];
  3. the same home pushed again as machines m1..m(M-1) (each push sends everything, a new machine):
     the archive then holds M × the home's sessions; the pushes' wall times;
  4. `alisio search --archive` over library.py's 25 queries, three runs each, process start
     included: p50/p95 [p50 ≤ 200 ms];
  5. `alisio serve --archive`: spawn until it prints its URL (it copies the archive into one home
     per machine first), `POST /api/sessions_list` over 5 requests (min/median) and the sessions it
     returns [median ≤ 300 ms], `POST /api/search_messages` over the 25 queries, three runs each:
     p50/p95 [p50 ≤ 200 ms].
Prints a table; --json FILE writes the figures. With --smoke (the run for CI): 30
sessions, 2 machines, 1 watch round, no time checked, and it exits non-zero unless the mechanics
hold (the counts pushed, listed and found).
"""
import argparse
import json
import os
import queue
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

# library.py builds the home, and its queries are the ones searched here.
sys.dont_write_bytecode = True  # no __pycache__ left in tests/bench
sys.path.insert(0, str(Path(__file__).resolve().parent))
import library  # noqa: E402

USER = "alisio"
PASSWORD = "archive-bench-password"
PASSWORD_ENV = "ALISIO_BENCH_ARCHIVE_PASSWORD"
# Targets (seconds or milliseconds as named), checked by a full run only.
TARGETS = {
    "push_first_s": ("≤ 120 (5,000 sessions)", lambda v, n: n < 5000 or v <= 120),
    "watch_max_s": ("≤ 2", lambda v, n: v <= 2),
    "search_p50_ms": ("≤ 200", lambda v, n: v <= 200),
    "serve_list_median_ms": ("≤ 300", lambda v, n: v <= 300),
    "serve_search_p50_ms": ("≤ 200", lambda v, n: v <= 200),
}


def pg_tool(name):
    """Debian's PostgreSQL binaries, where support/postgres.rs looks for them."""
    for d in ("/usr/local/bin", "/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
              "/usr/lib/postgresql/15/bin"):
        if (Path(d) / name).exists():
            return str(Path(d) / name)
    return name


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A PostgreSQL server on `dir` (the recipe of tests/suite/support/postgres.rs): user `alisio`
    with a password (scram-sha-256), 127.0.0.1 only, fsync off. PostgreSQL refuses to run as root:
    as root, initdb and pg_ctl run as the `postgres` user, on a directory it owns."""

    def __init__(self, dir: Path):
        self.dir, self.data, self.port = dir, dir / "data", free_port()
        self.root = os.getuid() == 0
        dir.mkdir(parents=True)
        pwfile = dir / "pw"
        pwfile.write_text(PASSWORD)
        if self.root:
            os.chmod(dir.parent, 0o755)  # mkdtemp makes it 0700: postgres must reach its directory
            subprocess.run(["chown", "-R", "postgres", str(dir)], check=True)
        self.owner(["initdb", "-D", self.data, "-U", USER, "-A", "scram-sha-256", "--no-sync",
                    f"--pwfile={pwfile}"])
        options = f"-p {self.port} -k {dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.started = False
        try:
            self.owner(["pg_ctl", "-D", self.data, "-o", options, "-l", dir / "log", "-w", "start"])
        except RuntimeError as e:
            log = (dir / "log").read_text() if (dir / "log").exists() else ""
            raise RuntimeError(f"{e}\n{log[-2000:]}") from None
        self.started = True

    def owner(self, args):
        cmd = [pg_tool(args[0]), *map(str, args[1:])]
        if self.root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({r.returncode}): {r.stderr.strip()[-2000:]}")

    def stop(self):
        if self.started:
            try:
                self.owner(["pg_ctl", "-D", self.data, "-m", "immediate", "stop"])
            except RuntimeError as e:
                print(f"pg_ctl stop: {e}", file=sys.stderr)
            self.started = False

    @property
    def url(self):
        return f"postgres://{USER}@127.0.0.1:{self.port}/postgres"

    def first(self, query):
        """The first column of the first row, or None when the query fails (no table yet)."""
        r = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", "postgres",
                            "-At", "-c", query], env=dict(os.environ, PGPASSWORD=PASSWORD),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return r.stdout.split("\n")[0] if r.returncode == 0 else None

    def count(self, query):
        v = self.first(query)
        return int(v) if v else 0


class Session:
    """One psql process kept open, for polling: a query costs a round trip (≈ 0.1 ms), not a
    process start and a login (≈ 50 ms here), so that a 20 ms poll measures the archive."""

    def __init__(self, pg: Postgres):
        self.p = subprocess.Popen(["psql", "-h", "127.0.0.1", "-p", str(pg.port), "-U", USER, "-d", "postgres",
                                   "-At", "-q"], env=dict(os.environ, PGPASSWORD=PASSWORD), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def count(self, query):
        """The first column of the first row as a number (0 when the query fails). A marker line
        after each query ends its answer: a failed query prints nothing on stdout."""
        self.p.stdin.write(f"{query};\n\\echo --end--\n")
        self.p.stdin.flush()
        lines = []
        while (line := self.p.stdout.readline()) not in ("--end--\n", ""):
            lines.append(line.strip())
        return int(lines[0]) if lines and lines[0].isdigit() else 0

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def write_config(alisio_home: Path, pg: Postgres, machine: str):
    """The archive `team` in $ALISIO_HOME/config.json, pushing as `machine` (user u<i> alongside)."""
    config_path = alisio_home / "config.json"
    config = json.loads(config_path.read_text()) if config_path.exists() else {}
    config["archives"] = {"team": {"url": pg.url, "passwordEnv": PASSWORD_ENV, "machine": machine,
                                   "user": "u" + machine.lstrip("m")}}
    alisio_home.mkdir(parents=True, exist_ok=True)
    config_path.write_text(json.dumps(config, indent=1))


def timed(cmd, env):
    """Runs `cmd` to the end: its exit status, wall time, its own peak RSS (wait4's rusage of that
    one process, in MiB) and CPU time (user + system), its stdout and the tail of its stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.monotonic()
        p = subprocess.Popen([str(c) for c in cmd], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"rc": p.returncode, "wall": wall, "rss": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime,
                "out": out.read().decode(), "err": err.read().decode()[-2000:]}


def must(run, what):
    if run["rc"] != 0:
        raise RuntimeError(f"{what} exited {run['rc']}: {run['err']}")
    return run


def percentile(values, p):
    values = sorted(values)
    return values[int(p * (len(values) - 1) + 0.5)]


def new_session_file(dir: Path, i: int) -> Path:
    """One more Claude Code session: a corpus file copied under a new id (library.vary)."""
    claude, _ = library.templates()
    src = claude[i % len(claude)]
    new_id = str(uuid.uuid4())
    dest = dir / f"{new_id}.jsonl"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(library.vary(src.read_text(), src.stem, new_id, "/home/dev/work/watched", f"watch{i}"))
    return dest


class Lines:
    """A process's stream read line by line on a thread (so that it never blocks on a full pipe)."""

    def __init__(self, stream):
        self.q = queue.Queue()
        self.tail = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in iter(stream.readline, b""):
            text = line.decode(errors="replace").rstrip("\n")
            self.tail = (self.tail + [text])[-20:]
            self.q.put(text)
        self.q.put(None)

    def next(self, timeout):
        """The next line, None at the end of the stream; TimeoutError after `timeout` seconds."""
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None


def stop(proc):
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def post(base, token, command, body, timeout=600):
    """POST {base}/api/COMMAND with a bearer token: (status, the JSON answer, milliseconds)."""
    request = urllib.request.Request(f"{base}/api/{command}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {token}"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
    t = time.monotonic()
    try:
        with opener.open(request, timeout=timeout) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    ms = (time.monotonic() - t) * 1000
    try:
        return status, json.loads(raw), ms
    except ValueError:
        return status, None, ms


def bench(binary: Path, home: Path, work: Path, pg: Postgres, machines: int, watch_rounds: int):
    out = {}
    alisio_home = work / "alisio"
    env = dict(os.environ, HOME=str(home), ALISIO_HOME=str(alisio_home), XDG_DATA_HOME=str(home / ".local/share"),
               CODEX_HOME=str(home / ".codex"), **{PASSWORD_ENV: PASSWORD})
    env.pop("ALISIO_LOG", None)
    write_config(alisio_home, pg, "m0")
    # The library to push: the home imported (timed, not a figure of the archive).
    imported = must(timed([binary, "import", "--json"], env), "import")
    out["import_s"] = imported["wall"]
    listed = must(timed([binary, "sessions", "list", "--json"], env), "sessions list")
    out["home_sessions"] = len(json.loads(listed["out"]))
    print(f"home imported: {out['home_sessions']} sessions in {imported['wall']:.1f} s", file=sys.stderr)

    # 1. The first push to a fresh archive, then one with nothing new.
    first = must(timed([binary, "push", "--json"], env), "push")
    report = json.loads(first["out"])
    # Its CPU time against its wall time: what is left is waiting on PostgreSQL (round trips).
    out["push_first_s"], out["push_first_rss_mib"], out["push_first_cpu_s"] = first["wall"], first["rss"], first["cpu"]
    out["push_first_sessions"], out["push_first_messages"] = report["sessions"], report["messages"]
    out["push_first_calls"], out["push_first_redactions"] = report["calls"], report["redactions"]
    again = must(timed([binary, "push", "--json"], env), "second push")
    out["push_again_s"], out["push_again_sessions"] = again["wall"], json.loads(again["out"])["sessions"]
    print(f"pushed {report['sessions']} sessions in {first['wall']:.1f} s; again: "
          f"{out['push_again_sessions']} in {again['wall']:.2f} s", file=sys.stderr)

    # 2. --watch: its first round done (its first JSON line), then sessions imported one at a time;
    # each round timed from the import's end until the archive holds one more session.
    watch = subprocess.Popen([str(binary), "push", "--watch", "--json"], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watch_out, watch_err = Lines(watch.stdout), Lines(watch.stderr)
    latencies, missed, polls, poll = [], 0, [], None
    try:
        try:
            line = watch_out.next(timeout=600)
        except TimeoutError:
            line = None
        if line is None:
            raise RuntimeError(f"push --watch printed no first round: {watch_err.tail}")
        poll = Session(pg)
        held = poll.count("SELECT count(*) FROM sessions")
        for i in range(watch_rounds):
            file = new_session_file(work / "watched", i)
            must(timed([binary, "import", "--json", file], env), "import of a watched session")
            done = time.monotonic()
            while True:
                t = time.monotonic()
                now = poll.count("SELECT count(*) FROM sessions")
                polls.append(time.monotonic() - t)
                if now > held or time.monotonic() - done > 30 or watch.poll() is not None:
                    break
                time.sleep(0.02)
            if now <= held:
                missed += 1
                print(f"watch round {i}: not in the archive after 30 s (watch "
                      f"{'exited' if watch.poll() is not None else 'running'}; {watch_err.tail})", file=sys.stderr)
            else:
                latencies.append(time.monotonic() - done)
            held = now
    finally:
        stop(watch)
        if poll:
            poll.close()
    out["watch_rounds"], out["watch_missed"] = watch_rounds, missed
    if latencies:
        out["watch_min_s"], out["watch_median_s"] = min(latencies), statistics.median(latencies)
        out["watch_max_s"] = max(latencies)
    # One poll's own time (a query on the open psql session): the resolution of those figures.
    if polls:
        out["watch_poll_median_ms"] = statistics.median(polls) * 1000
    # The home now holds the watched sessions too: every machine pushes them.
    listed = must(timed([binary, "sessions", "list", "--json"], env), "sessions list")
    out["home_sessions_after_watch"] = per_machine = len(json.loads(listed["out"]))

    # 3. The same home as machines m1..m(M-1): each a new machine, so each push sends everything.
    walls = []
    for m in range(1, machines):
        write_config(alisio_home, pg, f"m{m}")
        r = must(timed([binary, "push", "--json"], env), f"push as m{m}")
        walls.append(r["wall"])
        sent = json.loads(r["out"])["sessions"]
        if sent != per_machine:
            print(f"push as m{m} sent {sent} sessions, the home holds {per_machine}", file=sys.stderr)
    out["machines"] = machines
    out["archive_sessions"] = pg.count("SELECT count(*) FROM sessions")
    out["archive_messages"] = pg.count("SELECT count(*) FROM messages")
    if walls:
        out["push_machines_total_s"], out["push_machine_median_s"] = sum(walls), statistics.median(walls)
    print(f"archive: {out['archive_sessions']} sessions, {out['archive_messages']} messages from {machines} machines",
          file=sys.stderr)

    # 4. The team's search from the command line, process start included: three runs per query.
    times, refused, found, per_query = [], 0, 0, {}
    for q in library.QUERIES:
        for run in range(3):
            t = time.monotonic()
            r = subprocess.run([str(binary), "search", "--archive", "team", "--json", "--", q], env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ms = (time.monotonic() - t) * 1000
            if r.returncode != 0:
                refused += 1
                print(f"search {q!r} exited {r.returncode}: {r.stderr.decode()[-300:]}", file=sys.stderr)
                break
            times.append(ms)
            per_query.setdefault(q, []).append(ms)
            if run == 0 and json.loads(r.stdout)["total"] > 0:
                found += 1
    out["search_refused_queries"], out["search_queries_with_hits"] = refused, found
    out["search_query_median_ms"] = {q: statistics.median(v) for q, v in per_query.items()}
    if times:
        out["search_p50_ms"], out["search_p95_ms"] = statistics.median(times), percentile(times, 0.95)

    # 5. The served archive: a token, the server's start (the archive copied into one home per
    # machine), then the library and the search over HTTP.
    made = must(timed([binary, "serve", "token", "create", "--archive", "team", "--label", "bench"], env),
                "serve token create")
    token = made["out"].split()[-1]
    t = time.monotonic()
    server = subprocess.Popen([str(binary), "serve", "--archive", "team", "--listen", "127.0.0.1:0"], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        server_err, base = Lines(server.stdout), None
        deadline = t + 1800
        while base is None:
            try:
                line = server_err.next(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                line = None
            if line is None:
                raise RuntimeError(f"serve never said where it listens: {server_err.tail}")
            if "http://" in line:
                base = line[line.index("http://"):].split()[0].rstrip("/")
        out["serve_start_s"] = time.monotonic() - t
        lists = []
        for _ in range(5):
            status, body, ms = post(base, token, "sessions_list", {})
            if status != 200:
                raise RuntimeError(f"sessions_list: {status} {body}")
            lists.append(ms)
        out["serve_list_min_ms"], out["serve_list_median_ms"] = min(lists), statistics.median(lists)
        out["serve_list_sessions"] = len(body)
        times, refused, found, per_query = [], 0, 0, {}
        for q in library.QUERIES:
            for run in range(3):
                status, body, ms = post(base, token, "search_messages", {"query": q})
                if status != 200:
                    refused += 1
                    print(f"served search {q!r}: {status} {body}", file=sys.stderr)
                    break
                times.append(ms)
                per_query.setdefault(q, []).append(ms)
                if run == 0 and (body or {}).get("total", len((body or {}).get("hits", []))) > 0:
                    found += 1
        out["serve_search_refused_queries"], out["serve_search_queries_with_hits"] = refused, found
        out["serve_search_query_median_ms"] = {q: statistics.median(v) for q, v in per_query.items()}
        if times:
            out["serve_search_p50_ms"], out["serve_search_p95_ms"] = statistics.median(times), percentile(times, 0.95)
    finally:
        stop(server)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--alisio", required=True, type=Path)
    ap.add_argument("--sessions", type=int, default=5000)
    ap.add_argument("--machines", type=int, default=10)
    ap.add_argument("--watch-rounds", type=int, default=5)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path, help="build the home here and keep it")
    ap.add_argument("--smoke", action="store_true",
                    help="the mechanics only: 30 sessions, 2 machines, 1 watch round (no time checked)")
    args = ap.parse_args()
    if args.smoke:
        args.sessions, args.machines, args.watch_rounds = 30, 2, 1
    binary = args.alisio.resolve()
    root = Path(tempfile.mkdtemp(prefix="alisio-archive-"))
    pg = None
    try:
        home = args.keep or root / "home"
        if not (home / ".claude").exists():
            t = time.monotonic()
            library.build_home(home, args.sessions)
            print(f"home of {args.sessions} sessions, {library.du(home) / 2**20:.0f} MiB, built in "
                  f"{time.monotonic() - t:.0f} s", file=sys.stderr)
        pg = Postgres(root / "pg")
        print(f"PostgreSQL on 127.0.0.1:{pg.port}", file=sys.stderr)
        work = root / "work"
        work.mkdir()
        results = bench(binary, home, work, pg, args.machines, args.watch_rounds)
    finally:
        if pg:
            pg.stop()
        shutil.rmtree(root, ignore_errors=True)

    print(f"{'figure':32} {'value':>12}  target")
    missed = []
    for k, v in results.items():
        if isinstance(v, dict):  # per query: in --json; the table names the slowest three
            slow = sorted(v.items(), key=lambda kv: -kv[1])[:3]
            print(f"{k:32} {'':>12}  slowest: " + ", ".join(f"{q!r} {ms:.0f} ms" for q, ms in slow))
            continue
        target = TARGETS.get(k)
        mark = ""
        if target and not args.smoke:
            ok = target[1](v, args.sessions)
            mark = "" if ok else "  MISSED"
            if not ok:
                missed.append(k)
        cell = f"{v:12.2f}" if isinstance(v, float) else f"{v:>12}"
        print(f"{k:32} {cell}  {target[0] if target else ''}{mark}")
    for k in set(TARGETS) - set(results):
        print(f"{k:32} {'n/a':>12}  {TARGETS[k][0]}")
        missed.append(k)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))

    if args.smoke:
        # The mechanics: everything pushed once, nothing twice, every round seen, every machine
        # listed and found, no query refused.
        r = results
        problems = []
        if r["push_first_sessions"] != r["home_sessions"]:
            problems.append(f"first push sent {r['push_first_sessions']} of {r['home_sessions']} sessions")
        if r["push_again_sessions"] != 0:
            problems.append(f"a second push sent {r['push_again_sessions']} sessions")
        if r["watch_missed"] or "watch_max_s" not in r:
            problems.append(f"--watch missed {r['watch_missed']} of {r['watch_rounds']} rounds")
        if r["archive_sessions"] != args.machines * r["home_sessions_after_watch"]:
            problems.append(f"the archive holds {r['archive_sessions']} sessions, not "
                            f"{args.machines} × {r['home_sessions_after_watch']}")
        if r["serve_list_sessions"] != r["archive_sessions"]:
            problems.append(f"serve lists {r['serve_list_sessions']} of {r['archive_sessions']} sessions")
        for k in ("search_refused_queries", "serve_search_refused_queries"):
            if r.get(k):
                problems.append(f"{k}: {r[k]}")
        for k in ("search_queries_with_hits", "serve_search_queries_with_hits"):
            if not r.get(k):
                problems.append(f"{k}: none")
        if problems:
            sys.exit("; ".join(problems))
    elif missed:
        sys.exit(f"targets missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
