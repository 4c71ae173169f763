#!/usr/bin/env bash
# Runs the cache A/B benchmark (cache-compatible compaction) against a real llama.cpp server started here.
set -euo pipefail
cd "$(dirname "$0")/../.."
python="$(./tests/llama/setup.sh)"
port="${ALISIO_BENCH_PORT:-18089}"
export ALISIO_MODEL_CACHE="${ALISIO_LLAMA_CACHE:-$HOME/.cache/alisio-llama}/models"
log="$(mktemp)"
"$python" tests/llama/serve.py --port "$port" --ctx 8192 > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do grep -q '^ready ' "$log" && break; sleep 0.2; done
grep -q '^ready ' "$log" || { cat "$log" >&2; exit 1; }
ALISIO_BENCH_URL="http://127.0.0.1:$port/v1" cargo bench -p alisio-engine --bench cache_ab
