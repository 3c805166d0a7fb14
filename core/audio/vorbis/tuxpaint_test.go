package vorbis

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"paddle/core/hub"
)

// tuxpaintDir is where scripts/fetch_tuxpaint_sounds.sh puts the sounds.
func tuxpaintDir() string {
	return filepath.Join(hub.CacheDir(), "data", "tuxpaint-sounds")
}

type fileStats struct {
	Rate, Channels, Frames int
	RMS, Peak              []float64
}

// TestTuxpaintSounds decodes 81 real Ogg Vorbis recordings of Debian's
// tuxpaint-stamps-default (every 100th, plus two files cut off mid-packet)
// and checks them against libvorbis: through sox (which decodes with
// libvorbisfile to 16-bit) when sox is installed, else against the RMS and
// peak libvorbis's float output has (scripts/ref/vorbis_ref.py --stats).
func TestTuxpaintSounds(t *testing.T) {
	dir := tuxpaintDir()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no Tux Paint sounds in %s; run scripts/fetch_tuxpaint_sounds.sh", dir)
	}
	raw, err := os.ReadFile(filepath.Join(fixtures, "tuxpaint_stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]fileStats
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	sort.Strings(names)
	_, soxErr := exec.LookPath("sox")
	var worst, worstStat float64
	truncated := 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		d, err := ReadFile(path)
		var te *TruncatedError
		if errors.As(err, &te) {
			truncated++
		} else if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		w := want[name]
		if d.Rate != w.Rate || len(d.Channels) != w.Channels || len(d.Channels[0]) != w.Frames {
			t.Errorf("%s: %d Hz × %d ch × %d frames, want %d × %d × %d", name, d.Rate, len(d.Channels), len(d.Channels[0]), w.Rate, w.Channels, w.Frames)
			continue
		}
		for c, ch := range d.Channels {
			var ss, peak float64
			for _, v := range ch {
				ss += float64(v) * float64(v)
				peak = max(peak, math.Abs(float64(v)))
			}
			rms := math.Sqrt(ss / float64(max(1, len(ch))))
			e := max(math.Abs(rms-w.RMS[c]), math.Abs(peak-w.Peak[c]))
			worstStat = max(worstStat, e)
			if e > 1e-5 {
				t.Errorf("%s channel %d: rms %.7f peak %.7f, libvorbis %.7f %.7f", name, c, rms, peak, w.RMS[c], w.Peak[c])
			}
		}
		if soxErr == nil {
			worst = max(worst, compareSox(t, path, d))
		}
	}
	if truncated != 2 {
		t.Errorf("%d files reported truncated, want the 2 cut-off ones", truncated)
	}
	t.Logf("%d files: max |rms or peak - libvorbis| = %.3g", len(names), worstStat)
	if soxErr == nil {
		t.Logf("max |go - sox| over unclipped samples = %.3g (sox output is 16-bit: half a step is 1.53e-5)", worst)
	} else {
		t.Log("sox not installed: compared with committed libvorbis statistics only")
	}
}

// compareSox decodes path with sox and returns the largest difference over
// samples that 16-bit output does not clip; libvorbisfile rounds x·32768 to
// the nearest integer, so that is at most half a step plus float rounding.
func compareSox(t *testing.T, path string, d *Decoded) float64 {
	t.Helper()
	out, err := exec.Command("sox", path, "-t", "f32", "-").Output()
	if err != nil {
		t.Errorf("sox %s: %v", path, err)
		return 0
	}
	ch := len(d.Channels)
	if len(out)/4 != ch*len(d.Channels[0]) {
		t.Errorf("%s: sox gives %d frames, we %d", path, len(out)/4/ch, len(d.Channels[0]))
		return 0
	}
	var m float64
	for k := range len(out) / 4 {
		s := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*k:])))
		g := float64(d.Channels[k%ch][k/ch])
		if g*32768 >= 32767 || g*32768 <= -32768 {
			if want := math.Max(-1, math.Min(32767.0/32768, g)); s != want {
				t.Errorf("%s sample %d: sox %g, want %g (clipped)", path, k, s, want)
				return m
			}
			continue
		}
		m = max(m, math.Abs(s-g))
	}
	if m > 0.5/32768+1e-6 {
		t.Errorf("%s: max |go - sox| = %.3g, want ≤ half a 16-bit step", path, m)
	}
	return m
}
