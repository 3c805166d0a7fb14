package rectrain

import (
	"fmt"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/graph"
	"paddle/core/graph/module"
	"paddle/core/hub"
	"paddle/core/nn"
	"paddle/core/onnx"
)

// Fine-tuning an imported recogniser. Backbone `ONNXModel` is a whole
// recognition network read from an ONNX file, such as PP-OCRv4's rec model
// (SVTR_LCNet; input (N, 3, 48, W), output the softmax (N, T, K)): its
// weights become trainable (core/graph/module), the final softmax is cut off
// so CTC trains on the logits, and Neck and Head stay empty. An export writes
// the same graph with the trained weights.

// ONNXModelOpts configure the ONNXModel backbone.
type ONNXModelOpts struct {
	// ModelFile is an .onnx path, or "<store model>:<file>" for a file of a
	// model-store entry (`paddle model pull`), e.g. ppocrv4:ch_PP-OCRv4_rec_infer.onnx.
	ModelFile string `yaml:"model_file"`
	// FreezeBN keeps batch norm in inference mode while training (running
	// statistics, not updated): better with small fine-tuning batches.
	FreezeBN bool `yaml:"freeze_bn"`
	// PaddleParams trains every tensor PaddleOCR trains: paddle2onnx writes
	// some of them as graph constants (PP-LCNetV3's learnable affine scales
	// and shifts, LayerNorm weights, Linear biases), which stay fixed
	// otherwise. A .pdparams (--weights, pretrain_weights) needs it, so its
	// values for them are loaded and kept in checkpoints; it changes the
	// checkpoint's tensors, so a checkpoint trained without it does not load.
	PaddleParams bool `yaml:"paddle_params"`
}

// ResolveStorePath maps "<store model>:<file>" to the file in the model store,
// pulling the model on first use; other paths are returned unchanged.
func ResolveStorePath(p string) (string, error) { return hub.ResolveFile(p) }

// importedRec is a recognition network imported from ONNX and bound to autograd.
type importedRec struct {
	spec     string // model_file as configured
	file     string
	g        *graph.Graph // the imported graph, its output the logits
	mod      *module.Module
	freezeBN bool
	pdNames  map[string]string // PaddleName's table, built on first use
}

// newImportedRec imports the model file and cuts its final softmax.
func newImportedRec(o ONNXModelOpts) (*importedRec, error) {
	if o.ModelFile == "" {
		return nil, fmt.Errorf("ONNXModel.model_file is required")
	}
	file, err := ResolveStorePath(o.ModelFile)
	if err != nil {
		return nil, err
	}
	g, err := onnx.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if len(g.Inputs) != 1 || len(g.Outputs) != 1 {
		return nil, fmt.Errorf("%s: want one input and one output, the graph has %d and %d", file, len(g.Inputs), len(g.Outputs))
	}
	g.Outputs[0] = Logits(g, g.Outputs[0]) // train on the logits
	if o.PaddleParams {
		stats := map[*graph.Value]bool{} // batch-norm statistics stay buffers
		for _, n := range g.Nodes {
			if n.Op.Name == "batch_norm" && len(n.In) == 5 {
				stats[n.In[3]], stats[n.In[4]] = true, true
			}
		}
		for _, v := range g.Consts() {
			if !v.Param && !stats[v] && isPaddleParam(v.Name) && v.Const.DType().IsFloat() {
				v.Param = true
			}
		}
	}
	mod, err := module.New(g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &importedRec{spec: o.ModelFile, file: file, g: g, mod: mod, freezeBN: o.FreezeBN}, nil
}

// isSource reports whether weights names the imported file itself.
func (m *importedRec) isSource(weights string) bool {
	if weights == m.spec {
		return true
	}
	a, errA := filepath.Abs(weights)
	b, errB := filepath.Abs(m.file)
	return errA == nil && errB == nil && a == b
}

// classes is the last dimension of the graph's output, or 0 when dynamic.
func (m *importedRec) classes() int {
	s := m.g.Outputs[0].Meta.Shape
	if len(s) == 0 {
		return 0
	}
	return max(s[len(s)-1], 0)
}

// Logits returns the input of the softmax that computes out, looking through
// reshapes after it and the flatten before it (an opset < 13 Softmax imports
// as flatten → softmax → reshape); out itself when no softmax computes it. A
// Reshape before the softmax is the model's own: an upsampled head's
// (ocr.UpsampleRecHead) turns (N, T, f·C) into the (N, f·T, C) steps the CTC
// loss needs.
func Logits(g *graph.Graph, out *graph.Value) *graph.Value {
	prod := g.Producers()
	v := out
	for n := prod[v]; n != nil && (n.Op.Name == "reshape" || n.Op.Name == "flatten"); n = prod[v] {
		v = n.In[0]
	}
	n := prod[v]
	if n == nil || n.Op.Name != "softmax" {
		return out
	}
	for v = n.In[0]; prod[v] != nil && prod[v].Op.Name == "flatten"; v = prod[v].In[0] {
	}
	return v
}

// Params are the imported graph's trainable weights, by their ONNX names.
func (m *importedRec) Params() []nn.Param { return m.mod.Params() }

// Buffers are its batch-norm statistics.
func (m *importedRec) Buffers() []nn.Param { return m.mod.Buffers() }

// Forward maps x (N, 3, H, W) to logits (T, N, K).
func (m *importedRec) Forward(x *ag.Var, training bool) *ag.Var {
	y := m.mod.Forward(x, training && !m.freezeBN) // (N, T, K)
	return ag.Transpose(y, 1, 0, 2)
}

// exportGraph re-imports the model file and gives its parameters and
// batch-norm statistics the values of m (the graph keeps its softmax).
func (m *importedRec) exportGraph() (*graph.Graph, error) {
	g, err := onnx.ReadFile(m.file)
	if err != nil {
		return nil, err
	}
	state := nn.State(m)
	set := 0
	for _, v := range g.Consts() {
		if t, ok := state[v.Name]; ok {
			v.Const = t.Clone()
			set++
		}
	}
	if set != len(state) {
		return nil, fmt.Errorf("export: %s: %d of %d trained tensors found in the re-imported graph", m.file, set, len(state))
	}
	return g, nil
}
