// Package speech is the speech kit (PaddleSpeech's job). So far it has the
// audio front end: `paddle speech features` computes Kaldi-compatible fbank,
// MFCC and spectrogram features (core/audio/kaldi, exact to
// torchaudio.compliance.kaldi) for WAV and raw PCM files and writes them as
// .npy, and `paddle speech vad` finds speech segments (core/audio/vad:
// Silero VAD through core/runtime, or an energy detector). Keyword spotting,
// classification and ASR are not here yet.
//
// Where things are:
//
//	kit.go       the kit and its commands
//	features.go  `paddle speech features`
//	vad.go       `paddle speech vad`
package speech

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the speech kit.
func Kit() *kit.Kit {
	return &kit.Kit{
		Name:  "speech",
		Short: "Speech (PaddleSpeech): Kaldi fbank/MFCC/spectrogram features, voice activity detection",
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{newCmdFeatures(f, nil), newCmdVAD(f, nil)}
		},
	}
}
