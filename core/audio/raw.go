package audio

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// RawFormat describes headerless PCM.
type RawFormat struct {
	Rate      int      // samples per second per channel (required)
	Channels  int      // interleaved channels; 0 means 1
	Encoding  Encoding // 0 means PCM16
	BigEndian bool
}

// ParseEncoding parses sox/ffmpeg-style names: s16le, s16be, s24le, s32le,
// u8, s8, f32le, f64le, alaw, ulaw (with or without the byte-order suffix;
// little-endian is the default). It returns the encoding and whether it is
// big-endian.
func ParseEncoding(s string) (Encoding, bool, error) {
	name := strings.ToLower(s)
	big := false
	switch {
	case strings.HasSuffix(name, "be"):
		big, name = true, strings.TrimSuffix(name, "be")
	case strings.HasSuffix(name, "le"):
		name = strings.TrimSuffix(name, "le")
	}
	for e, n := range encodingNames {
		if n == name {
			return e, big, nil
		}
	}
	return 0, false, fmt.Errorf("unknown sample encoding %q (known: s16le, s16be, s24le, s32le, u8, s8, f32le, f64le, alaw, ulaw)", s)
}

// ReadRaw reads a headerless PCM file.
func ReadRaw(path string, f RawFormat) (*Audio, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := parseRaw(b, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// DecodeRaw reads a whole headerless PCM stream; name is used in errors.
func DecodeRaw(r io.Reader, name string, f RawFormat) (*Audio, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a, err := parseRaw(b, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

func parseRaw(b []byte, f RawFormat) (*Audio, error) {
	if f.Rate <= 0 {
		return nil, fmt.Errorf("raw PCM: sample rate %d", f.Rate)
	}
	nc := max(f.Channels, 1)
	enc := f.Encoding
	if enc == EncodingUnknown {
		enc = PCM16
	}
	width := enc.Bytes()
	if width == 0 {
		return nil, fmt.Errorf("raw PCM: encoding %v", enc)
	}
	frame := width * nc
	if len(b)%frame != 0 {
		return nil, fmt.Errorf("truncated: %d bytes is not a whole number of %d-byte frames (%v, %d channel(s))", len(b), frame, enc, nc)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if f.BigEndian {
		order = binary.BigEndian
	}
	a := &Audio{Rate: f.Rate, Encoding: enc, Channels: make([][]float32, nc)}
	for c := range a.Channels {
		a.Channels[c] = make([]float32, len(b)/frame)
	}
	if len(b) > 0 {
		decodeInterleaved(a.Channels, b, enc, width, order)
	}
	return a, nil
}
