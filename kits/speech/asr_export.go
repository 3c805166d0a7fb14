package speech

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"paddle/core/ag"
	"paddle/core/audio/kaldi"
	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/graph/trace"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// The recogniser's export: `paddle speech export` traces the model in eval
// mode with the batch and time dynamic: input "x" (batch, time, n_mels)
// normalised log-mel frames, output "log_probs" (batch, time', vocabulary)
// CTC log-probabilities (time' = time halved per convolution, rounded up).
// inference.yaml says how to make x from audio and how to read log_probs:
//
//	PreProcess: {transform_ops: [{LoadAudio: {sample_rate}},
//	                             {KaldiFbank: {num_mel_bins, frame_length, ..., dither: 0}},
//	                             {UtteranceCMVN: {norm_means: true, norm_vars: true}}]}
//	PostProcess: {name: CTCDecode, character_list: ["<blank>", " ", "'", a..z],
//	              blank_id: 0, decoding_method, beam_size}

// asrLoadAudio is the export's audio step: mono, resampled to sample_rate.
type asrLoadAudio struct {
	SampleRate int `yaml:"sample_rate"`
}

// asrCMVN is the export's normalisation step (per utterance and bin).
type asrCMVN struct {
	NormMeans bool `yaml:"norm_means"`
	NormVars  bool `yaml:"norm_vars"`
}

type asrPostProcess struct {
	Name           string   `yaml:"name"`
	CharacterList  []string `yaml:"character_list"`
	BlankID        int      `yaml:"blank_id"`
	DecodingMethod string   `yaml:"decoding_method"`
	BeamSize       int      `yaml:"beam_size"`
}

func asrInferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*kwsPreProcess)(nil), (*asrPostProcess)(nil),
		asrPreOps.Options(), "name")
}

// asrPre is what an ASR export's PreProcess ops set.
type asrPre struct {
	feat  ASRFeature
	fbank *FeatureOpts
	cmvn  bool
}

// asrPreOps are the PreProcess ops of a recogniser's export.
var asrPreOps = newASRPreOps()

func newASRPreOps() *config.Registry[*asrPre, struct{}] {
	r := config.NewRegistry[*asrPre, struct{}]("transform")
	config.Add(r, "LoadAudio", asrLoadAudio{}, func(_ config.Component, l asrLoadAudio, p *asrPre) (struct{}, error) {
		p.feat.SampleRate = l.SampleRate
		return struct{}{}, nil
	})
	config.Add(r, "KaldiFbank", asrFbankOpts(ASRFeature{}), func(_ config.Component, f FeatureOpts, p *asrPre) (struct{}, error) {
		p.fbank, p.feat.NMels = &f, f.NumMelBins
		return struct{}{}, nil
	})
	config.Add(r, "UtteranceCMVN", asrCMVN{}, func(_ config.Component, c asrCMVN, p *asrPre) (struct{}, error) {
		p.cmvn = c.NormMeans && c.NormVars
		return struct{}{}, nil
	})
	return r
}

// asrFbankOpts are the fbank options asrFeatures uses, in the Feature
// section's terms (Kaldi's defaults with n_mels bins).
func asrFbankOpts(f ASRFeature) FeatureOpts {
	k := kaldi.Defaults()
	return FeatureOpts{NumMelBins: f.NMels, FrameLength: k.FrameLength, FrameShift: k.FrameShift, Dither: k.Dither,
		PreemphasisCoefficient: k.PreemphasisCoefficient, WindowType: k.WindowType, LowFreq: k.LowFreq,
		HighFreq: k.HighFreq, EnergyFloor: k.EnergyFloor}
}

// Export writes the checkpoint env.Weights as an export directory.
func (r *asrRunner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := newASRModel(r.c)
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	g, err := traceASR(model, r.c.Feature.NMels)
	if err != nil {
		return err
	}
	method := r.c.Decoding.DecodingMethod
	if method == "" {
		method = "ctc_greedy_search"
	}
	inf := &workflow.Inference{
		Global: workflow.InferenceGlobal{ModelName: "DeepSpeech2"},
		PreProcess: map[string]any{"transform_ops": []any{
			map[string]any{"LoadAudio": asrLoadAudio{SampleRate: r.c.Feature.SampleRate}},
			map[string]any{"KaldiFbank": asrFbankOpts(r.c.Feature)},
			map[string]any{"UtteranceCMVN": asrCMVN{NormMeans: true, NormVars: true}},
		}},
		PostProcess: asrPostProcess{Name: "CTCDecode", CharacterList: asrVocab, BlankID: 0,
			DecodingMethod: method, BeamSize: max(r.c.Decoding.BeamSize, 1)},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// traceASR traces the model's eval forward with dynamic batch and time.
func traceASR(model *asrModel, nMels int) (*graph.Graph, error) {
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, -1, nMels}, DimNames: []string{"batch", "time", ""}}
	example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, 37, nMels) // dynamic dims > 1: see trace's doc
	g, err := trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{"log_probs"},
		func(xs []*ag.Var) []*ag.Var {
			lp, _ := model.forward(xs[0], nil, false)
			return []*ag.Var{ag.Transpose(lp, 1, 0, 2)}
		})
	if err != nil {
		return nil, fmt.Errorf("export DeepSpeech2: %w", err)
	}
	return g, nil
}

// loadExportRecognizer reads an export directory for predict --model and
// `speech asr --model`.
func loadExportRecognizer(dir string) (*recognizer, error) {
	var post asrPostProcess
	x, err := readAudioExport(dir, asrInferenceSchema(), &post)
	if err != nil {
		return nil, err
	}
	p, file, inputs, pre := x.predictor, x.file, x.inputs, x.pre
	var ap asrPre
	for _, op := range pre.TransformOps {
		if _, err := asrPreOps.Build(op, &ap); err != nil {
			return nil, err
		}
	}
	feat, fbank, cmvn := ap.feat, ap.fbank, ap.cmvn
	if feat.SampleRate <= 0 || fbank == nil || !cmvn {
		return nil, fmt.Errorf("%s: PreProcess.transform_ops: want LoadAudio (sample_rate), KaldiFbank and UtteranceCMVN (norm_means, norm_vars)", file)
	}
	if *fbank != asrFbankOpts(feat) {
		return nil, fmt.Errorf("%s: KaldiFbank: only Kaldi's default options with num_mel_bins are supported, got %+v", file, *fbank)
	}
	if len(inputs) != 1 || len(inputs[0].Shape) != 3 || inputs[0].Shape[2] != feat.NMels {
		return nil, fmt.Errorf("%s: Inputs: want one feature input (batch, time, %d), got %v", file, feat.NMels, inputs)
	}
	if !slices.Equal(post.CharacterList, asrVocab) || post.BlankID != 0 {
		return nil, fmt.Errorf("%s: PostProcess: character_list must be blank, space, apostrophe, a-z with blank_id 0", file)
	}
	dec := ASRDecoding{DecodingMethod: post.DecodingMethod, BeamSize: post.BeamSize}
	name, out := inputs[0].Name, p.OutputNames()[0]
	return &recognizer{feat: feat, dec: dec, logProbs: func(feats [][][]float32) ([][][]float32, error) {
		res := make([][][]float32, len(feats))
		for i, f := range feats { // one at a time: no padding
			x, _, _, _ := batchTensors([][][]float32{f}, nil)
			y, err := p.Run(map[string]*tensor.Tensor{name: x})
			if err != nil {
				return nil, err
			}
			lp := y[out].Contiguous()
			sh := lp.Shape() // (1, T', V)
			if len(sh) != 3 || sh[2] != len(asrVocab) {
				return nil, fmt.Errorf("%s: output %s has shape %v, want (1, T', %d)", dir, out, sh, len(asrVocab))
			}
			data := lp.F32()
			res[i] = make([][]float32, sh[1])
			for t := range res[i] {
				res[i][t] = data[t*sh[2] : (t+1)*sh[2]]
			}
		}
		return res, nil
	}}, nil
}
