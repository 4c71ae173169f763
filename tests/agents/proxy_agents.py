#!/usr/bin/env python3
"""Real agent CLIs through `alisio proxy` (docs/development.md): each agent runs one turn with a tool
call against a scripted server, its base URL pointed at the proxy; then its own session files are
imported. Checked: every body the proxy stored equals, key for key, the body the server received
(and no credential reached the database); every call of the imported session is exact.

Usage: proxy_agents.py ALISIO NODE_MODULES AGENT...   (AGENT: codex | claude-code | opencode)
  codex runs against the suite's scripted server (target/debug/examples/scripted-server);
  claude-code and opencode against tests/tools/mockllm.py (variant base) (Anthropic Messages and a
  custom OpenAI-compatible provider), the scripted server the corpus was recorded with.
"""
import json, os, signal, sqlite3, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "target/debug/examples/scripted-server"
MOCK = ROOT / "tests/tools/mockllm.py"
KEY = "sk-proxy-test-credential-7731"


def start_proxy(alisio, home, upstream):
    proc = subprocess.Popen([alisio, "proxy", "--upstream", upstream, "--listen", "127.0.0.1:0", "--json"],
                            env={**os.environ, "ALISIO_HOME": str(home)}, stdout=subprocess.PIPE, text=True)
    line = json.loads(proc.stdout.readline())
    assert line["type"] == "listening", line
    return proc, "http://" + line["address"]


def stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("alisio proxy did not stop on Ctrl-C")
    assert proc.returncode == 0, f"alisio proxy exited {proc.returncode}"
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_codex(work, proxy_base, bin_dir):
    codex_home = work / "home/.codex"
    codex_home.mkdir(parents=True)
    proj = work / "proj"
    proj.mkdir()
    (codex_home / "config.toml").write_text(f"""model = "mock"
model_provider = "mock"
model_context_window = 100000
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.mock]
name = "mock"
base_url = "{proxy_base}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects."{proj}"]
trust_level = "trusted"
""")
    exe = bin_dir / "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    env = {**os.environ, "HOME": str(work / "home"), "CODEX_HOME": str(codex_home), "MOCK_API_KEY": KEY}
    prompt = 'DO exec_command {"cmd":"echo hello from codex"}'
    subprocess.run([exe, "exec", "--skip-git-repo-check", "-"], input=prompt, text=True, cwd=proj, env=env,
                   check=True, timeout=180, capture_output=True)
    return codex_home / "sessions"


def run_claude(work, proxy_base, bin_dir):
    proj = work / "proj"
    proj.mkdir()
    env = {**os.environ, "HOME": str(work / "home"), "ANTHROPIC_BASE_URL": proxy_base, "ANTHROPIC_API_KEY": KEY,
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1"}
    exe = bin_dir / "@anthropic-ai/claude-code-linux-x64/claude"
    prompt = 'DO Bash {"command":"echo hello from claude","description":"print"}'
    subprocess.run([exe, "-p", prompt, "--allowedTools", "Bash", "--output-format", "json"], cwd=proj, env=env,
                   check=True, timeout=180, capture_output=True, text=True)
    return work / "home/.claude/projects"


def run_opencode(work, proxy_base, bin_dir):
    proj = work / "proj"
    proj.mkdir()
    home = work / "home"
    (proj / "opencode.json").write_text(json.dumps({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                              "options": {"baseURL": proxy_base + "/v1", "apiKey": KEY},
                              "models": {"mock": {"name": "mock", "tool_call": True,
                                                  "limit": {"context": 100000, "output": 1000}}}}},
        "model": "mock/mock", "small_model": "mock/mock", "share": "disabled", "autoupdate": False,
        "permission": {"bash": "allow", "edit": "allow", "webfetch": "deny"}}))
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_STATE_HOME": str(home / ".local/state"), "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
           "OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
           "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1", "PWD": str(proj)}  # it finds its project by $PWD
    exe = bin_dir / "opencode-linux-x64/bin/opencode"
    prompt = 'DO bash {"command":"echo hello from opencode","description":"print"}'
    done = subprocess.run([exe, "run", "--title", "proxy"], input=prompt, cwd=proj, env=env, timeout=300,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"opencode exited {done.returncode}: {done.stdout[-1500:]} {done.stderr[-1500:]}"
    return home / ".local/share/opencode/opencode.db"


AGENTS = {"codex": run_codex, "claude-code": run_claude, "opencode": run_opencode}


def check(alisio, agent, bin_dir):
    with tempfile.TemporaryDirectory(prefix=f"alisio-proxy-{agent}-") as tmp:
        work = Path(tmp)
        home = work / "alisio"
        if agent == "codex":
            script = work / "script.json"
            script.write_text(json.dumps([
                {"calls": [{"id": "call_proxy_1", "name": "exec_command",
                            "arguments": {"cmd": "echo hello from codex"}}], "usage": [1000, 10, 0]},
                "done through the proxy"]))
            server = subprocess.Popen([SCRIPTED, script], stdout=subprocess.PIPE, text=True)
            base = server.stdout.readline().strip()
            upstream = base.removesuffix("/v1")
            received = lambda: json.load(urllib.request.urlopen(base + "/__received"))
        else:
            port, log = free_port(), work / "mock.jsonl"
            server = subprocess.Popen([sys.executable, MOCK, "--variant", "base", str(port), log], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            upstream = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    urllib.request.urlopen(upstream + "/v1/models", timeout=1)
                    break
                except Exception:
                    time.sleep(0.1)

            def received():
                rows = [json.loads(l) for l in log.read_text().splitlines()] if log.exists() else []
                return [r["body"] for r in rows if not r["path"].split("?")[0].endswith("/count_tokens")]
        try:
            proxy, proxy_base = start_proxy(alisio, home, upstream)
            try:
                sessions = AGENTS[agent](work, proxy_base, bin_dir)
            finally:
                lines = stop(proxy)
            bodies = received()
        finally:
            server.kill()
        captured = [l for l in lines if l["type"] == "captured"]
        assert captured, f"{agent}: nothing captured: {lines}"
        assert len(captured) == len(bodies), f"{agent}: {len(captured)} captured, the server received {len(bodies)}"
        db = sqlite3.connect(home / "sessions.db")
        stored = [json.loads(r[0]) for r in
                  db.execute("SELECT request_ref FROM model_calls WHERE request_source = 'proxy' ORDER BY started_at, id")]
        for body in bodies:
            assert body in stored, f"{agent}: a body the server received is not stored as sent"
        wal = home / "sessions.db-wal"
        raw = (home / "sessions.db").read_bytes() + (wal.read_bytes() if wal.exists() else b"")
        assert KEY.encode() not in raw, f"{agent}: the agent's key reached the database"
        db.close()
        env = {**os.environ, "ALISIO_HOME": str(home)}
        doc = json.loads(subprocess.run([alisio, "import", str(sessions), "--json"], env=env, check=True,
                                        capture_output=True, text=True).stdout)
        imported = [s for s in doc["imported"] if s["source"] == agent]
        assert imported, f"{agent}: no session imported from {sessions}: {doc}"
        exact = 0
        for session in imported:
            calls = json.loads(subprocess.run([alisio, "calls", "list", session["id"], "--json"], env=env,
                                              check=True, capture_output=True, text=True).stdout)
            assert calls, f"{agent}: the imported session has no calls"
            for call in calls:
                assert call["exact"], f"{agent}: call {call['n']} is {call['requestSource']}, not exact"
                exact += 1
        sources = sorted({c["requestSource"] for s in imported for c in json.loads(subprocess.run(
            [alisio, "calls", "list", s["id"], "--json"], env=env, check=True, capture_output=True, text=True).stdout)})
        print(f"{agent}: {len(captured)} calls captured, equal to the {len(bodies)} bodies the server received; "
              f"the imported session's {exact} calls exact ({', '.join(sources)})")


def main():
    alisio, bin_dir, agents = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    failed = []
    for agent in agents:
        try:
            check(alisio, agent, bin_dir)
        except Exception as e:  # one agent's failure does not hide the others'
            print(f"{agent}: FAILED: {e}", file=sys.stderr)
            failed.append(agent)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
