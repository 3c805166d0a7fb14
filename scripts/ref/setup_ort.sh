#!/usr/bin/env bash
# setup_ort.sh [DIR] — install onnxruntime-node 1.30.0 (the ONNX Runtime reference
# used by scripts/ref/ort_run.mjs) into DIR, idempotently.
#
# DIR defaults to $ORT_NODE_DIR, else ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ortnode-1.30.0.
# `npm install --ignore-scripts`: the package's install script (which would download
# GPU binaries) is skipped; the CPU binaries (linux x64 and arm64, darwin arm64, win32) ship inside the package.
set -euo pipefail

VERSION=1.30.0
DIR="${1:-${ORT_NODE_DIR:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ortnode-$VERSION}}"
PKG="$DIR/node_modules/onnxruntime-node"

installed() {
  [[ -f "$PKG/package.json" ]] &&
    [[ "$(node -p "require('$PKG/package.json').version")" == "$VERSION" ]] &&
    (cd "$DIR" && node -e "require('onnxruntime-node')" >/dev/null 2>&1)
}

if ! installed; then
  mkdir -p "$DIR"
  [[ -f "$DIR/package.json" ]] || echo '{"private": true}' > "$DIR/package.json"
  echo "setup_ort: npm install onnxruntime-node@$VERSION -> $DIR" >&2
  (cd "$DIR" && npm install --ignore-scripts --no-audit --no-fund --silent "onnxruntime-node@$VERSION")
  installed || { echo "setup_ort: onnxruntime-node does not load from $DIR" >&2; exit 1; }
fi
echo "setup_ort: onnxruntime-node $VERSION ready in $DIR (export ORT_NODE_DIR=$DIR)" >&2
