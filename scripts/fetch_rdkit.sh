#!/usr/bin/env bash
# fetch_rdkit.sh — rdkit-data (BSD-3): the real molecule sets core/chem's golden test and the helix
# kit read (NCI first_5K with Daylight TPSA, WEHI, CHEMBL2321810, BZR), into $CACHE/data/rdkit-data.
# Data goes to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}; scripts/setup.sh and
# `paddle dataset pull` run this script. Idempotent: nothing is fetched when the files are there.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
rdkit="$CACHE/data/rdkit-data/usr/share/RDKit"
if [ ! -s "$rdkit/Data/NCI/first_5K.smi" ] || [ ! -s "$rdkit/Data/Pains/test_data/wehi_mols.csv" ] || [ ! -s "$rdkit/Contrib/FreeWilson/data/CHEMBL2321810.smi" ]; then
  echo "fetch_rdkit: rdkit-data molecule sets" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download -qq rdkit-data >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq rdkit-data; })
  dpkg-deb -x "$tmp"/rdkit-data_*.deb "$tmp/x"
  rm -rf "$rdkit.tmp" && mkdir -p "$rdkit.tmp"
  for f in Data/NCI/first_5K.smi Data/NCI/first_5k.tpsa.csv Data/Pains/test_data/wehi_mols.csv \
    Contrib/FreeWilson/data/CHEMBL2321810.smi Contrib/FreeWilson/data/CHEMBL2321810_act.csv Projects/DbCLI/testData/bzr.sdf; do
    mkdir -p "$rdkit.tmp/$(dirname "$f")" && cp "$tmp/x/usr/share/RDKit/$f" "$rdkit.tmp/$f"
  done
  rm -rf "$rdkit" && mkdir -p "$(dirname "$rdkit")" && mv "$rdkit.tmp" "$rdkit"
  rm -rf "$tmp"
fi
