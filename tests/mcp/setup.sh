#!/usr/bin/env bash
# Installs the real MCP servers the tests start, from PyPI, in a virtualenv outside the repository:
# mcp-server-time (the reference time server) and the official `mcp` SDK it depends on, which the
# tests' own small servers (tests/mcp/*.py) use too. Prints the virtualenv's bin directory.
set -euo pipefail
cache="${ALISIO_MCP_CACHE:-$HOME/.cache/alisio-mcp}"
venv="$cache/venv-mcp-server-time-2026.10.19"
if [ ! -x "$venv/bin/mcp-server-time" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp-server-time==2026.10.19" >&2
fi
echo "$venv/bin"
