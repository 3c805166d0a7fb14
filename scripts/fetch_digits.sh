#!/usr/bin/env bash
# fetch_digits.sh — sklearn's 8x8 digits (1,797 real samples, BSD-3) for fast clas tests: just
# digits.csv.gz from Debian's python3-sklearn (apt-get download + dpkg-deb, no install).
# Data goes to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}; scripts/setup.sh and
# `paddle dataset pull` run this script. Idempotent: nothing is fetched when the files are there.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
digits="$CACHE/data/sklearn/digits.csv.gz"
if [ ! -s "$digits" ]; then
  echo "fetch_digits: sklearn digits" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download -qq python3-sklearn >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq python3-sklearn; })
  mkdir -p "$(dirname "$digits")"
  dpkg-deb --fsys-tarfile "$tmp"/python3-sklearn_*.deb | tar -xO --wildcards '*/sklearn/datasets/data/digits.csv.gz' > "$digits.tmp"
  mv "$digits.tmp" "$digits"
  rm -rf "$tmp"
fi
