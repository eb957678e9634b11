#!/usr/bin/env bash
# run.sh [SCRIPT]: the ctest entries browser_*: checks that node, chromium and
# test/browser/node_modules (scripts/install-deps runs npm ci) are there, then runs SCRIPT
# (default page_test.mjs) from this folder with node. Without them it skips
# (exit 77, ctest's SKIP_RETURN_CODE) naming what is missing, except in CI (CI=true), where a
# skipped browser test would hide that the page was never tested: there it fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
node="${QUELL_NODE:-/usr/bin/node}"
chromium="${QUELL_CHROMIUM:-/usr/bin/chromium}"

missing=()
[ -x "$node" ] || missing+=("$node (Debian package nodejs)")
[ -x "$chromium" ] || missing+=("$chromium (Debian package chromium)")
[ -f "$here/node_modules/playwright-core/package.json" ] ||
  missing+=("$here/node_modules/playwright-core (run: cd test/browser && npm ci)")
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "browser test: FAILED: missing ${missing[*]}; scripts/install-deps installs them" >&2
    exit 1
  fi
  echo "browser test: SKIPPED: missing ${missing[*]}; scripts/install-deps installs them"
  exit 77
fi
# Never a downloaded browser: playwright-core only drives the one named above.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 QUELL_CHROMIUM="$chromium"
exec "$node" "$here/${1:-page_test.mjs}"
