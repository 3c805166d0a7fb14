package speech

import (
	"paddle/core/audio/feature"
	"paddle/core/audio/kaldi"
	"paddle/core/config"
	"paddle/core/optim"
	"paddle/core/workflow"
)

// The keyword-spotting config: PaddleClas's layout (Global / Arch / Loss /
// Optimizer / DataLoader / Metric), since PaddleSpeech's KWS recipes are a
// classifier over clips, plus a Feature section with Kaldi's fbank options
// (torchaudio.compliance.kaldi's names) that export copies into
// inference.yaml.

// KWSGlobal is the Global section.
type KWSGlobal struct {
	Epochs         int     `yaml:"epochs" check:"min=1"`
	Seed           uint64  `yaml:"seed"`
	OutputDir      string  `yaml:"output_dir"`
	EvalInterval   int     `yaml:"eval_interval"`    // epochs
	SaveInterval   int     `yaml:"save_interval"`    // epochs
	PrintBatchStep int     `yaml:"print_batch_step"` // log every N steps
	MaxSteps       int     `yaml:"max_steps"`        // stop early (tests, smoke runs)
	SampleRate     int     `yaml:"sample_rate"`      // clips are resampled to this (16000)
	ClipSeconds    float64 `yaml:"clip_seconds"`     // the model's window (1.0)
	LabelFile      string  `yaml:"label_file"`       // one class per line (synth's labels.txt)
	// PretrainedModel starts training from this checkpoint's weights
	// (PaddleClas's key; the same Arch and classes). Empty: random init.
	PretrainedModel string `yaml:"pretrained_model"`
	// AverageWith (keyword spotter) lists checkpoints whose weights are
	// averaged with --weights' for eval, predict, kws and export
	// (kws_average.go). Empty: --weights alone.
	AverageWith []string `yaml:"average_with"`
	// Ensemble (keyword spotter, eval) lists checkpoints whose class
	// probabilities are averaged with --weights' (kws_group.go). Empty:
	// --weights alone.
	Ensemble []string `yaml:"ensemble"`
	// SaveProbs (keyword spotter, eval) writes every eval clip's class
	// probabilities under each test warp (averaged over the ensemble) to
	// this file, one JSON line per clip in list order (kws_group.go), for
	// offline analysis such as choosing ensemble members. Empty: off.
	SaveProbs string `yaml:"save_probs"`
	Device    string `yaml:"device"` // accepted; --device decides
}

// schedule is the training loop's epochs and its log, eval and save intervals.
func (g KWSGlobal) schedule() workflow.Schedule {
	return workflow.Schedule{
		Epochs: g.Epochs, MaxSteps: g.MaxSteps, LogEvery: g.PrintBatchStep,
		EvalEvery: g.EvalInterval, SaveEvery: g.SaveInterval,
	}
}

// FeatureOpts is the Feature section: Kaldi fbank plus normalisation.
type FeatureOpts struct {
	NumMelBins             int     `yaml:"num_mel_bins"`
	FrameLength            float64 `yaml:"frame_length"`
	FrameShift             float64 `yaml:"frame_shift"`
	Dither                 float64 `yaml:"dither"`
	PreemphasisCoefficient float64 `yaml:"preemphasis_coefficient"`
	WindowType             string  `yaml:"window_type"`
	LowFreq                float64 `yaml:"low_freq"`
	HighFreq               float64 `yaml:"high_freq"`
	EnergyFloor            float64 `yaml:"energy_floor"`
	// CMN subtracts each clip's per-bin mean over time (Kaldi's
	// subtract_mean), which removes a recording channel's fixed colouring.
	CMN bool `yaml:"cmn"`
	// CepstralSmoothing keeps only the first N orthonormal DCT coefficients
	// of each log-mel frame (0: off): the spectral envelope an N-cepstrum
	// MFCC front end keeps, so Sphinx .mfc files can be evaluated (kws_mfc.go).
	CepstralSmoothing int `yaml:"cepstral_smoothing"`
}

// kaldi returns the fbank options at rate.
func (f FeatureOpts) kaldi(rate int) kaldi.Options {
	o := kaldi.Defaults()
	o.SampleFrequency = float64(rate)
	o.NumMelBins = f.NumMelBins
	o.FrameLength, o.FrameShift = f.FrameLength, f.FrameShift
	o.Dither = f.Dither
	o.PreemphasisCoefficient = f.PreemphasisCoefficient
	o.WindowType = f.WindowType
	o.LowFreq, o.HighFreq = f.LowFreq, f.HighFreq
	o.EnergyFloor = f.EnergyFloor
	o.SubtractMean = f.CMN
	return o
}

// defaultFeature is Feature's defaults: 40 bins of 25 ms every 10 ms,
// dither 1 (Kaldi's own default; it keeps digital silence off log(ε)), CMN.
func defaultFeature() FeatureOpts {
	k := kaldi.Defaults()
	return FeatureOpts{NumMelBins: 40, FrameLength: k.FrameLength, FrameShift: k.FrameShift, Dither: 1,
		PreemphasisCoefficient: k.PreemphasisCoefficient, WindowType: k.WindowType, LowFreq: k.LowFreq,
		HighFreq: k.HighFreq, EnergyFloor: k.EnergyFloor, CMN: true}
}

// KWSLossOpts is the Loss section: cross-entropy with label smoothing.
type KWSLossOpts struct {
	Name    string  `yaml:"name"` // CELoss
	Epsilon float64 `yaml:"epsilon"`
}

// KWSDataLoader is the DataLoader section.
type KWSDataLoader struct {
	Train *KWSSplit `yaml:"Train"`
	Eval  *KWSSplit `yaml:"Eval"`
}

// KWSSplit configures one split.
type KWSSplit struct {
	Dataset config.Component `yaml:"dataset"`
	Sampler SamplerOpts      `yaml:"sampler"`
	Loader  LoaderOpts       `yaml:"loader"`
}

// SamplerOpts are PaddleClas sampler keys.
type SamplerOpts struct {
	BatchSize int  `yaml:"batch_size" check:"min=1"`
	Shuffle   bool `yaml:"shuffle"`
	DropLast  bool `yaml:"drop_last"`
}

// LoaderOpts are PaddleClas loader keys.
type LoaderOpts struct {
	NumWorkers int `yaml:"num_workers" check:"min=0"`
}

// KWSListOpts read a list file of `<wav><TAB or space><class>` lines
// (what `paddle speech synth` writes), with training-time augmentation.
type KWSListOpts struct {
	DataDir  string `yaml:"data_dir"`  // list paths are relative to it (default: the list's folder)
	ListFile string `yaml:"list_file"` // the list
	Limit    int    `yaml:"limit"`     // use an evenly spread subset of this many (0: all)
	// TimeShiftMs moves each clip by up to this much either way (training).
	TimeShiftMs float64          `yaml:"time_shift_ms"`
	SpecAugment *SpecAugmentOpts `yaml:"spec_augment"`
	// FreqWarp stretches each training clip's log-mel frames along the mel
	// axis by a factor drawn from [1-w, 1+w] (linear interpolation between
	// bins), a cheap stand-in for vocal-tract-length differences between
	// speakers (VTLP, Jaitly & Hinton 2013). 0: off.
	FreqWarp float64 `yaml:"freq_warp"`
	// Noise mixes a stretch of a real recording into training clips.
	Noise *KWSNoiseOpts `yaml:"noise"`
	// TestWarps scores each evaluation clip under each of these mel-axis
	// stretches (1: none) and TestCombine merges the answers without
	// labels: "mean" (default) averages the class probabilities, "max"
	// keeps the warp whose top class is most probable (a VTLN-like
	// speaker normalisation per clip), "group" keeps one warp per group
	// of clips from TestGroups (per-speaker VTLN, kws_group.go). Empty
	// test_warps: off.
	TestWarps   []float64 `yaml:"test_warps"`
	TestCombine string    `yaml:"test_combine"`
	// TestGroups is a file of `<path> <group>` lines (the path as the list
	// writes it) giving each eval clip's speaker for test_combine: group.
	TestGroups string `yaml:"test_groups"`
}

// KWSNoiseOpts mix background recordings into training clips: with
// probability prob, a random stretch of a random file is added at an SNR
// drawn uniformly from snr_db (signal power: the clip's mean power).
type KWSNoiseOpts struct {
	Dir      string     `yaml:"dir"`       // walked for audio files (WAV, Ogg Vorbis); a leading ~/ is the home folder
	Exclude  string     `yaml:"exclude"`   // skip paths containing this (e.g. "_desc": Tux Paint's spoken descriptions)
	MaxFiles int        `yaml:"max_files"` // an evenly spread subset of this many (0: all)
	Prob     float64    `yaml:"prob" check:"prob"`
	SNRdB    [2]float64 `yaml:"snr_db"`
}

// SpecAugmentOpts are SpecAugment's masks with PaddleSpeech's key names
// (core/audio/feature.SpecAugment; time warping is not implemented).
type SpecAugmentOpts struct {
	NFreqMasks int     `yaml:"n_freq_masks"`
	F          int     `yaml:"F"`
	NTimeMasks int     `yaml:"n_time_masks"`
	T          int     `yaml:"T"`
	P          float64 `yaml:"p"`
}

func (s SpecAugmentOpts) options() feature.SpecAugmentOptions {
	return feature.SpecAugmentOptions{FreqMasks: s.NFreqMasks, MaxFreq: s.F, TimeMasks: s.NTimeMasks, MaxTime: s.T, MaxTimeRatio: s.P}
}

// KWSMetricOpts is the Metric section (accepted; accuracy is always reported).
type KWSMetricOpts struct {
	Eval []config.Component `yaml:"Eval"`
}

// KWSTopkAccOpts configure TopkAcc.
type KWSTopkAccOpts struct {
	Topk []int `yaml:"topk"`
}

// KWSSchema is the keyword-spotting config schema.
func KWSSchema() *config.Schema {
	s := &config.Schema{
		Sections: map[string]any{
			"Global":     (*KWSGlobal)(nil),
			"Feature":    (*FeatureOpts)(nil),
			"Arch":       (*config.Component)(nil),
			"Loss":       (*KWSLossOpts)(nil),
			"Optimizer":  (*optim.Config)(nil),
			"DataLoader": (*KWSDataLoader)(nil),
			"Metric":     (*KWSMetricOpts)(nil),
			"Infer":      (*KWSInferOpts)(nil),
		},
		Components: map[string]map[string]any{
			"Metric.*.*": {"TopkAcc": (*KWSTopkAccOpts)(nil)},
		},
		Selector: "name",
	}
	config.Attach(s, "Arch", archs)
	config.Attach(s, "DataLoader.*.dataset", kwsDatasets)
	return s
}
