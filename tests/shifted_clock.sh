#!/usr/bin/env bash
# Runs the Rust test suite a second time with the clock a year ahead (libfaketime, from Debian's
# `faketime` package): no test may depend on the date it runs. The test binaries are built first
# with the real clock (rustc itself hangs under libfaketime), then each is run under the shifted
# clock; the processes they start (alisio, scripted and MCP servers) inherit it.
#   ALISIO_CLOCK_SHIFT  the offset, in libfaketime's syntax (default +365d)
set -euo pipefail
cd "$(dirname "$0")/.."
lib=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
[ -f "$lib" ] || { echo "libfaketime is missing: apt-get install faketime" >&2; exit 1; }
shift_by="${ALISIO_CLOCK_SHIFT:-+365d}"
mapfile -t binaries < <(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["manifest_path"].rsplit("/", 1)[0] + "\t" + m["executable"])
')
[ ${#binaries[@]} -gt 0 ] || { echo "no test binaries were built" >&2; exit 1; }
echo "clock shifted by $shift_by: $(LD_PRELOAD=$lib FAKETIME=$shift_by date -u +%F)"
for entry in "${binaries[@]}"; do
  dir="${entry%%$'\t'*}" binary="${entry#*$'\t'}"
  echo "-- $(basename "$binary")"
  # Test binaries run from their package's folder, as cargo runs them.
  (cd "$dir" && LD_PRELOAD="$lib" FAKETIME="$shift_by" "$binary" -q)
done
