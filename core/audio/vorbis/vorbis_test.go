package vorbis

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixtures = "../testdata/vorbis"

// refDecode loads libvorbis's float output for fixture stem (written by
// scripts/ref/vorbis_ref.py).
func refDecode(t *testing.T, stem string) (rate int, chans [][]float32) {
	t.Helper()
	meta, err := os.ReadFile(stem + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Rate, Channels, Frames int }
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(stem + ".f32")
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 4*m.Channels*m.Frames {
		t.Fatalf("%s.f32: %d bytes, want %d", stem, len(raw), 4*m.Channels*m.Frames)
	}
	chans = make([][]float32, m.Channels)
	for c := range chans {
		chans[c] = make([]float32, m.Frames)
		for i := range chans[c] {
			chans[c][i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(c*m.Frames+i):]))
		}
	}
	return m.Rate, chans
}

// compare returns the largest |got - want| over all channels, failing on
// shape mismatches.
func compare(t *testing.T, name string, got, want [][]float32) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d channels, want %d", name, len(got), len(want))
	}
	var maxErr float64
	for c := range want {
		if len(got[c]) != len(want[c]) {
			t.Fatalf("%s: channel %d has %d samples, want %d", name, c, len(got[c]), len(want[c]))
		}
		for i, w := range want[c] {
			maxErr = max(maxErr, math.Abs(float64(got[c][i])-float64(w)))
		}
	}
	return maxErr
}

// TestMatchesLibvorbis decodes the committed fixtures (mono/stereo/3
// channels, 8–48 kHz, quality -1 to 8) and compares every sample with
// libvorbis's float output.
func TestMatchesLibvorbis(t *testing.T) {
	oggs, _ := filepath.Glob(filepath.Join(fixtures, "*.ogg"))
	if len(oggs) == 0 {
		t.Fatal("no fixtures in " + fixtures)
	}
	for _, path := range oggs {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			rate, want := refDecode(t, strings.TrimSuffix(path, ".ogg"))
			d, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if d.Rate != rate {
				t.Errorf("rate %d, want %d", d.Rate, rate)
			}
			maxErr := compare(t, name, d.Channels, want)
			t.Logf("%s: %d ch × %d samples, max |go - libvorbis| = %.3g", name, len(want), len(want[0]), maxErr)
			if maxErr > 2e-6 {
				t.Errorf("max |go - libvorbis| = %g, want ≤ 2e-6", maxErr)
			}
		})
	}
}
