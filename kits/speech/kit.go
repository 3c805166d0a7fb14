// Package speech is the speech kit (PaddleSpeech's job): the audio front
// end (`paddle speech features`: Kaldi-compatible fbank, MFCC and
// spectrogram from core/audio/kaldi; `paddle speech vad`: Silero VAD or an
// energy detector from core/audio/vad) and keyword spotting: `paddle speech
// synth` makes training clips with espeak-ng and flite, a DS-CNN on log-mel
// fbank trains, evaluates, exports and predicts through the shared verbs,
// `paddle speech kws` spots keywords in files, and `paddle speech
// realwords` cuts the real recorded words the spotter is judged on; `paddle
// serve speech` serves the spotter. CTC speech recognition: `paddle speech
// asr-synth|asr-data|asr` and the shared verbs with configs/speech/asr_*.yaml.
// Audio classification (spoken-language ID, sound events; a PANNs-style CNN):
// `paddle speech cls-data|cls` and the shared verbs with configs/speech/cls_*.yaml.
//
// Where things are:
//
//	kit.go          the kit and its commands
//	features.go     `paddle speech features`
//	vad.go          `paddle speech vad`
//	synthcmd.go     `paddle speech synth` (the work is in synth/)
//	kws_config.go   the keyword-spotting config sections (the schema)
//	kws_model.go    DS-CNN
//	kws_data.go     list files, features, augmentation, batches
//	kws_runner.go   train / eval over core/workflow
//	kws_predict.go  predict and the sliding-window spotter
//	kws_export.go   export (model.onnx + inference.yaml) and predict --model
//	kwscmd.go       `paddle speech kws`
//	realwords.go    `paddle speech realwords` and the real-word table
//	serve.go        `paddle serve speech` (the kit's Serve hook)
//	ctcdecode.go    CTC greedy and prefix beam-search decoding
//	asr_model.go    ASR config, model, features, manifests, decoding
//	asr_train.go    ASR data sets and CER/WER evaluation
//	asr_runner.go   ASR train / eval / predict over core/workflow
//	asr_export.go   ASR export (model.onnx + inference.yaml) and predict --model
//	asr_kit.go      how the kit's asr task recognises its configs
//	asr_data.go     `paddle speech asr-data` (real Tux Paint and pocketsphinx manifests)
//	asr_cmd.go      `paddle speech asr-synth|asr`
//	cls_lists.go    audio-classification lists from the Tux Paint sounds (split by stamp)
//	cls_model.go    PANNsCNN, the audio classifier
//	cls_data.go     whole-file log-mel features (cached), windows, batches
//	cls_runner.go   classification config, Build, train / eval over core/workflow
//	cls_metric.go   top-k accuracy and macro-F1
//	cls_predict.go  predict: windows averaged, top-k
//	cls_export.go   export (model.onnx + inference.yaml) and predict --model
//	cls_cmd.go      `paddle speech cls` and `paddle speech cls-data`
//	cls_serve.go    `paddle serve speech` with a classifier
package speech

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the speech kit.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: (&kit.Kit{
			Name:          "speech",
			Short:         "Speech (PaddleSpeech): Kaldi features, voice activity detection, keyword spotting",
			PredictRecord: PredictRecord,
		}).WithTasks(
			// Arch.name PANNsCNN → the audio classifier; asr_*.yaml (model and training sections) → the recogniser; else the spotter.
			kit.Task{Name: "cls", Match: isClsConfig, Schema: clsSchema(), Build: buildCls},
			kit.Task{Name: "asr", Match: isASRConfig, Schema: ASRSchema(), Build: buildASR},
			kit.Task{Name: "kws", Schema: KWSSchema(), Build: buildKWS},
		),
		Serve: Serve, // paddle serve speech
		Commands: func(f *cmdutil.Factory, _ *kit.Kit) []*cobra.Command {
			return []*cobra.Command{
				newCmdFeatures(f, nil), newCmdVAD(f, nil), newCmdSynth(f, nil),
				newCmdKWS(f, nil), newCmdRealWords(f, nil),
				newCmdASRSynth(f), newCmdASRData(f), newCmdASR(f),
				newCmdCls(f, nil), newCmdClsData(f),
			}
		},
	}
}
