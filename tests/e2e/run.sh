#!/usr/bin/env bash
# Builds the app with the bundled UI and runs the window tests under Xvfb.
# Set ALISIO_SCREENSHOTS=DIR to also save screenshots of the main views there.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tauri-driver >/dev/null || cargo install tauri-driver --locked
(cd ui && npm run build --silent)
cargo build --locked -p alisio --features custom-protocol --bin alisio --bin alisio-window --example scripted-server
target_dir="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)"
export ALISIO_APP="$target_dir/debug/alisio" ALISIO_SCRIPTED_SERVER="$target_dir/debug/examples/scripted-server"
export NO_AT_BRIDGE=1 DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent
xvfb-run -a -s "-screen 0 1280x800x24" node --test --test-force-exit tests/e2e/app.test.mjs
# A team's archive served to a real browser (WebKitGTK's MiniBrowser through WebKitWebDriver).
xvfb-run -a -s "-screen 0 1280x800x24" node --test --test-force-exit tests/e2e/served.test.mjs
