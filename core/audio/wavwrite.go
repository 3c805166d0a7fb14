package audio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// WriteWAV writes a as a WAV file with 16-bit PCM (enc PCM16) or float32
// (enc Float32) samples. The file is written to a temporary name and renamed,
// so a failed write leaves no partial file.
func WriteWAV(path string, a *Audio, enc Encoding) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err = EncodeWAV(w, a, enc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// EncodeWAV writes a to w as a RIFF/WAVE stream (canonical 44-byte header for
// PCM16; float32 gets the fact chunk WAVE_FORMAT_IEEE_FLOAT requires).
// PCM16 rounds to nearest and clips to [-32768, 32767].
func EncodeWAV(w io.Writer, a *Audio, enc Encoding) error {
	var tag uint16
	switch enc {
	case PCM16:
		tag = wavPCM
	case Float32:
		tag = wavFloat
	default:
		return fmt.Errorf("write WAV: encoding %v not supported (s16 and f32 are)", enc)
	}
	nc := len(a.Channels)
	if nc == 0 || nc > 0xffff || a.Rate <= 0 {
		return fmt.Errorf("write WAV: %d channel(s) at %d Hz", nc, a.Rate)
	}
	n := a.Len()
	for c, ch := range a.Channels {
		if len(ch) != n {
			return fmt.Errorf("write WAV: channel %d has %d samples, channel 0 has %d", c, len(ch), n)
		}
	}
	width := enc.Bytes()
	dataSize := int64(n) * int64(nc) * int64(width)
	if dataSize > math.MaxUint32-64 {
		return fmt.Errorf("write WAV: %d bytes of samples exceed the 4 GiB RIFF limit", dataSize)
	}
	le := binary.LittleEndian
	var h []byte
	h = append(h, "RIFF"...)
	riffSize := 4 + (8 + 16) + (8 + dataSize)
	if tag == wavFloat {
		riffSize += 12 // fact chunk
	}
	h = le.AppendUint32(h, uint32(riffSize))
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(h, tag)
	h = le.AppendUint16(h, uint16(nc))
	h = le.AppendUint32(h, uint32(a.Rate))
	h = le.AppendUint32(h, uint32(a.Rate*nc*width))
	h = le.AppendUint16(h, uint16(nc*width))
	h = le.AppendUint16(h, uint16(8*width))
	if tag == wavFloat {
		h = append(h, "fact"...)
		h = le.AppendUint32(h, 4)
		h = le.AppendUint32(h, uint32(n))
	}
	h = append(h, "data"...)
	h = le.AppendUint32(h, uint32(dataSize))
	if _, err := w.Write(h); err != nil {
		return err
	}
	buf := make([]byte, 0, 4096*width)
	for i := range n {
		for _, ch := range a.Channels {
			if enc == PCM16 {
				v := math.Round(float64(ch[i]) * 32768)
				v = max(-32768, min(32767, v))
				buf = le.AppendUint16(buf, uint16(int16(v)))
			} else {
				buf = le.AppendUint32(buf, math.Float32bits(ch[i]))
			}
		}
		if len(buf) >= cap(buf)-8*nc {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}
