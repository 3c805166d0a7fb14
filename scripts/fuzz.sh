#!/usr/bin/env bash
# fuzz.sh — run every Go fuzz target (func FuzzXxx(f *testing.F) in a *_test.go)
# for a short time each, one target per `go test` invocation, and exit 1 if
# any of them failed. A failing input is written by Go under the package's
# testdata/fuzz/FuzzXxx/; commit it as a seed with the fix.
#
#   scripts/fuzz.sh                 # every target, FUZZTIME each (default 4s)
#   FUZZTIME=60s FUZZFLAGS=-parallel=1 nice scripts/fuzz.sh   # a longer, gentler run
#   scripts/fuzz.sh FuzzDecodeWAV   # only targets whose name matches (grep -E)
#
# Bounded for CI: under 3 minutes on 2 cores for the whole set at 4s (20
# targets, each also paying a few seconds of start-up). Each
# target's seed corpus also runs in every plain `go test`.
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-4s}"
only="${1:-.*}"

# "dir name" for every fuzz target, in a stable order.
targets=$(grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' core kits cmd 2>/dev/null |
  sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*).*#\1 \2#' | sort -u | grep -E " ($only)$" || true)
if [ -z "$targets" ]; then
  echo "fuzz: no fuzz target matches '$only'" >&2
  exit 2
fi

failed=()
n=0
start=$SECONDS
while read -r dir name; do
  n=$((n + 1))
  t0=$SECONDS
  # Short minimization keeps a new interesting input from eating the budget. The fuzz engine
  # itself sometimes ends a run with "context deadline exceeded" when the time runs out while
  # a worker is busy, writing no failing input: that is retried once; a failing input is not.
  for try in 1 2; do
    if out=$(CGO_ENABLED=0 go test -count=1 -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" \
      -fuzzminimizetime 1s ${FUZZFLAGS:-} "./$dir" 2>&1); then
      ok=1
      break
    fi
    ok=0
    if [ "$try" = 1 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written to' <<<"$out"; then
      printf 'fuzz: %s ended on the engine'"'"'s deadline without a failing input; once more\n' "$name" >&2
      continue
    fi
    break
  done
  if [ "$ok" = 1 ]; then
    execs=$(grep -oE 'execs: [0-9]+' <<<"$out" | tail -1 | cut -d' ' -f2)
    printf 'fuzz: ok   %-24s ./%-24s %8s execs %3ds\n' "$name" "$dir" "${execs:-?}" $((SECONDS - t0)) >&2
  else
    printf 'fuzz: FAIL %-24s ./%s\n%s\n' "$name" "$dir" "$out" >&2
    failed+=("$name (./$dir)")
  fi
done <<<"$targets"

echo "fuzz: $n targets, ${FUZZTIME} each, $((SECONDS - start))s in all" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} failed: ${failed[*]}; failing inputs are under each package's testdata/fuzz/" >&2
  exit 1
fi
