#!/usr/bin/env bash
# Installs what building the app and running every test needs on a fresh Debian machine (as root):
# WebKitGTK and friends for the window, Xvfb and WebKitWebDriver for the window tests, the UI's
# npm packages. Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libwebkit2gtk-4.1-dev librsvg2-dev build-essential pkg-config libssl-dev file
          xvfb xauth imagemagick webkit2gtk-driver faketime postgresql)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi
