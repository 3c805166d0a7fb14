#!/usr/bin/env bash
# fetch_det_data.sh — the real photos `paddle det synth` composites (core/synth), idempotently:
#   stamps:      Tux Paint photo cut-outs (Debian tuxpaint-stamps-default, GPL-2), all PNG stamps
#                (the 8 class folders plus the others that pretraining sets use, synth.PretrainClasses),
#                into $CACHE/data/tuxpaint/usr/share/tuxpaint/stamps/...
#   backgrounds: real photos from python3-skimage (CC0 / public domain), opencv-doc's samples (BSD-3)
#                and mate-backgrounds' nature photos (GPL-2+), into $CACHE/data/backgrounds/<package>/
# Only the needed files are extracted from the .deb files (apt-get download + dpkg-deb); nothing is
# installed and nothing is written into the repository. CACHE is ${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}.
set -euo pipefail
CACHE="${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}"
DATA="$CACHE/data"
done_mark="$DATA/.det_data_v4"
if [ -f "$done_mark" ]; then
  echo "det data: already in $DATA" >&2
  exit 0
fi
mkdir -p "$DATA/tuxpaint" "$DATA/backgrounds"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

get() { # package: download its .deb into $tmp (apt-get update once if the index is stale)
  (cd "$tmp" && { apt-get download -qq "$1" >/dev/null 2>&1 || { apt-get update -qq && apt-get download -qq "$1"; }; })
}

echo "det data: tuxpaint-stamps-default (161 MB download, ~25 MB kept)" >&2
get tuxpaint-stamps-default
S=./usr/share/tuxpaint/stamps
dpkg-deb --fsys-tarfile "$tmp"/tuxpaint-stamps-default_*.deb | tar -x -C "$DATA/tuxpaint" --wildcards "$S/*.png"

# Photos only; images whose subject is one of the classes (fruits, butterfly, squirrel, ladybird,
# cat, chick, baboon, graffiti animals, flowers) are left out so unlabelled objects of a class never
# sit in a background.
echo "det data: backgrounds (skimage, opencv-doc samples, mate nature photos)" >&2
get python3-skimage
K=./usr/lib/python3/dist-packages/skimage/data
mkdir -p "$DATA/backgrounds/skimage"
dpkg-deb --fsys-tarfile "$tmp"/python3-skimage_*.deb | tar -x -C "$DATA/backgrounds/skimage" --strip-components=7 \
  $K/astronaut.png $K/brick.png $K/coffee.png $K/grass.png $K/gravel.png \
  $K/hubble_deep_field.jpg $K/motorcycle_left.png $K/motorcycle_right.png $K/rocket.jpg
get opencv-doc
O=./usr/share/doc/opencv-doc/examples/data
mkdir -p "$DATA/backgrounds/opencv"
dpkg-deb --fsys-tarfile "$tmp"/opencv-doc_*.deb | tar -x -C "$DATA/backgrounds/opencv" --strip-components=7 \
  $O/aero1.jpg $O/aero3.jpg $O/aloeL.jpg $O/basketball1.png $O/board.jpg $O/box_in_scene.png \
  $O/building.jpg $O/home.jpg $O/leuvenA.jpg $O/leuvenB.jpg \
  $O/messi5.jpg $O/rubberwhale1.png $O/smarties.png $O/stuff.jpg
get mate-backgrounds
M=./usr/share/backgrounds/mate/nature
mkdir -p "$DATA/backgrounds/mate"
dpkg-deb --fsys-tarfile "$tmp"/mate-backgrounds_*.deb | tar -x -C "$DATA/backgrounds/mate" --strip-components=6 \
  $M/Aqua.jpg $M/Blinds.jpg $M/Dune.jpg $M/GreenMeadow.jpg $M/RainDrops.jpg $M/Storm.jpg $M/Wood.jpg

n_st=$(find "$DATA/tuxpaint" -name '*.png' | wc -l)
n_bg=$(find "$DATA/backgrounds" -type f | wc -l)
echo "det data: $n_st stamps, $n_bg backgrounds in $DATA" >&2
touch "$done_mark"
