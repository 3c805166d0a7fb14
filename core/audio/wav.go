package audio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// WAV format tags (the fmt chunk's wFormatTag, or the first two bytes of
// WAVE_FORMAT_EXTENSIBLE's SubFormat GUID).
const (
	wavPCM        = 0x0001
	wavFloat      = 0x0003
	wavALaw       = 0x0006
	wavMuLaw      = 0x0007
	wavExtensible = 0xFFFE
)

// wavTagNames names the compressed formats people meet, for errors.
var wavTagNames = map[uint16]string{
	0x0002: "MS ADPCM", 0x0011: "IMA ADPCM", 0x0031: "GSM 6.10", 0x0050: "MPEG",
	0x0055: "MPEG layer 3", 0x0161: "WMA", 0x2000: "AC-3", 0x674f: "Ogg Vorbis",
}

// ksDataFormatTail is the GUID tail shared by the KSDATAFORMAT_SUBTYPE_* GUIDs
// of WAVE_FORMAT_EXTENSIBLE (the first 4 bytes hold the format tag).
var ksDataFormatTail = [12]byte{0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71}

// ReadWAV reads a WAV file.
func ReadWAV(path string) (*Audio, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := parseWAV(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// DecodeWAV reads a whole WAV stream; name is used in errors.
func DecodeWAV(r io.Reader, name string) (*Audio, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a, err := parseWAV(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

// wavFmt is the decoded fmt chunk.
type wavFmt struct {
	tag        uint16 // after resolving WAVE_FORMAT_EXTENSIBLE
	channels   int
	rate       int
	blockAlign int
	bits       int
}

func parseWAV(b []byte) (*Audio, error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("truncated: %d bytes, too short for a RIFF/WAVE header", len(b))
	}
	var order binary.ByteOrder
	switch string(b[:4]) {
	case "RIFF":
		order = binary.LittleEndian
	case "RIFX":
		order = binary.BigEndian
	case "RF64", "BW64":
		return nil, fmt.Errorf("%s (64-bit RIFF) files are not supported", b[:4])
	default:
		return nil, fmt.Errorf("not a WAV file: starts with %q, want \"RIFF\"", b[:4])
	}
	if string(b[8:12]) != "WAVE" {
		return nil, fmt.Errorf("not a WAV file: RIFF form type %q, want \"WAVE\"", b[8:12])
	}
	var f *wavFmt
	pos := 12
	for {
		if pos+8 > len(b) {
			if f == nil {
				return nil, fmt.Errorf("truncated: no fmt chunk in %d bytes", len(b))
			}
			return nil, fmt.Errorf("truncated: no data chunk in %d bytes", len(b))
		}
		id, size := string(b[pos:pos+4]), int64(order.Uint32(b[pos+4:]))
		body := pos + 8
		rest := int64(len(b) - body)
		switch id {
		case "fmt ":
			if size > rest {
				return nil, fmt.Errorf("truncated: fmt chunk declares %d bytes, %d present", size, rest)
			}
			var err error
			if f, err = parseFmt(b[body:body+int(size)], order); err != nil {
				return nil, err
			}
		case "data":
			if f == nil {
				return nil, fmt.Errorf("data chunk before the fmt chunk")
			}
			switch {
			case size == 0xFFFFFFFF || (size == 0 && rest > 0):
				// streamed file whose writer never came back to fill in the size
				size = rest - rest%int64(f.blockAlign)
			case size > rest:
				return nil, fmt.Errorf("truncated: data chunk declares %d bytes (%d frames), %d present", size, size/int64(f.blockAlign), rest)
			}
			if size%int64(f.blockAlign) != 0 {
				return nil, fmt.Errorf("data chunk of %d bytes is not a whole number of %d-byte frames", size, f.blockAlign)
			}
			return decodeWAVData(b[body:body+int(size)], f, order)
		default:
			if size > rest {
				return nil, fmt.Errorf("truncated: %q chunk declares %d bytes, %d present", id, size, rest)
			}
		}
		pos = body + int(size) + int(size&1)
	}
}

func parseFmt(c []byte, order binary.ByteOrder) (*wavFmt, error) {
	if len(c) < 16 {
		return nil, fmt.Errorf("fmt chunk of %d bytes, want at least 16", len(c))
	}
	f := &wavFmt{
		tag:        order.Uint16(c[0:]),
		channels:   int(order.Uint16(c[2:])),
		rate:       int(order.Uint32(c[4:])),
		blockAlign: int(order.Uint16(c[12:])),
		bits:       int(order.Uint16(c[14:])),
	}
	if f.tag == wavExtensible {
		if len(c) < 40 {
			return nil, fmt.Errorf("WAVE_FORMAT_EXTENSIBLE fmt chunk of %d bytes, want 40", len(c))
		}
		guid := c[24:40]
		if [12]byte(guid[4:16]) != ksDataFormatTail {
			return nil, fmt.Errorf("WAVE_FORMAT_EXTENSIBLE with unknown SubFormat GUID %x", guid)
		}
		f.tag = order.Uint16(guid[0:])
	}
	switch {
	case f.channels == 0:
		return nil, fmt.Errorf("fmt chunk: 0 channels")
	case f.rate == 0:
		return nil, fmt.Errorf("fmt chunk: sample rate 0")
	case f.tag != wavPCM && f.tag != wavFloat && f.tag != wavALaw && f.tag != wavMuLaw:
		name := wavTagNames[f.tag]
		if name == "" {
			name = "unknown"
		}
		return nil, fmt.Errorf("unsupported WAV format tag 0x%04x (%s); PCM, IEEE float, A-law and µ-law are supported", f.tag, name)
	case f.blockAlign == 0 || f.blockAlign%f.channels != 0:
		return nil, fmt.Errorf("fmt chunk: block align %d does not fit %d channel(s)", f.blockAlign, f.channels)
	}
	return f, nil
}

// encoding maps the fmt chunk to a sample Encoding; the container size is
// the block align per channel (so 20-bit samples in 24-bit slots read as PCM24).
func (f *wavFmt) encoding() (Encoding, error) {
	width := f.blockAlign / f.channels
	switch f.tag {
	case wavPCM:
		switch width {
		case 1:
			return PCMU8, nil
		case 2:
			return PCM16, nil
		case 3:
			return PCM24, nil
		case 4:
			return PCM32, nil
		}
		return 0, fmt.Errorf("unsupported PCM sample size: %d bits in %d bytes (8, 16, 24 and 32 are)", f.bits, width)
	case wavFloat:
		switch width {
		case 4:
			return Float32, nil
		case 8:
			return Float64, nil
		}
		return 0, fmt.Errorf("unsupported IEEE float sample size: %d bytes (4 and 8 are)", width)
	case wavALaw, wavMuLaw:
		if width != 1 {
			return 0, fmt.Errorf("G.711 with %d-byte samples, want 1", width)
		}
		if f.tag == wavALaw {
			return ALaw, nil
		}
		return MuLaw, nil
	}
	return 0, fmt.Errorf("unsupported WAV format tag 0x%04x", f.tag)
}

func decodeWAVData(d []byte, f *wavFmt, order binary.ByteOrder) (*Audio, error) {
	enc, err := f.encoding()
	if err != nil {
		return nil, err
	}
	n := len(d) / f.blockAlign
	a := &Audio{Rate: f.rate, Encoding: enc, Channels: make([][]float32, f.channels)}
	for c := range a.Channels {
		a.Channels[c] = make([]float32, n)
	}
	decodeInterleaved(a.Channels, d, enc, f.blockAlign/f.channels, order)
	return a, nil
}

// decodeInterleaved fills chans from interleaved samples of width bytes.
func decodeInterleaved(chans [][]float32, d []byte, enc Encoding, width int, order binary.ByteOrder) {
	nc := len(chans)
	dec := sampleDecoder(enc, order)
	for i := range chans[0] {
		for c := range nc {
			off := (i*nc + c) * width
			chans[c][i] = dec(d[off : off+width])
		}
	}
}

// sampleDecoder returns the function that turns one stored sample into [-1, 1).
func sampleDecoder(enc Encoding, order binary.ByteOrder) func([]byte) float32 {
	big := order == binary.BigEndian
	switch enc {
	case PCMU8:
		return func(s []byte) float32 { return float32(int(s[0])-128) / 128 }
	case PCMS8:
		return func(s []byte) float32 { return float32(int8(s[0])) / 128 }
	case PCM16:
		return func(s []byte) float32 { return float32(int16(order.Uint16(s))) / 32768 }
	case PCM24:
		return func(s []byte) float32 {
			var v int32
			if big {
				v = int32(s[0])<<24 | int32(s[1])<<16 | int32(s[2])<<8
			} else {
				v = int32(s[2])<<24 | int32(s[1])<<16 | int32(s[0])<<8
			}
			return float32(float64(v>>8) / (1 << 23))
		}
	case PCM32:
		return func(s []byte) float32 { return float32(float64(int32(order.Uint32(s))) / (1 << 31)) }
	case Float32:
		return func(s []byte) float32 { return math.Float32frombits(order.Uint32(s)) }
	case Float64:
		return func(s []byte) float32 { return float32(math.Float64frombits(order.Uint64(s))) }
	case ALaw:
		return func(s []byte) float32 { return float32(alaw(s[0])) / 32768 }
	case MuLaw:
		return func(s []byte) float32 { return float32(ulaw(s[0])) / 32768 }
	}
	panic("audio: no decoder for encoding " + enc.String())
}

// ulaw decodes a G.711 µ-law byte to a 16-bit sample value.
func ulaw(u byte) int {
	u = ^u
	exp := int(u>>4) & 7
	v := ((int(u&0x0f) << 3) + 0x84) << exp
	v -= 0x84
	if u&0x80 != 0 {
		return -v
	}
	return v
}

// alaw decodes a G.711 A-law byte to a 16-bit sample value.
func alaw(a byte) int {
	a ^= 0x55
	exp := int(a>>4) & 7
	v := int(a&0x0f) << 4
	if exp == 0 {
		v += 8
	} else {
		v = (v + 0x108) << (exp - 1)
	}
	if a&0x80 != 0 {
		return v
	}
	return -v
}
