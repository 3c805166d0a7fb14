package vorbis

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// splitPages cuts an Ogg file into its raw pages (no checks).
func splitPages(b []byte) [][]byte {
	var pages [][]byte
	for len(b) >= pageHeaderLen && string(b[:4]) == "OggS" {
		n := int(b[26])
		if len(b) < pageHeaderLen+n {
			break
		}
		size := pageHeaderLen + n
		for _, l := range b[pageHeaderLen : pageHeaderLen+n] {
			size += int(l)
		}
		if size > len(b) {
			break
		}
		pages = append(pages, b[:size:size])
		b = b[size:]
	}
	return pages
}

// fixCRC rewrites a page's CRC after a test edited it.
func fixCRC(p []byte) {
	binary.LittleEndian.PutUint32(p[22:], 0)
	binary.LittleEndian.PutUint32(p[22:], oggCRC(0, p))
}

// withSerial returns a copy of page p with another serial number.
func withSerial(p []byte, serial uint32) []byte {
	q := slices.Clone(p)
	binary.LittleEndian.PutUint32(q[14:], serial)
	fixCRC(q)
	return q
}

// foreignPage is a one-packet page of another codec's stream.
func foreignPage(serial, seq uint32, flags byte, body string) []byte {
	p := make([]byte, pageHeaderLen+1, pageHeaderLen+1+len(body))
	copy(p, "OggS")
	p[5] = flags
	binary.LittleEndian.PutUint32(p[14:], serial)
	binary.LittleEndian.PutUint32(p[18:], seq)
	p[26] = 1
	p[27] = byte(len(body))
	p = append(p, body...)
	fixCRC(p)
	return p
}

func TestDecodeErrors(t *testing.T) {
	good := readFixture(t, "stereo44k_q5.ogg")
	pages := splitPages(good)
	if len(pages) < 4 {
		t.Fatalf("fixture has %d pages", len(pages))
	}
	badCRC := slices.Clone(good)
	off := len(pages[0]) + len(pages[1]) + 40
	badCRC[off] ^= 0x55
	second := len(pages[0])
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "ogg: no vorbis stream found"},
		{"not ogg", []byte("RIFF\x24\x00\x00\x00WAVEfmt 0123456789abcdef"), `ogg page at byte 0: no "OggS" capture pattern`},
		{"bad crc", badCRC, "crc mismatch"},
		{"cut in first page", good[:20], "ogg page at byte 0: truncated header"},
		{"cut in setup header", good[:second+200], "truncated body"},
		{"no vorbis", foreignPage(7, 0, flagBOS, "\x80theora"), "no vorbis stream found"},
		{"bad version", func() []byte { b := slices.Clone(good); b[4] = 1; return b }(), "stream structure version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode: %v, want error containing %q", err, tt.want)
			}
		})
	}
}

// TestTruncatedAudio cuts a file in its audio pages: Decode returns what it
// could decode and a *TruncatedError naming where.
func TestTruncatedAudio(t *testing.T) {
	good := readFixture(t, "stereo44k_q5.ogg")
	full, err := Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(good[:len(good)*2/3])
	var te *TruncatedError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "truncated: ogg page at byte") {
		t.Fatalf("err %v, want a *TruncatedError", err)
	}
	n := len(d.Channels[0])
	if n == 0 || n >= len(full.Channels[0]) {
		t.Fatalf("partial decode has %d of %d samples", n, len(full.Channels[0]))
	}
	if !slices.Equal(d.Channels[1], full.Channels[1][:n]) {
		t.Error("partial decode differs from the full one")
	}
}

// TestMultiplexedAndChained: pages of another logical stream are skipped,
// and a stream chained after the first is ignored.
func TestMultiplexedAndChained(t *testing.T) {
	good := readFixture(t, "mono16k_q3.ogg")
	want, err := Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	pages := splitPages(good)
	var mux []byte
	mux = append(mux, foreignPage(99, 0, flagBOS, "\x80theora-ish header")...)
	for i, p := range pages {
		mux = append(mux, p...)
		if i == 1 {
			mux = append(mux, foreignPage(99, 1, 0, "foreign data")...)
		}
	}
	mux = append(mux, foreignPage(99, 2, flagEOS, "end")...)
	var chained []byte
	chained = append(chained, good...)
	for _, p := range pages {
		chained = append(chained, withSerial(p, 12345)...)
	}
	for name, in := range map[string][]byte{"multiplexed": mux, "chained": chained} {
		got, err := Decode(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got.Channels[0], want.Channels[0]) {
			t.Errorf("%s: decode differs from the plain stream (%d vs %d samples)", name, len(got.Channels[0]), len(want.Channels[0]))
		}
	}
}

// TestHeaders checks the identification and comment headers sox wrote.
func TestHeaders(t *testing.T) {
	d, err := Decode(readFixture(t, "chan3_22k_q2.ogg"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Rate != 22050 || len(d.Channels) != 3 || d.Blocksize != [2]int{512, 1024} {
		t.Errorf("rate %d, %d channels, block sizes %v", d.Rate, len(d.Channels), d.Blocksize)
	}
	if !strings.Contains(d.Vendor, "Xiph.Org libVorbis") {
		t.Errorf("vendor %q", d.Vendor)
	}
}

// TestCodewords checks Huffman assignment on the spec's example (§3.2.1):
// lengths 2 4 4 4 4 2 3 3 give 00 0100 0101 0110 0111 10 110 111.
func TestCodewords(t *testing.T) {
	cb := &codebook{entries: 8, dims: 1, single: -1}
	if err := cb.buildTree([]uint8{2, 4, 4, 4, 4, 2, 3, 3}); err != nil {
		t.Fatal(err)
	}
	words := []string{"00", "0100", "0101", "0110", "0111", "10", "110", "111"}
	for e, w := range words {
		// Pack the codeword MSB first into the LSB-first bit stream.
		var b [1]byte
		for i, c := range w {
			if c == '1' {
				b[0] |= 1 << i
			}
		}
		if got := cb.decode(newBitReader(b[:])); got != e {
			t.Errorf("codeword %s decodes to %d, want %d", w, got, e)
		}
	}
	over := &codebook{entries: 3, dims: 1, single: -1}
	if err := over.buildTree([]uint8{1, 1, 1}); err == nil || !strings.Contains(err.Error(), "overspecified") {
		t.Errorf("lengths 1 1 1: %v, want overspecified", err)
	}
	under := &codebook{entries: 2, dims: 1, single: -1}
	if err := under.buildTree([]uint8{1, 2}); err == nil || !strings.Contains(err.Error(), "underspecified") {
		t.Errorf("lengths 1 2: %v, want underspecified", err)
	}
}
