package speech

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/ag"
	"paddle/core/audio"
	"paddle/core/audio/feature"
	"paddle/core/audio/kaldi"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// ASRConfig is configs/speech/asr_*.yaml, in PaddleSpeech's DeepSpeech2
// layout (data / feature / model / training / decoding).
type ASRConfig struct {
	Data     ASRData     `yaml:"data"`
	Feature  ASRFeature  `yaml:"feature"`
	Model    ASRModel    `yaml:"model"`
	Training ASRTraining `yaml:"training"`
	Decoding ASRDecoding `yaml:"decoding"`
	file     string
}

// ASRData is the data section: manifests of "<wav><TAB><text>" lines
// (paths relative to the list's folder).
type ASRData struct {
	TrainManifest string `yaml:"train_manifest"`
	DevManifest   string `yaml:"dev_manifest"`
}

// ASRFeature is the feature section: Kaldi log-mel fbank (dither 0, the
// other options Kaldi's defaults) with utterance mean/variance normalisation.
type ASRFeature struct {
	SampleRate int `yaml:"sample_rate"`
	NMels      int `yaml:"n_mels"`
}

// ASRModel is the model section.
type ASRModel struct {
	NumConvLayers int  `yaml:"num_conv_layers"` // each halves the frame rate
	ConvChannels  int  `yaml:"conv_channels"`
	NumRNNLayers  int  `yaml:"num_rnn_layers"`
	RNNLayerSize  int  `yaml:"rnn_layer_size"` // per direction
	UseGRU        bool `yaml:"use_gru"`        // else LSTM
}

// ASRTraining is the training section.
type ASRTraining struct {
	NEpoch       int    `yaml:"n_epoch"`
	BatchSize    int    `yaml:"batch_size" check:"min=1"`
	Seed         uint64 `yaml:"seed"`
	OutputDir    string `yaml:"output_dir"`
	MaxClips     int    `yaml:"max_clips"`                 // 0: every clip of the train manifest
	MaxSteps     int    `yaml:"max_steps"`                 // stop early (0: no limit)
	LogInterval  int    `yaml:"log_interval"`              // log every N steps (0: 50)
	EvalInterval int    `yaml:"eval_interval"`             // evaluate every N epochs (0: 1)
	NumWorkers   int    `yaml:"num_workers" check:"min=0"` // feature extraction workers (0: 2)
	// InitFrom starts training from the weights of this checkpoint
	// directory (same model section), e.g. a model trained on synthetic
	// speech fine-tuned with real speech. Empty: random initialisation.
	InitFrom string `yaml:"init_from"`
	// SpecAugment masks training features (PaddleSpeech's names); nil: none.
	SpecAugment *ASRSpecAugment `yaml:"spec_augment"`
	Optim       optim.Config    `yaml:"optim"`
}

// ASRSpecAugment are SpecAugment's masks (at most 20 % of the frames per time mask).
type ASRSpecAugment struct {
	FreqMasks int `yaml:"n_freq_masks"`
	F         int `yaml:"F"`
	TimeMasks int `yaml:"n_time_masks"`
	T         int `yaml:"T"`
}

// ASRDecoding is the decoding section.
type ASRDecoding struct {
	DecodingMethod string `yaml:"decoding_method"` // ctc_greedy_search | ctc_prefix_beam_search
	BeamSize       int    `yaml:"beam_size"`
}

// ASRSchema is the recogniser's config schema.
func ASRSchema() *config.Schema {
	return &config.Schema{Sections: map[string]any{
		"data": (*ASRData)(nil), "feature": (*ASRFeature)(nil), "model": (*ASRModel)(nil),
		"training": (*ASRTraining)(nil), "decoding": (*ASRDecoding)(nil),
	}}
}

// decodeASRConfig decodes and checks a loaded ASR config.
func decodeASRConfig(cfg *config.Config) (*ASRConfig, error) {
	if err := cfg.Validate(ASRSchema()); err != nil {
		return nil, err
	}
	c := &ASRConfig{file: cfg.File}
	for _, sec := range []struct {
		key string
		v   any
	}{{"data", &c.Data}, {"feature", &c.Feature}, {"model", &c.Model}, {"training", &c.Training}, {"decoding", &c.Decoding}} {
		if err := cfg.Decode(sec.key, sec.v); err != nil {
			return nil, err
		}
	}
	m := c.Model
	if c.Feature.SampleRate <= 0 || c.Feature.NMels <= 0 || m.ConvChannels <= 0 || m.RNNLayerSize <= 0 || m.NumRNNLayers <= 0 || m.NumConvLayers < 0 {
		return nil, fmt.Errorf("%s: feature.sample_rate, feature.n_mels, model.conv_channels, model.rnn_layer_size and model.num_rnn_layers must be positive", cfg.File)
	}
	if _, ok := decodingMethods.Get(c.Decoding.DecodingMethod); c.Decoding.DecodingMethod != "" && !ok {
		return nil, fmt.Errorf("%s: decoding.decoding_method %q (known: %s)", cfg.File, c.Decoding.DecodingMethod, decodingMethods.Known())
	}
	return c, nil
}

// decodingMethods are the decoding.decoding_method values ("" is greedy).
var decodingMethods = config.NameSet("ctc_greedy_search", "ctc_prefix_beam_search")

// loadASRConfig reads and checks an ASR config file.
func loadASRConfig(path string, overrides ...string) (*ASRConfig, error) {
	cfg, err := config.Load(path, overrides...)
	if err != nil {
		return nil, err
	}
	return decodeASRConfig(cfg)
}

// asrVocab is the output alphabet: CTC blank, space, apostrophe, a–z.
var asrVocab = append([]string{"<blank>", " ", "'"}, strings.Split("abcdefghijklmnopqrstuvwxyz", "")...)

// encodeText maps normalised text to class ids (unknown characters dropped).
func encodeText(s string) []int64 {
	var out []int64
	for _, r := range s {
		switch {
		case r == ' ':
			out = append(out, 1)
		case r == '\'':
			out = append(out, 2)
		case r >= 'a' && r <= 'z':
			out = append(out, int64(r-'a'+3))
		}
	}
	return out
}

func decodeIDs(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id > 0 && id < len(asrVocab) {
			b.WriteString(asrVocab[id])
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// asrModel is DeepSpeech2 in small: 1-D convolutions over time (stride 2,
// kernel 5, ReLU), a bidirectional GRU or LSTM and a linear layer to the
// characters, log-softmax for CTC.
type asrModel struct {
	convs []*nn.Conv1D
	gru   *nn.GRU
	lstm  *nn.LSTM
	fc    *nn.Linear
}

func newASRModel(c *ASRConfig) (*asrModel, error) {
	r := rand.New(rand.NewPCG(c.Training.Seed, 0xa5))
	m := &asrModel{}
	in := c.Feature.NMels
	for range c.Model.NumConvLayers {
		conv, err := nn.NewConv1D(nn.ConvOptions{InChannels: in, OutChannels: c.Model.ConvChannels, KernelSize: []int{5}, Stride: []int{2}, Padding: []int{2}}, r)
		if err != nil {
			return nil, err
		}
		m.convs = append(m.convs, conv)
		in = c.Model.ConvChannels
	}
	o := nn.RNNOptions{InputSize: in, HiddenSize: c.Model.RNNLayerSize, NumLayers: c.Model.NumRNNLayers, Bidirectional: true, BatchFirst: true}
	var err error
	if c.Model.UseGRU {
		m.gru, err = nn.NewGRU(o, r)
	} else {
		m.lstm, err = nn.NewLSTM(o, r)
	}
	if err != nil {
		return nil, err
	}
	m.fc, err = nn.NewLinear(nn.LinearOptions{In: 2 * c.Model.RNNLayerSize, Out: len(asrVocab)}, r)
	return m, err
}

// Params lists the convolutions, the recurrent layer and the output layer.
func (m *asrModel) Params() []nn.Param {
	var parts []any
	for i, c := range m.convs {
		parts = append(parts, fmt.Sprintf("conv%d", i), c)
	}
	if m.gru != nil {
		parts = append(parts, "rnn", m.gru)
	} else {
		parts = append(parts, "rnn", m.lstm)
	}
	parts = append(parts, "fc", m.fc)
	return nn.Collect(parts[0].(string), parts[1], parts[2:]...)
}

// outLen is the number of output frames for n input frames.
func (m *asrModel) outLen(n int) int {
	for range m.convs {
		n = (n-1)/2 + 1
	}
	return n
}

// forward maps features x (N, T, F) with per-item frame counts to CTC
// log-probabilities (T', N, V) and the output lengths (nil lengths: all
// items are T frames long, and the output lengths are nil).
func (m *asrModel) forward(x *ag.Var, lengths []int, training bool) (*ag.Var, []int) {
	h := ag.Transpose(x, 0, 2, 1) // (N, F, T)
	for _, c := range m.convs {
		h = ag.Relu(c.Forward(h, training)) // (N, C, T/2)
	}
	h = ag.Transpose(h, 0, 2, 1) // (N, T', C)
	var out []int                // nil lengths: every item is full length (export)
	for _, l := range lengths {
		out = append(out, max(m.outLen(l), 1))
	}
	var y *ag.Var
	var err error
	if m.gru != nil {
		y, _, err = m.gru.Run(h, nil, out, training)
	} else {
		y, _, _, err = m.lstm.Run(h, nil, nil, out, training)
	}
	if err != nil {
		panic(err) // shapes are built here: a bug
	}
	logits := m.fc.Forward(y, training) // (N, T', V)
	return ag.Transpose(ag.LogSoftmax(logits, -1), 1, 0, 2), out
}

// asrFeatures are utterance-normalised Kaldi log-mel fbank frames (T × F)
// of samples at the feature section's rate.
func asrFeatures(x []float32, c ASRFeature) ([][]float32, error) {
	xs := make([]float64, len(x))
	for i, v := range x {
		xs[i] = float64(v) * audio.KaldiScale
	}
	o := kaldi.Defaults()
	o.SampleFrequency = float64(c.SampleRate)
	o.NumMelBins = c.NMels
	fb, err := kaldi.Fbank(xs, o)
	if err != nil {
		return nil, err
	}
	if len(fb) == 0 {
		return nil, fmt.Errorf("audio of %d samples is shorter than one frame", len(x))
	}
	if err := feature.UtteranceCMVN(fb, true); err != nil {
		return nil, err
	}
	out := make([][]float32, len(fb))
	for t, row := range fb {
		out[t] = make([]float32, len(row))
		for j, v := range row {
			out[t][j] = float32(v)
		}
	}
	return out, nil
}

// loadMono reads a WAV or raw file as mono at rate.
func loadMono(path string, rate int, raw *audio.RawFormat) ([]float32, error) {
	a, err := audio.Read(path, raw)
	if err != nil {
		return nil, err
	}
	if a.Rate != rate {
		if a, err = a.Resample(rate); err != nil {
			return nil, err
		}
	}
	return a.Mono(), nil
}

// asrItem is one utterance of a manifest.
type asrItem struct {
	Path, Text string
}

// readManifest reads "<wav><TAB><text>" lines; relative paths are taken
// from the manifest's folder.
func readManifest(path string) ([]asrItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []asrItem
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		p, text, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want <wav><TAB><text>", path, n)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		out = append(out, asrItem{Path: p, Text: text})
	}
	return out, sc.Err()
}

// batchTensors pads features (N, Tmax, F) and targets (N, Smax).
func batchTensors(feats [][][]float32, texts [][]int64) (x *tensor.Tensor, lengths []int, tg, tl *tensor.Tensor) {
	n, fdim, tmax, smax := len(feats), len(feats[0][0]), 0, 1
	for i := range feats {
		tmax = max(tmax, len(feats[i]))
		if texts != nil {
			smax = max(smax, len(texts[i]))
		}
	}
	x = tensor.New(tensor.Float32, n, tmax, fdim)
	xv := x.F32()
	lengths = make([]int, n)
	for i, f := range feats {
		lengths[i] = len(f)
		for t, row := range f {
			copy(xv[(i*tmax+t)*fdim:], row)
		}
	}
	if texts == nil {
		return x, lengths, nil, nil
	}
	tg = tensor.New(tensor.Int64, n, smax)
	tl = tensor.New(tensor.Int64, n)
	gv, lv := tg.I64(), tl.I64()
	for i, s := range texts {
		copy(gv[i*smax:], s)
		lv[i] = int64(len(s))
	}
	return x, lengths, tg, tl
}

// recognizer decodes utterances: logProbs gives each utterance's CTC
// log-probabilities (T' rows of len(asrVocab)), from a checkpoint's model
// or an export's predictor.
type recognizer struct {
	feat     ASRFeature
	dec      ASRDecoding
	logProbs func(feats [][][]float32) ([][][]float32, error)
}

// modelLogProbs runs the Go model on a padded batch.
func modelLogProbs(m *asrModel) func(feats [][][]float32) ([][][]float32, error) {
	return func(feats [][][]float32) ([][][]float32, error) {
		x, lengths, _, _ := batchTensors(feats, nil)
		var lp *tensor.Tensor
		var outLens []int
		ag.NoGrad(func() {
			v, ol := m.forward(ag.Const(x), lengths, false)
			lp, outLens = v.T.Contiguous(), ol
		})
		sh := lp.Shape() // (T', N, V)
		n, v := sh[1], sh[2]
		data := lp.F32()
		out := make([][][]float32, n)
		for i := range n {
			out[i] = make([][]float32, outLens[i])
			for t := range out[i] {
				out[i][t] = data[(t*n+i)*v : (t*n+i+1)*v]
			}
		}
		return out, nil
	}
}

// decode returns the texts of a batch of feature matrices.
func (r *recognizer) decode(feats [][][]float32) ([]string, error) {
	lps, err := r.logProbs(feats)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(lps))
	for i, rows := range lps {
		var ids []int
		if r.dec.DecodingMethod == "ctc_prefix_beam_search" {
			ids, _ = ctcPrefixBeam(rows, 0, max(r.dec.BeamSize, 1), -12)
		} else {
			ids = ctcGreedy(rows, 0)
		}
		out[i] = decodeIDs(ids)
	}
	return out, nil
}
