package seg

import (
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/configs"
	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/tensor"
	"paddle/core/zoo"
)

func tinyPPLiteSeg(t *testing.T, classes int) *PPLiteSeg {
	t.Helper()
	return tinyPPLiteSegSeed(t, classes, 1)
}

// tinyPPLiteSegSeed is tinyPPLiteSeg with weights drawn from seed.
func tinyPPLiteSegSeed(t *testing.T, classes int, seed uint64) *PPLiteSeg {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	bb, err := zoo.NewSTDCNet(zoo.STDCOptions{Base: 16, Layers: []int{1, 1, 1}}, r)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newPPLiteSeg(PPLiteSegOpts{ArmOutChs: []int{8, 16, 16}, SegHeadInterChs: []int{8, 8, 8}, CMChs: 16, CMBins: []int{1, 2, 4}, NumClasses: classes}, bb, r)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Both models give logits at the input's size (also for sizes that are not
// multiples of 32), three maps in training for PP-LiteSeg, one in eval.
func TestModelShapes(t *testing.T) {
	unet, err := newUNet(UNetOpts{NumClasses: 3, BaseChannels: 4}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	deconv, err := newUNet(UNetOpts{NumClasses: 3, BaseChannels: 4, UseDeconv: true}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name       string
		m          Model
		h, w       int
		trainMaps  int
		wantParams bool
	}{
		{"pp_liteseg", tinyPPLiteSeg(t, 3), 64, 96, 3, true},
		{"pp_liteseg_odd", tinyPPLiteSeg(t, 3), 70, 50, 3, true},
		{"unet", unet, 48, 40, 1, true},
		{"unet_odd", unet, 45, 37, 1, true},
		{"unet_deconv", deconv, 45, 37, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := ag.Const(tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -1, 1, 2, 3, tt.h, tt.w))
			outs := tt.m.Logits(x, true)
			if len(outs) != tt.trainMaps {
				t.Fatalf("training gives %d maps, want %d", len(outs), tt.trainMaps)
			}
			for _, o := range outs {
				if want := (tensor.Shape{2, 3, tt.h, tt.w}); !o.T.Shape().Equal(want) {
					t.Errorf("logits %v, want %v", o.T.Shape(), want)
				}
			}
			var ev []*ag.Var
			ag.NoGrad(func() { ev = tt.m.Logits(x, false) })
			if len(ev) != 1 {
				t.Errorf("eval gives %d maps, want 1", len(ev))
			}
			names := map[string]bool{}
			for _, p := range append(tt.m.Params(), tt.m.Buffers()...) {
				if names[p.Name] {
					t.Errorf("duplicate parameter name %s", p.Name)
				}
				names[p.Name] = true
			}
		})
	}
}

// A gradient step on the training loss reaches every parameter (no
// detached branch: SPPM, UAFM attention, all heads).
func TestEveryParamGetsGradient(t *testing.T) {
	m := tinyPPLiteSeg(t, 3)
	x := ag.Const(tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -1, 1, 2, 3, 64, 64))
	y := tensor.New(tensor.Int64, 2, 64, 64)
	yv := y.I64()
	for i := range yv {
		yv[i] = int64(i/7) % 3
	}
	var sum *ag.Var
	for _, o := range m.Logits(x, true) {
		l, err := CrossEntropy(o, y, nil, 255)
		if err != nil {
			t.Fatal(err)
		}
		if sum == nil {
			sum = l
		} else {
			sum = ag.Add(sum, l)
		}
	}
	sum.Backward()
	for _, p := range m.Params() {
		if p.V.Grad == nil {
			t.Errorf("%s got no gradient", p.Name)
			continue
		}
		nz := false
		for _, v := range p.V.Grad.Float64s() {
			if v != 0 {
				nz = true
				break
			}
		}
		if !nz {
			t.Errorf("%s: gradient is all zeros", p.Name)
		}
	}
}

// Sliding-window inference of a model that works pixel by pixel equals
// whole-image inference, with overlapping windows and a last window
// shifted to the border; argmax picks the largest logit.
func TestSlideEqualsWholeForPointwiseModel(t *testing.T) {
	f := func(x *tensor.Tensor) *tensor.Tensor { // (N, 3, H, W) → 2 classes: x0+x1, x2·2
		var out *tensor.Tensor
		xv := x.Contiguous().F32()
		s := x.Shape()
		n, hw := s[0], s[2]*s[3]
		out = tensor.New(tensor.Float32, n, 2, s[2], s[3])
		ov := out.F32()
		for b := range n {
			for i := range hw {
				ov[(b*2)*hw+i] = xv[(b*3)*hw+i] + xv[(b*3+1)*hw+i]
				ov[(b*2+1)*hw+i] = 2 * xv[(b*3+2)*hw+i]
			}
		}
		return out
	}
	x := tensor.Rand(rand.New(rand.NewPCG(5, 6)), tensor.Float32, -1, 1, 2, 3, 37, 53)
	whole := infer(f, x, TestConfig{})
	slide := infer(f, x, TestConfig{IsSlide: true, CropSize: []int{20, 16}, Stride: []int{15, 10}})
	if d, _ := tensor.MaxDiff(whole, slide, 0, 0); d > 1e-6 {
		t.Errorf("sliding window differs from whole image by %g", d)
	}
	p := argmax(whole)
	wv := whole.F32()
	hw := 37 * 53
	for i := range hw {
		want := uint8(0)
		if wv[hw+i] > wv[i] {
			want = 1
		}
		if p[0][i] != want {
			t.Fatalf("argmax at %d = %d, want %d", i, p[0][i], want)
		}
	}
}

// Every config under configs/seg loads, resolves _base_ and builds its model.
func TestAllConfigsBuild(t *testing.T) {
	names := config.Names(configs.FS)
	n := 0
	for _, name := range names {
		if config.KitOf(name) != "seg" {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			cfg, err := config.LoadFS(configs.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			w, err := build(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := w.(*runner)
			if _, err := r.newModel(); err != nil {
				t.Fatal(err)
			}
			if _, err := r.optimConfig(); err != nil {
				t.Fatal(err)
			}
			if _, _, err := buildLosses(r.loss, r.ignore); err != nil {
				t.Fatal(err)
			}
			if _, err := buildTransforms(r.trainOpts.Transforms); err != nil {
				t.Fatal(err)
			}
		})
	}
	if n < 2 {
		t.Errorf("found %d seg configs in %v", n, names)
	}
}

// Config mistakes are errors that name the key.
func TestConfigErrors(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"model: {type: SegFormer}\ntrain_dataset: {type: Dataset, num_classes: 3}\n", "unknown"},
		{"model: {type: UNet, base_channel: 8}\ntrain_dataset: {type: Dataset, num_classes: 3}\n", "base_channel"},
		{"model: {type: UNet}\ntrain_dataset: {type: Dataset, num_classes: 1}\n", "num_classes"},
		{"model: {type: UNet}\ntrain_dataset: {type: Dataset, num_classes: 3, transforms: [{type: RandomRotate}]}\n", "RandomRotate"},
	} {
		cfg, err := config.Parse("seg", "x.yaml", []byte(tt.yaml))
		if err == nil {
			_, err = build(cfg)
		}
		if err == nil {
			t.Errorf("%q: no error", tt.yaml)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %q lacks %q", tt.yaml, err, tt.want)
		}
	}
}

// The exportable pooling equals the adaptive average pool for sizes the
// bins do and do not divide.
func TestPoolIsAdaptiveAvgPool(t *testing.T) {
	for _, sz := range [][3]int{{6, 6, 4}, {5, 7, 3}, {2, 2, 4}, {8, 4, 2}, {9, 9, 1}} {
		x := ag.Const(tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, 3, sz[0], sz[1]))
		got := pool(x, sz[2]).T
		want := ag.AdaptiveAvgPool2D(x, sz[2], sz[2]).T
		if d, _ := tensor.MaxDiff(got, want, 0, 0); d > 1e-6 {
			t.Errorf("%dx%d to %d: differs from adaptive_avg_pool2d by %g", sz[0], sz[1], sz[2], d)
		}
	}
}
