package zoo

import (
	"fmt"
	"math/bits"
	"strings"

	"paddle/core/ag"
	"paddle/core/graph"
	"paddle/core/graph/module"
	"paddle/core/graph/pass"
	"paddle/core/hub"
	"paddle/core/nn"
	"paddle/core/onnx"
	"paddle/core/op"
	"paddle/core/tensor"
)

// ImportedBackbone is the backbone of an imported ONNX model, bound to
// autograd (core/graph/module) so it trains: PP-OCRv4's text detector
// (ch_PP-OCRv4_det_infer.onnx, a PP-LCNetV3 pretrained on ImageNet, then on
// photos of scenes and documents) gives a natural-image backbone to the det
// and seg kits.
//
// The model must be a chain backbone followed by a neck, as PaddleOCR's
// exported detectors are: from the input, every node reads the output of
// the node just before it (squeeze-excitation and hardswish branches
// rejoin at once), and the neck starts at the first node that reads an
// earlier value (DBFPN's first lateral conv reading the stride-4 map). The
// stage outputs are the last backbone values at each stride 2, 4, 8, 16, 32
// (measured by inferring shapes for a 256×256 input); everything after is cut.
//
// Stages are numbered as PaddleClas names PP-LCNet's blocks, which is what
// lr_mult_list indexes: 0 is the stem (the nodes before the second
// convolution), 1..5 are blocks2..blocks6 whose outputs have strides 2, 4,
// 8, 16 and 32. Stages returns the outputs of stages 1..5, Features those
// of the stages feature_maps selects ([3, 4, 5]: strides 8, 16 and 32).
//
// Only the graph's Param constants (conv weights and biases, batch-norm
// scale and shift) train; PP-LCNetV3's learnable affine blocks
// (mobile_one_block.*, whswish_b.*) were exported as plain constants and
// stay fixed.
type ImportedBackbone struct {
	File     string // the resolved model file
	mod      *module.Module
	input    string         // the graph's input name
	outputs  []string       // graph output names of stages 1..5
	channels []int          // their channels
	stage    map[string]int // parameter and buffer name → stage 0..5
	maps     []int          // the stages Features returns (1..5)
	stemW    string         // the weight of the first convolution, which reads the image
	train    StageTraining
	// FreezeNorm keeps batch norm in inference mode while training (running
	// statistics, not updated).
	FreezeNorm bool
}

// ImportedOptions configure an ImportedBackbone from a config section (the
// det kit's PPLCNetV3, the seg kit's model.backbone of type PPLCNetV3).
type ImportedOptions struct {
	ModelFile   string `yaml:"model_file"`   // default DefaultImportedModel
	FeatureMaps []int  `yaml:"feature_maps"` // stages 1..5 (strides 2..32) the neck takes; default [3, 4, 5]
	FreezeNorm  bool   `yaml:"freeze_norm"`  // batch norm in inference mode while training
	// ModelChannels is the channel order the imported model was trained on:
	// BGR (default; PaddleOCR's readers decode with OpenCV) or RGB. The kits
	// feed RGB, so for BGR the stem's input channels are reversed at import.
	ModelChannels string `yaml:"model_channels"`
	StageTraining `yaml:",inline"`
}

// DefaultImportedModel is the model file ImportedOptions import by default:
// PP-OCRv4's text detector (PP-LCNetV3 ×0.75).
const DefaultImportedModel = "ppocrv4:ch_PP-OCRv4_det_infer.onnx"

// NewImported imports the backbone o describes; key names the config
// section in errors.
func NewImported(o ImportedOptions, key string) (*ImportedBackbone, error) {
	if err := o.Check(key); err != nil {
		return nil, err
	}
	if o.ModelFile == "" {
		o.ModelFile = DefaultImportedModel
	}
	if len(o.FeatureMaps) == 0 {
		o.FeatureMaps = []int{3, 4, 5}
	}
	for _, s := range o.FeatureMaps {
		if s < 1 || s > 5 {
			return nil, fmt.Errorf("%s.feature_maps: stage %d does not exist (1..5, strides 2..32)", key, s)
		}
	}
	b, err := ImportBackbone(o.ModelFile)
	if err != nil {
		return nil, fmt.Errorf("%s.model_file: %w", key, err)
	}
	switch strings.ToUpper(o.ModelChannels) {
	case "", "BGR":
		if err := b.reverseInputChannels(); err != nil {
			return nil, fmt.Errorf("%s.model_file: %w", key, err)
		}
	case "RGB":
	default:
		return nil, fmt.Errorf("%s.model_channels: want BGR or RGB, got %q", key, o.ModelChannels)
	}
	b.maps, b.train, b.FreezeNorm = append([]int(nil), o.FeatureMaps...), o.StageTraining, o.FreezeNorm
	return b, nil
}

// importProbe is the input side used to measure strides.
const importProbe = 256

// ImportBackbone reads the model file path (an .onnx file, or
// "<store model>:<file>" such as ppocrv4:ch_PP-OCRv4_det_infer.onnx) and
// cuts its backbone.
func ImportBackbone(path string) (*ImportedBackbone, error) {
	file, err := hub.ResolveFile(path)
	if err != nil {
		return nil, err
	}
	g, err := onnx.ReadFile(file)
	if err != nil {
		return nil, err
	}
	b, err := cutBackbone(g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	b.File = file
	return b, nil
}

// cutBackbone makes g's outputs the stage outputs of its chain backbone,
// drops the rest and binds it to autograd.
func cutBackbone(g *graph.Graph) (*ImportedBackbone, error) {
	if len(g.Inputs) != 1 {
		return nil, fmt.Errorf("backbone: want one image input, the graph has %d", len(g.Inputs))
	}
	if err := g.Sort(); err != nil {
		return nil, err
	}
	in := g.Inputs[0]
	if s := in.Meta.Shape; len(s) != 4 || (s[1] >= 0 && s[1] != 3) {
		return nil, fmt.Errorf("backbone: input %q has shape %v, want (N, 3, H, W)", in.Name, s)
	}
	shapes, err := graph.Infer(g, map[string]op.Meta{in.Name: {DType: in.Meta.DType, Shape: []int{1, 3, importProbe, importProbe}}})
	if err != nil {
		return nil, fmt.Errorf("backbone: shapes for a %d×%d input: %w", importProbe, importProbe, err)
	}
	// stageOf maps a value to 1..5 from its stride, or 0 when it is no stage map.
	stageOf := func(v *graph.Value) int {
		s := shapes.Meta[v].Shape
		if len(s) != 4 || s[2] <= 0 || importProbe%s[2] != 0 {
			return 0
		}
		stride := importProbe / s[2]
		if stride < 2 || stride > 32 || stride&(stride-1) != 0 || s[3]*stride != importProbe {
			return 0
		}
		return bits.TrailingZeros(uint(stride))
	}
	last := make([]*graph.Value, 6) // last value of each stage 1..5
	stage := map[string]int{}
	prev, cur, convs, stemW := in, 0, 0, ""
	for _, n := range g.Nodes {
		chained := false
		for _, v := range n.In {
			chained = chained || v == prev
		}
		if !chained || len(n.Out) != 1 {
			break // the neck starts here
		}
		if n.Op.Name == "conv2d" {
			if convs++; convs == 1 && len(n.In) > 1 && n.In[0] == in {
				stemW = n.In[1].Name
			}
		}
		if s := stageOf(n.Out[0]); s > 0 && convs > 1 {
			cur = s
			last[s] = n.Out[0]
		}
		for _, v := range n.In {
			if v.Const != nil {
				stage[v.Name] = cur
			}
		}
		prev = n.Out[0]
	}
	b := &ImportedBackbone{stage: stage, input: in.Name, maps: []int{3, 4, 5}, stemW: stemW}
	g.Outputs, g.OutputNames = nil, nil
	for s := 1; s <= 5; s++ {
		if last[s] == nil {
			return nil, fmt.Errorf("backbone: no map of stride %d before the neck (the graph is not a chain backbone with strides 2..32)", 1<<s)
		}
		g.Outputs = append(g.Outputs, last[s])
		b.outputs = append(b.outputs, last[s].Name)
		b.channels = append(b.channels, shapes.Meta[last[s]].Shape[1])
	}
	if err := pass.DCE(g); err != nil {
		return nil, err
	}
	if b.mod, err = module.New(g); err != nil {
		return nil, err
	}
	return b, nil
}

// reverseInputChannels reverses the image channels the stem convolution
// reads (BGR ↔ RGB).
func (b *ImportedBackbone) reverseInputChannels() error {
	for _, p := range b.mod.Params() {
		if p.Name != b.stemW {
			continue
		}
		w := p.V.T
		s := w.Shape()
		if w.DType() != tensor.Float32 || len(s) != 4 || s[1] != 3 || !w.IsContiguous() {
			return fmt.Errorf("stem convolution %s: want float32 (O, 3, kh, kw), got %v %v", p.Name, w.DType(), s)
		}
		d, k := w.F32(), s[2]*s[3]
		for o := range s[0] {
			for j := range k {
				i := o * 3 * k
				d[i+j], d[i+2*k+j] = d[i+2*k+j], d[i+j]
			}
		}
		return nil
	}
	return fmt.Errorf("no stem convolution reading the image")
}

// StageChannels returns the channels of the stage 1..5 maps.
func (b *ImportedBackbone) StageChannels() []int { return append([]int(nil), b.channels...) }

// Channels returns the channels of the maps Features returns.
func (b *ImportedBackbone) Channels() []int {
	out := make([]int, len(b.maps))
	for i, s := range b.maps {
		out[i] = b.channels[s-1]
	}
	return out
}

// LRMult is the learning-rate multiplier of the parameter named name
// (lr_mult_list and freeze_at of its stage; 1 for a name not in Params).
func (b *ImportedBackbone) LRMult(name string) float64 { return b.train.Mult(b.Stage(name)) }

// Stage returns the stage (0 stem, 1..5 blocks2..blocks6) of a parameter
// or buffer, by its name in Params or Buffers; -1 when unknown.
func (b *ImportedBackbone) Stage(name string) int {
	if s, ok := b.stage[name]; ok {
		return s
	}
	return -1
}

// Params are the trainable weights, by their names in the ONNX file.
func (b *ImportedBackbone) Params() []nn.Param { return b.mod.Params() }

// Buffers are the batch-norm running statistics.
func (b *ImportedBackbone) Buffers() []nn.Param { return b.mod.Buffers() }

// Features maps images (N, 3, H, W) to the maps of the selected stages
// (feature_maps), fine to coarse.
func (b *ImportedBackbone) Features(x *ag.Var, training bool) []*ag.Var {
	all := b.Stages(x, training)
	out := make([]*ag.Var, len(b.maps))
	for i, s := range b.maps {
		out[i] = all[s-1]
	}
	return out
}

// Stages maps images (N, 3, H, W) to the stage 1..5 maps, strides 2..32.
// It panics with the graph's error on a bad input (a programmer error).
func (b *ImportedBackbone) Stages(x *ag.Var, training bool) []*ag.Var {
	out, err := b.mod.Run(map[string]*ag.Var{b.input: x}, training && !b.FreezeNorm)
	if err != nil {
		panic(err)
	}
	feats := make([]*ag.Var, len(b.outputs))
	for i, name := range b.outputs {
		feats[i] = out[name]
	}
	return feats
}
