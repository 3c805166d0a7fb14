package rectrain

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"paddle/core/tensor"
)

// paddleBackbone is a backbone built with PaddleOCR's own layers, which
// names its tensors as PaddleOCR does (MobileNetV3).
type paddleBackbone interface {
	Backbone
	PaddleName(name string) (pd string, transposed bool)
}

// PaddleCRNN is CRNN over a backbone with PaddleOCR's layers: the networks of
// PaddleOCR's rec_mv3_none_bilstm_ctc.yml (MobileNetV3, SequenceEncoder
// rnn, CTCHead) and rec_svtrnet.yml (SVTRNet with paddle_layers,
// SequenceEncoder reshape, CTCHead), whose .pdparams load here
// (workflow.PaddleNamer) and predict the same. CRNN over MiniVGG (not one
// of PaddleOCR's backbones) or this port's own SVTRNet has no such map.
type PaddleCRNN struct {
	*CRNN
	bb paddleBackbone
}

// paddleCRNN wraps m when its backbone has PaddleOCR's names.
func paddleCRNN(m *CRNN) Recognizer {
	if bb, ok := m.Backbone.(paddleBackbone); ok {
		return &PaddleCRNN{CRNN: m, bb: bb}
	}
	return m
}

// PaddleName maps a parameter or buffer name to PaddleOCR's structured name:
// transform.* as STN_ON's;
// backbone.* as the backbone's; neck.lstm.* → neck.encoder.lstm.* (Paddle's
// nn.LSTM exposes weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, ...
// _reverse with this port's shapes and gate order i, f, g, o); head.fc →
// head.fc, or with mid_channels head.mid → head.fc1 and head.fc → head.fc2.
// Paddle's Linear weights are (in, out): transposed.
func (m *PaddleCRNN) PaddleName(name string) (string, bool) {
	if rest, ok := strings.CutPrefix(name, "transform."); ok && m.Transform != nil {
		pd, tr := m.Transform.PaddleName(rest)
		if pd == "" {
			return "", false
		}
		return "transform." + pd, tr
	}
	if rest, ok := strings.CutPrefix(name, "backbone."); ok {
		pd, tr := m.bb.PaddleName(rest)
		if pd == "" {
			return "", false
		}
		return "backbone." + pd, tr
	}
	if rest, ok := strings.CutPrefix(name, "neck.lstm."); ok {
		return "neck.encoder.lstm." + rest, false
	}
	head := map[string]string{"head.fc.": "head.fc."}
	if m.Mid != nil {
		head = map[string]string{"head.mid.": "head.fc1.", "head.fc.": "head.fc2."}
	}
	for ours, pd := range head {
		if rest, ok := strings.CutPrefix(name, ours); ok {
			return pd + rest, rest == "weight"
		}
	}
	return name, false
}

// paddleLSTMCell matches the second name Paddle's state_dict gives each LSTM
// tensor: RNNBase is a LayerList of BiRNN layers whose cells own the
// parameters (<layer>.cell_fw.weight_ih), and setattr exposes the same
// parameters again as weight_ih_l<layer>[_reverse], so paddle.save writes
// both names.
var paddleLSTMCell = regexp.MustCompile(`^(.*lstm\.)(\d+)\.cell_(fw|bw)\.(weight_ih|weight_hh|bias_ih|bias_hh)$`)

// PaddlePrepare accepts each LSTM tensor under either of Paddle's names
// (workflow.PaddlePreparer): a cell name whose flat name is in the file
// too must hold the same values; alone, it stands for the flat name.
func (m *PaddleCRNN) PaddlePrepare(t map[string]*tensor.Tensor) ([]string, error) {
	var used []string
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		g := paddleLSTMCell.FindStringSubmatch(n)
		if g == nil {
			continue
		}
		flat := g[1] + g[4] + "_l" + g[2]
		if g[3] == "bw" {
			flat += "_reverse"
		}
		used = append(used, n)
		f, ok := t[flat]
		if !ok {
			t[flat] = t[n]
			continue
		}
		if !f.Shape().Equal(t[n].Shape()) || !slices.Equal(f.Float64s(), t[n].Float64s()) {
			return nil, fmt.Errorf("%s and %s are the same Paddle parameter but hold different values", n, flat)
		}
	}
	return used, nil
}
