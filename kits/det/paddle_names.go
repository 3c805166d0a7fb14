package det

import (
	"fmt"
	"strconv"
	"strings"

	"paddle/core/tensor"
	"paddle/core/zoo"
)

// The backbone maps in both builds: PaddleDetection's LCNet
// (ppdet/modeling/backbones/lcnet.py) has PaddleClas's PPLCNet names and
// layers, under backbone.*. pretrain_weights may therefore be a PaddleClas
// PPLCNet_x*_pretrained .pdparams, as PaddleDetection's PicoDet configs
// name, or a PaddleDetection PicoDet checkpoint. This port's own neck and
// head differ from PaddleDetection's (docs/formats.md), so they keep their
// names, which no PaddlePaddle file has, and --weights with a
// PaddleDetection checkpoint fails naming the tensors it cannot place;
// with PicoDet.paddle_layers (paddle_layers.go) neck and head map too.

// PaddleName maps backbone.* to PaddleDetection's names (backbone. + the
// PaddleClas name, zoo.PPLCNet.PaddleName), and with paddle_layers neck.*
// and head.* to LCPAN's and PicoHeadV2's (paddleNeckName, paddleHeadName).
func (m *PicoDet) PaddleName(name string) (pd string, transposed bool) {
	if rest, ok := strings.CutPrefix(name, "backbone."); ok && m.Backbone != nil {
		if pd, tr := m.Backbone.PaddleName(rest); pd != "" {
			return "backbone." + pd, tr
		}
		return "", false
	}
	if !m.paddle {
		return name, false
	}
	if rest, ok := strings.CutPrefix(name, "neck."); ok {
		return zoo.PaddleBN("neck." + paddleNeckName(rest)), false
	}
	if rest, ok := strings.CutPrefix(name, "head."); ok {
		return zoo.PaddleBN("head." + paddleHeadName(rest)), false
	}
	return name, false
}

// dpModule names a zoo.DepthwiseSeparable's parts as csp_pan.py's DPModule.
var dpModule = strings.NewReplacer("dw.conv.", "dwconv.", "dw.bn.", "bn1.", "pw.conv.", "pwconv.", "pw.bn.", "bn2.")

// lcnetBlock names them as lcnet.py's DepthwiseSeparable (ConvBNLayer: conv, bn).
var lcnetBlock = strings.NewReplacer("dw.", "dw_conv.", "pw.", "pw_conv.")

// paddleNeckName: PaddleLCPAN's parameters are named as LCPAN's sublayers
// already; only the blocks' parts are renamed.
func paddleNeckName(rest string) string {
	switch {
	case strings.HasPrefix(rest, "top_down_blocks."), strings.HasPrefix(rest, "bottom_up_blocks."):
		return lcnetBlock.Replace(rest)
	case strings.HasPrefix(rest, "downsamples."), strings.HasPrefix(rest, "first_top_conv."), strings.HasPrefix(rest, "second_top_conv."):
		return dpModule.Replace(rest)
	}
	return rest
}

// paddleHeadName: cls_tower.<l>.<i>.dw|pw → conv_feat.cls_conv_dw|pw<l>.<i>
// (ConvNormLayer: conv, norm); se.<l> → conv_feat.se.<l> (fc, conv.conv,
// conv.norm); align.<l> → cls_align.<l> (a DPModule); cls_out.<l> →
// head_cls<l>, reg_out.<l> → head_reg<l>.
func paddleHeadName(rest string) string {
	kind, tail, _ := strings.Cut(rest, ".")
	l, tail, _ := strings.Cut(tail, ".")
	switch kind {
	case "cls_tower":
		i, part, _ := strings.Cut(tail, ".")
		dw, layer, _ := strings.Cut(part, ".")
		return "conv_feat.cls_conv_" + dw + l + "." + i + "." + strings.Replace(layer, "bn.", "norm.", 1)
	case "se":
		return "conv_feat.se." + l + "." + strings.Replace(tail, "conv.bn.", "conv.norm.", 1)
	case "align":
		return "cls_align." + l + "." + dpModule.Replace(tail)
	case "cls_out":
		return "head_cls" + l + "." + tail
	case "reg_out":
		return "head_reg" + l + "." + tail
	}
	return rest
}

// PaddlePrepare reads a PaddleClas classification file (conv1.*,
// blocks2.* ... without the backbone. prefix, as PaddleDetection's
// pretrain_weights match them by suffix) as the backbone's tensors; its
// classifier (last_conv, fc) stays unused. With paddle_layers it also
// accounts for the tensors a PaddleDetection PicoHeadV2 saves that its
// forward never reads (paddlePicoHeadExtras).
func (m *PicoDet) PaddlePrepare(tensors map[string]*tensor.Tensor) ([]string, error) {
	var used []string
	if m.paddle {
		var err error
		if used, err = m.paddlePicoHeadExtras(tensors); err != nil {
			return nil, err
		}
	}
	if m.Backbone == nil || tensors["conv1.conv.weight"] == nil || tensors["backbone.conv1.conv.weight"] != nil {
		return used, nil
	}
	var bb []string
	for n := range tensors {
		if strings.HasPrefix(n, "conv1.") || strings.HasPrefix(n, "blocks") {
			bb = append(bb, n)
		}
	}
	for _, n := range bb {
		tensors["backbone."+n] = tensors[n]
	}
	return append(used, bb...), nil
}

// paddlePicoHeadExtras lists what PicoHeadV2's state dict holds beside the
// layers it runs: head_cls_list.<l> / head_reg_list.<l> (the same layers
// as head_cls<l> / head_reg<l>, saved twice because they are registered
// twice), GFLHead's unused ScaleReg parameters p<log2 stride>_feat.scale_reg
// and Integral's buffer distribution_project.project (0 .. reg_max). The
// duplicates must equal their originals and project must be 0 .. reg_max,
// else the file is not what this model computes.
func (m *PicoDet) paddlePicoHeadExtras(tensors map[string]*tensor.Tensor) ([]string, error) {
	var used []string
	for l, s := range m.Head.Strides {
		for _, dup := range [][2]string{{"head_cls_list", "head_cls"}, {"head_reg_list", "head_reg"}} {
			for _, p := range []string{"weight", "bias"} {
				a, b := "head."+dup[0]+"."+strconv.Itoa(l)+"."+p, "head."+dup[1]+strconv.Itoa(l)+"."+p
				ta, tb := tensors[a], tensors[b]
				if ta == nil {
					continue
				}
				if tb == nil || !sameValues(ta, tb) {
					return nil, fmt.Errorf("%s differs from %s: PicoHeadV2 saves the same layer under both names", a, b)
				}
				used = append(used, a)
			}
		}
		lvl := 0
		for v := s; v > 1; v >>= 1 {
			lvl++
		}
		if n := "head.p" + strconv.Itoa(lvl) + "_feat.scale_reg"; tensors[n] != nil {
			used = append(used, n)
		}
	}
	if t := tensors["head.distribution_project.project"]; t != nil {
		v := t.Cast(tensor.Float32).Contiguous().F32()
		for i, x := range v {
			if len(v) != m.Head.RegMax+1 || x != float32(i) {
				return nil, fmt.Errorf("head.distribution_project.project: want 0 .. reg_max %d, got %v", m.Head.RegMax, v)
			}
		}
		used = append(used, "head.distribution_project.project")
	}
	return used, nil
}

func sameValues(a, b *tensor.Tensor) bool {
	x, y := a.Cast(tensor.Float32).Contiguous().F32(), b.Cast(tensor.Float32).Contiguous().F32()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
