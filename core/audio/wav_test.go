package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The testdata/wav fixtures are one 20 ms, 3-channel, 11025 Hz float32
// signal (sox synth: 440, 1000, 3000 Hz sines at -3 dB) converted by sox
// (without dither) to each encoding; sox writes WAVE_FORMAT_EXTENSIBLE for
// most of them (3 channels), RIFX for rifx_s16.wav.
func TestWAVFixturesMatchSource(t *testing.T) {
	src, err := ReadWAV("testdata/wav/src_f32.wav")
	if err != nil {
		t.Fatal(err)
	}
	if src.Rate != 11025 || len(src.Channels) != 3 || src.Len() != 220 || src.Encoding != Float32 {
		t.Fatalf("src: rate %d, %d channels, %d samples, %v", src.Rate, len(src.Channels), src.Len(), src.Encoding)
	}
	tests := []struct {
		file string
		enc  Encoding
		tol  float64 // sox rounds to nearest: half a step, plus float32 slack
	}{
		{"u8.wav", PCMU8, 0.5/128 + 1e-6},
		{"s16.wav", PCM16, 0.5/32768 + 1e-7},
		{"rifx_s16.wav", PCM16, 0.5/32768 + 1e-7},
		{"s24.wav", PCM24, 0.5/(1<<23) + 1e-7},
		{"s32.wav", PCM32, 1e-7},
		{"f64.wav", Float64, 0},
		{"ulaw.wav", MuLaw, 0.03}, // G.711: 3-4 bits of mantissa
		{"alaw.wav", ALaw, 0.03},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a, err := ReadWAV(filepath.Join("testdata/wav", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if a.Rate != src.Rate || len(a.Channels) != 3 || a.Len() != src.Len() || a.Encoding != tt.enc {
				t.Fatalf("got rate %d, %d channels, %d samples, %v; want %d, 3, %d, %v",
					a.Rate, len(a.Channels), a.Len(), a.Encoding, src.Rate, src.Len(), tt.enc)
			}
			worst := 0.0
			for c := range 3 {
				for i, v := range a.Channels[c] {
					worst = max(worst, math.Abs(float64(v)-float64(src.Channels[c][i])))
				}
			}
			if worst > tt.tol {
				t.Errorf("max |decoded - source| = %g, want <= %g", worst, tt.tol)
			}
		})
	}
	// stereo PCM (plain WAVE_FORMAT_PCM) and big-endian raw made from channels 1-2 and 1
	st, err := ReadWAV("testdata/wav/stereo_s16.wav")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ReadRaw("testdata/wav/mono_s16be.raw", RawFormat{Rate: 11025, Encoding: PCM16, BigEndian: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range src.Len() {
		for c, got := range []float32{st.Channels[0][i], st.Channels[1][i], raw.Channels[0][i]} {
			want := src.Channels[min(c, 1)%2][i]
			if c == 2 {
				want = src.Channels[0][i]
			}
			if math.Abs(float64(got-want)) > 0.5/32768+1e-7 {
				t.Fatalf("sample %d, check %d: %g, want %g", i, c, got, want)
			}
		}
	}
}

// G.711 decoding checked against Python's audioop.ulaw2lin / alaw2lin.
func TestG711(t *testing.T) {
	in := []byte{0x00, 0x01, 0x0f, 0x10, 0x55, 0x7f, 0x80, 0xd5, 0xff, 0x2a}
	wantU := []int{-32124, -31100, -16764, -15996, -716, 0, 32124, 716, 0, -5372}
	wantA := []int{-5504, -5248, -6784, -2752, -8, -848, 5504, 8, 848, -32256}
	for i, b := range in {
		if got := ulaw(b); got != wantU[i] {
			t.Errorf("ulaw(%#x) = %d, want %d", b, got, wantU[i])
		}
		if got := alaw(b); got != wantA[i] {
			t.Errorf("alaw(%#x) = %d, want %d", b, got, wantA[i])
		}
	}
}

func TestWAVRoundTrip(t *testing.T) {
	a := &Audio{Rate: 22050, Channels: [][]float32{{0, 0.5, -0.5, -1, 0.999969, 1.5}, {0.25, -0.25, 1e-6, -1e-6, 0.1, -2}}}
	for _, enc := range []Encoding{PCM16, Float32} {
		var buf bytes.Buffer
		if err := EncodeWAV(&buf, a, enc); err != nil {
			t.Fatal(err)
		}
		b, err := DecodeWAV(&buf, "mem")
		if err != nil {
			t.Fatal(err)
		}
		if b.Rate != a.Rate || len(b.Channels) != 2 || b.Len() != a.Len() || b.Encoding != enc {
			t.Fatalf("%v: got %d Hz %d ch %d samples %v", enc, b.Rate, len(b.Channels), b.Len(), b.Encoding)
		}
		for c := range 2 {
			for i, v := range a.Channels[c] {
				want := v
				if enc == PCM16 { // rounded and clipped
					want = float32(max(-32768, min(32767, math.Round(float64(v)*32768)))) / 32768
				}
				if b.Channels[c][i] != want {
					t.Errorf("%v ch %d [%d] = %g, want %g", enc, c, i, b.Channels[c][i], want)
				}
			}
		}
	}
	// through a file
	path := filepath.Join(t.TempDir(), "x.wav")
	if err := WriteWAV(path, a, PCM16); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 44+2*2*6 {
		t.Fatalf("file: %v, %v", fi, err)
	}
}

// wavBytes builds a little-endian WAV by hand: the fmt chunk body, then extra chunks, then data.
func wavBytes(fmtBody []byte, dataSize uint32, data []byte, extra ...[]byte) []byte {
	le := binary.LittleEndian
	var b []byte
	b = append(b, "RIFF\x00\x00\x00\x00WAVE"...)
	b = append(b, "fmt "...)
	b = le.AppendUint32(b, uint32(len(fmtBody)))
	b = append(b, fmtBody...)
	for _, e := range extra {
		b = append(b, e...)
	}
	b = append(b, "data"...)
	b = le.AppendUint32(b, dataSize)
	b = append(b, data...)
	le.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

func pcmFmt(tag uint16, ch, rate, bits int) []byte {
	le := binary.LittleEndian
	var f []byte
	f = le.AppendUint16(f, tag)
	f = le.AppendUint16(f, uint16(ch))
	f = le.AppendUint32(f, uint32(rate))
	f = le.AppendUint32(f, uint32(rate*ch*bits/8))
	f = le.AppendUint16(f, uint16(ch*bits/8))
	f = le.AppendUint16(f, uint16(bits))
	return f
}

func TestWAVEdgeCases(t *testing.T) {
	samples := []byte{0x00, 0x40, 0x00, 0xc0}    // 0.5, -0.5 as s16le
	odd := []byte("LIST\x03\x00\x00\x00abc\x00") // odd-sized chunk + pad byte
	ok := []struct {
		name string
		b    []byte
		n    int
	}{
		{"plain", wavBytes(pcmFmt(1, 1, 16000, 16), 4, samples), 2},
		{"odd chunk before data", wavBytes(pcmFmt(1, 1, 16000, 16), 4, samples, odd), 2},
		{"streamed size 0xFFFFFFFF", wavBytes(pcmFmt(1, 1, 16000, 16), 0xFFFFFFFF, samples), 2},
		{"streamed size 0", wavBytes(pcmFmt(1, 1, 16000, 16), 0, samples), 2},
		{"trailing chunk after data", append(wavBytes(pcmFmt(1, 1, 16000, 16), 4, samples), "junk\x00\x00\x00\x00"...), 2},
	}
	for _, tt := range ok {
		a, err := DecodeWAV(bytes.NewReader(tt.b), "x.wav")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if a.Len() != tt.n || a.Channels[0][0] != 0.5 || a.Channels[0][1] != -0.5 {
			t.Errorf("%s: got %v", tt.name, a.Channels)
		}
	}
	bad := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "x.wav: truncated: 0 bytes"},
		{"not riff", []byte("ID3\x04 some mp3 bytes"), `not a WAV file: starts with "ID3\x04"`},
		{"rf64", []byte("RF64\xff\xff\xff\xffWAVEds64"), "RF64 (64-bit RIFF) files are not supported"},
		{"truncated data", wavBytes(pcmFmt(1, 1, 16000, 16), 400, samples), "truncated: data chunk declares 400 bytes (200 frames), 4 present"},
		{"cut in header", wavBytes(pcmFmt(1, 1, 16000, 16), 4, samples)[:30], "truncated: fmt chunk declares 16 bytes, 10 present"},
		{"no data", wavBytes(pcmFmt(1, 1, 16000, 16), 4, samples)[:36], "truncated: no data chunk"},
		{"half frame", wavBytes(pcmFmt(1, 2, 16000, 16), 6, append(samples, 0, 0)), "data chunk of 6 bytes is not a whole number of 4-byte frames"},
		{"adpcm", wavBytes(pcmFmt(2, 1, 16000, 4), 4, samples), "unsupported WAV format tag 0x0002 (MS ADPCM)"},
		{"float16", wavBytes(pcmFmt(3, 1, 16000, 16), 4, samples), "unsupported IEEE float sample size: 2 bytes"},
		{"zero channels", wavBytes(pcmFmt(1, 0, 16000, 16), 4, samples), "fmt chunk: 0 channels"},
	}
	for _, tt := range bad {
		_, err := DecodeWAV(bytes.NewReader(tt.b), "x.wav")
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "x.wav: ") {
			t.Errorf("%s: error %v, want it to name x.wav and contain %q", tt.name, err, tt.want)
		}
	}
}

func TestRawAndRead(t *testing.T) {
	if _, err := DecodeRaw(bytes.NewReader([]byte{1, 2, 3}), "x.raw", RawFormat{Rate: 8000}); err == nil ||
		!strings.Contains(err.Error(), "x.raw: truncated: 3 bytes is not a whole number of 2-byte frames") {
		t.Errorf("odd raw: %v", err)
	}
	a, err := DecodeRaw(bytes.NewReader([]byte{0x80, 0x3f, 0, 0, 0, 0xbf}), "x.f32", RawFormat{Rate: 8000, Encoding: Float32, BigEndian: false})
	if err == nil {
		t.Errorf("6 bytes of f32 accepted: %v", a.Channels)
	}
	a, err = DecodeRaw(bytes.NewReader([]byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xbf}), "x.f32", RawFormat{Rate: 8000, Encoding: Float32})
	if err != nil || a.Channels[0][0] != 1 || a.Channels[0][1] != -0.5 {
		t.Errorf("f32le raw: %v %v", a, err)
	}
	for _, tt := range []struct {
		s   string
		enc Encoding
		big bool
	}{{"s16le", PCM16, false}, {"S16BE", PCM16, true}, {"f32le", Float32, false}, {"u8", PCMU8, false}, {"s24", PCM24, false}, {"ulaw", MuLaw, false}} {
		enc, big, err := ParseEncoding(tt.s)
		if err != nil || enc != tt.enc || big != tt.big {
			t.Errorf("ParseEncoding(%q) = %v %v %v", tt.s, enc, big, err)
		}
	}
	if _, _, err := ParseEncoding("mp3"); err == nil {
		t.Error("ParseEncoding(mp3) accepted")
	}
	if _, err := Read("x.opus", nil); err == nil || !strings.Contains(err.Error(), "x.opus: .opus files are not supported") {
		t.Errorf("opus: %v", err)
	}
	if _, err := Read("testdata/wav/mono_s16be.raw", nil); err == nil || !strings.Contains(err.Error(), "needs its sample rate") {
		t.Errorf("raw without rate: %v", err)
	}
}
