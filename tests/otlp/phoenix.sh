#!/usr/bin/env bash
# A session exported to a real trace store (not part of CI: Phoenix is a large install): Arize
# Phoenix from PyPI is started on 127.0.0.1, a session is made with the scripted model server (a
# tool call, then an answer), `alisio sessions export --format otlp` sends it to Phoenix's
# `/v1/traces`, and Phoenix's REST API is asked for the spans it stored.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${ALISIO_PHOENIX_CACHE:-$HOME/.cache/alisio-phoenix}"
venv="$cache/venv"
if [ ! -x "$venv/bin/phoenix" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "arize-phoenix==20.26.1"
fi
cargo build --quiet --locked -p alisio --bin alisio --example scripted-server
work="$(mktemp -d)"
port="${PHOENIX_PORT:-6006}"
PHOENIX_WORKING_DIR="$work/phoenix" PHOENIX_PORT="$port" PHOENIX_HOST=127.0.0.1 \
  "$venv/bin/phoenix" serve >"$work/phoenix.log" 2>&1 &
phoenix=$!
script="$work/script.json"
echo '[{"calls": [{"id": "call_ls", "name": "list_dir", "arguments": "{\"path\": \".\"}"}], "usage": [120, 9, 100]}, {"text": "The workspace holds notes.txt.", "usage": [150, 12, 120]}]' >"$script"
./target/debug/examples/scripted-server "$script" >"$work/model.url" &
model=$!
trap 'kill $phoenix $model 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 1
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { tail -20 "$work/phoenix.log"; exit 1; }
sleep 1
export ALISIO_HOME="$work/home"
mkdir -p "$ALISIO_HOME" "$work/ws"
echo notes >"$work/ws/notes.txt"
cat >"$ALISIO_HOME/config.json" <<JSON
{"provider": {"baseUrl": "$(head -1 "$work/model.url")", "model": "scripted", "maxRetries": 0},
 "permissions": {"shell": "allow", "write": "allow"},
 "telemetry": {"otlp": {"endpoint": "http://127.0.0.1:$port/v1/traces", "serviceName": "alisio-phoenix-check"}}}
JSON
session=$(cd "$work/ws" && "$OLDPWD/target/debug/alisio" run --json "list the workspace" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "session $session ran (its turn was exported live); now the export of the whole session:"
./target/debug/alisio sessions export "$session" --format otlp
sleep 3
curl -sf "http://127.0.0.1:$port/v1/projects/default/spans?limit=100" | python3 -c '
import json, sys
spans = json.load(sys.stdin)["data"]
print(f"Phoenix holds {len(spans)} spans in project default:")
for s in sorted(spans, key=lambda s: s["start_time"]):
    a = s.get("attributes", {})
    keep = {k: v for k, v in a.items() if k.startswith(("gen_ai.usage", "gen_ai.tool", "gen_ai.conversation"))}
    name, trace, parent = s["name"], s["context"]["trace_id"][:8], str(s.get("parent_id"))[:8]
    print(f"  {name:<24} trace {trace} parent {parent:<8} {keep}")
names = {s["name"] for s in spans}
assert {"invoke_agent alisio", "chat scripted", "execute_tool list_dir"} <= names, names
'
