// Package audio reads and writes sound files and changes their sample rate:
// WAV (RIFF and RIFX; PCM 8/16/24/32-bit, IEEE float 32/64, A-law, µ-law,
// WAVE_FORMAT_EXTENSIBLE, any channel count and rate), raw PCM with a given
// rate and encoding, WAV output (16-bit PCM or float32), and windowed-sinc
// polyphase resampling with a Kaiser window (sox "high quality" class).
//
// Samples are float32 in [-1, 1) per channel. Kaldi-style features want
// int16-valued samples: multiply by 32768 (KaldiScale).
//
// Where things are:
//
//	audio.go     Audio, Encoding, Read (by extension), Mono, Channel
//	wav.go       DecodeWAV / ReadWAV: the RIFF parser and sample decoders
//	wavwrite.go  EncodeWAV / WriteWAV
//	raw.go       RawFormat, DecodeRaw / ReadRaw, ParseEncoding
//	resample.go  Resampler (Kaiser-windowed sinc, polyphase), Resample
//
// Features (STFT, mel filterbanks, SpecAugment, CMVN) are in
// core/audio/feature; Kaldi-compatible fbank/mfcc/spectrogram in
// core/audio/kaldi. Ogg Vorbis (.ogg, .oga) is decoded by core/audio/vorbis.
package audio

import (
	"fmt"
	"path/filepath"
	"strings"

	"paddle/core/audio/vorbis"
)

// KaldiScale is the factor from [-1, 1) samples to the int16-valued samples
// Kaldi (and torchaudio.compliance.kaldi on Kaldi's input) work on.
const KaldiScale = 32768

// Audio is decoded sound.
type Audio struct {
	Rate     int         // samples per second per channel
	Channels [][]float32 // Channels[c][i], each in [-1, 1) (float files may exceed it)
	Encoding Encoding    // how the source stored its samples
}

// Len returns the number of samples per channel.
func (a *Audio) Len() int {
	if len(a.Channels) == 0 {
		return 0
	}
	return len(a.Channels[0])
}

// Duration returns the length in seconds.
func (a *Audio) Duration() float64 {
	if a.Rate <= 0 {
		return 0
	}
	return float64(a.Len()) / float64(a.Rate)
}

// Mono returns the channel average (the only channel of a mono file, not a copy).
func (a *Audio) Mono() []float32 {
	switch len(a.Channels) {
	case 0:
		return nil
	case 1:
		return a.Channels[0]
	}
	out := make([]float32, a.Len())
	inv := 1 / float64(len(a.Channels))
	for i := range out {
		var s float64
		for _, c := range a.Channels {
			s += float64(c[i])
		}
		out[i] = float32(s * inv)
	}
	return out
}

// Channel returns channel c, or an error naming the channel count.
func (a *Audio) Channel(c int) ([]float32, error) {
	if c < 0 || c >= len(a.Channels) {
		return nil, fmt.Errorf("channel %d: the audio has %d channel(s)", c, len(a.Channels))
	}
	return a.Channels[c], nil
}

// Encoding is a sample format.
type Encoding int

// The sample formats.
const (
	EncodingUnknown Encoding = iota
	PCMU8                    // unsigned 8-bit (WAV's 8-bit PCM)
	PCMS8                    // signed 8-bit (raw only)
	PCM16                    // signed 16-bit
	PCM24                    // signed 24-bit packed in 3 bytes
	PCM32                    // signed 32-bit
	Float32                  // IEEE float32
	Float64                  // IEEE float64
	ALaw                     // G.711 A-law
	MuLaw                    // G.711 µ-law
)

var encodingNames = map[Encoding]string{
	PCMU8: "u8", PCMS8: "s8", PCM16: "s16", PCM24: "s24", PCM32: "s32",
	Float32: "f32", Float64: "f64", ALaw: "alaw", MuLaw: "ulaw",
}

// String returns the short name (s16, f32, ...).
func (e Encoding) String() string {
	if s, ok := encodingNames[e]; ok {
		return s
	}
	return "unknown"
}

// Bytes returns the bytes per sample.
func (e Encoding) Bytes() int {
	switch e {
	case PCMU8, PCMS8, ALaw, MuLaw:
		return 1
	case PCM16:
		return 2
	case PCM24:
		return 3
	case PCM32, Float32:
		return 4
	case Float64:
		return 8
	}
	return 0
}

// Read reads a sound file chosen by its extension: .wav (and .wave) as WAV,
// .ogg/.oga as Ogg Vorbis, .raw/.pcm/.s16 etc. as raw PCM in the given format (raw.Rate must be set
// for those). Other extensions are tried as WAV, so the error names what the
// file really is.
func Read(path string, raw *RawFormat) (*Audio, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".raw", ".pcm", ".s16", ".sw", ".f32", ".s8", ".u8":
		if raw == nil || raw.Rate <= 0 {
			return nil, fmt.Errorf("%s: raw PCM needs its sample rate (and encoding, default s16le)", path)
		}
		return ReadRaw(path, *raw)
	case ".ogg", ".oga":
		d, err := vorbis.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return &Audio{Rate: d.Rate, Channels: d.Channels}, nil
	case ".opus", ".mp3", ".flac", ".m4a":
		return nil, fmt.Errorf("%s: %s files are not supported (WAV and raw PCM are); convert with e.g. `sox %s out.wav`", path, ext, filepath.Base(path))
	}
	return ReadWAV(path)
}

// Exts are the extensions Read handles, for folder walks.
var Exts = []string{".wav", ".wave", ".raw", ".pcm", ".ogg", ".oga"}
