#!/usr/bin/env bash
# Long property-test campaigns for every parser that reads outside input (config, checkpoint
# answers, streamed and whole answers, tool-call arguments, streamed-secret redaction).
#   ./tests/fuzz.sh [CASES]   # cases per property (default 20000); CI runs 256 with ./tests/run
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-20000}"
started=$(date +%s)
PROPTEST_CASES="$cases" cargo test --release --locked -p alisio-engine fuzz_tests -- --test-threads 2
echo "== $cases cases per property in $(( $(date +%s) - started )) s"
