#!/usr/bin/env bash
# Real agent CLIs through `alisio proxy` (tests/agents/proxy_agents.py): installs the pinned CLIs from
# npm (once, into $ALISIO_AGENTS_CACHE, default ~/.cache/alisio-agents), builds alisio and the
# scripted server, and runs each agent named (default: all three).
#   ./tests/agents/run.sh                 codex, claude-code and opencode
#   ./tests/agents/run.sh codex           one of them (what ./tests/run does)
set -euo pipefail
cd "$(dirname "$0")/../.."
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(codex claude-code opencode)
cache="${ALISIO_AGENTS_CACHE:-$HOME/.cache/alisio-agents}"
mkdir -p "$cache"
packages=()
for agent in "${agents[@]}"; do
  case "$agent" in
    codex) packages+=("@openai/codex@0.171.0"); probe="@openai/codex-linux-x64" ;;
    claude-code) packages+=("@anthropic-ai/claude-code@2.1.332"); probe="@anthropic-ai/claude-code-linux-x64" ;;
    opencode) packages+=("opencode-ai@1.18.33"); probe="opencode-linux-x64" ;;
    *) echo "unknown agent: $agent (codex, claude-code, opencode)" >&2; exit 2 ;;
  esac
  [ -d "$cache/node_modules/$probe" ] || missing=1
done
if [ -n "${missing:-}" ]; then
  [ -f "$cache/package.json" ] || (cd "$cache" && npm init -y >/dev/null)
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error "${packages[@]}")
fi
cargo build --locked -q -p alisio --bin alisio --example scripted-server
python3 tests/agents/proxy_agents.py "$PWD/target/debug/alisio" "$cache/node_modules" "${agents[@]}"
