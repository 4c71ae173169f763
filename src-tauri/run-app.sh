#!/usr/bin/env bash
# Builds and opens the Alisio window on a fresh machine: installs the system and npm packages
# (tests/setup.sh), builds the UI and the app, then runs it. With no model server configured the
# app opens on a demo session the engine produces itself. Extra arguments go to `alisio`.
set -euo pipefail
cd "$(dirname "$0")/.."
./tests/setup.sh
(cd ui && npm run build --silent)
cargo build --release --locked -p alisio --features custom-protocol
exec ./target/release/alisio "$@"
