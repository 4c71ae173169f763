#!/usr/bin/env python3
"""Which FTS5 tokenizer for the search index (#39), measured on an Alisio store of real sessions.

    tests/bench/tokenizers.py ALISIO_HOME/sessions.db [--json FILE]

Copies every stored message's text into one database per candidate tokenizer and reports, for
each: build time, index size, query p50/p95 over the queries developers type (as `alisio search`
sends them: each token a quoted phrase), and recall against the ground truth — the messages that
hold each query literally (case-insensitive substring). The store is only read.
"""
import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from library import QUERIES  # noqa: E402

CANDIDATES = {
    "unicode61 (shipped)": "unicode61 remove_diacritics 2",
    "unicode61 + tokenchars ._-/:": "unicode61 remove_diacritics 2 tokenchars '._-/:'",
    "trigram": "trigram",
}


def plain(query: str, trigram: bool) -> str:
    """As `store::search::plain_query`: each whitespace token a phrase (quotes doubled)."""
    tokens = [t.replace('"', '""') for t in query.split()]
    if trigram:
        # Trigram phrases need three characters; shorter tokens cannot be matched by the index.
        tokens = [t for t in tokens if len(t) >= 3]
    return " ".join(f'"{t}"' for t in tokens)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    source = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    texts = [r[0] for r in source.execute("SELECT content FROM messages WHERE content != ''")]
    lowered = [t.lower() for t in texts]
    truth = {q: {i for i, t in enumerate(lowered) if all(tok.strip('"').lower() in t for tok in q.split())}
             for q in QUERIES}
    print(f"{len(texts)} messages, {sum(map(len, texts)) / 2**20:.0f} MiB of text", file=sys.stderr)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, tokenize in CANDIDATES.items():
            path = Path(tmp) / f"{len(results)}.db"
            db = sqlite3.connect(path)
            db.execute(f"CREATE VIRTUAL TABLE t USING fts5(content, tokenize = \"{tokenize}\")")
            start = time.monotonic()
            with db:
                db.executemany("INSERT INTO t (rowid, content) VALUES (?, ?)", enumerate(texts))
            db.execute("INSERT INTO t (t) VALUES ('optimize')")
            db.commit()
            build = time.monotonic() - start
            times, found, expected = [], 0, 0
            for q in QUERIES:
                match = plain(q, tokenize == "trigram")
                for _ in range(3):
                    start = time.monotonic()
                    rows = {r[0] for r in db.execute(
                        "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 100000", (match,))} if match else set()
                    times.append((time.monotonic() - start) * 1000)
                found += len(rows & truth[q])
                expected += len(truth[q])
            db.close()
            times.sort()
            results[name] = {
                "build_s": round(build, 2),
                "index_mib": round(path.stat().st_size / 2**20, 1),
                "query_p50_ms": round(statistics.median(times), 2),
                "query_p95_ms": round(times[int(0.95 * (len(times) - 1) + 0.5)], 2),
                "recall": round(found / expected, 3) if expected else None,
            }
            print(name, results[name], file=sys.stderr)
    print(f"{'tokenizer':32} {'build s':>8} {'MiB':>7} {'p50 ms':>8} {'p95 ms':>8} {'recall':>7}")
    for name, r in results.items():
        print(f"{name:32} {r['build_s']:8} {r['index_mib']:7} {r['query_p50_ms']:8} {r['query_p95_ms']:8} {r['recall']!s:>7}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
