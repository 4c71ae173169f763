#!/usr/bin/env bash
# Measures first paint of a 100,000-message session and the idle RSS, in the real window (release).
set -euo pipefail
cd "$(dirname "$0")/../.."
./tests/setup.sh
(cd ui && npm run build --silent)
cargo build --release --locked -p alisio --features custom-protocol
cargo build --release --locked -p alisio-engine --example big_session
home="$(mktemp -d)"
ALISIO_HOME="$home" ./target/release/examples/big_session 100000 >/dev/null
ALISIO_HOME="$home" ./target/release/examples/big_session 10 >/dev/null
export ALISIO_HOME="$home" ALISIO_APP="$PWD/target/release/alisio"
export NO_AT_BRIDGE=1 DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent
xvfb-run -a -s "-screen 0 1280x800x24" node tests/bench/window_paint.mjs
