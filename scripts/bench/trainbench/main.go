// Command trainbench times training steps of the two models that
// ../shared/bench/scripts/torchbench/train.py times on PyTorch, built the same
// way with paddle's nn layers on the cpu backend: SmallCNN (3x32x32, batch
// 64, conv32-conv64-pool-conv128-pool-fc10 with BN+ReLU, SGD momentum) and
// CRNN (1x32x256, batch 32, 4 conv blocks, 2-layer BiLSTM 128, linear 100,
// CTC, Adam). Random data, 3 warm-up steps, then steps for at least -seconds;
// prints one JSON line per model: {"model", "threads", "median_ms", "min_ms", "steps"}.
//
//	go run ./scripts/bench/trainbench -threads 1 -seconds 4
package main

import (
	"flag"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/scripts/bench/internal/stepbench"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// cbr is conv3x3 (no bias) → BN → ReLU.
func cbr(in, out int, r *rand.Rand) []nn.Layer {
	return []nn.Layer{
		must(nn.NewConv2D(nn.ConvOptions{InChannels: in, OutChannels: out, KernelSize: []int{3}, Padding: []int{1}, NoBias: true}, r)),
		must(nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: out})),
		must(nn.NewActivation("relu")),
	}
}

func pool(kh, kw int) nn.Layer {
	return must(nn.NewMaxPool2D(nn.PoolOptions{KernelSize: []int{kh, kw}}))
}

func smallCNN(r *rand.Rand) (func() *ag.Var, []nn.Param) {
	var ls []nn.Layer
	ls = append(ls, cbr(3, 32, r)...)
	ls = append(ls, cbr(32, 64, r)...)
	ls = append(ls, pool(2, 2))
	ls = append(ls, cbr(64, 128, r)...)
	ls = append(ls, pool(2, 2), &nn.Flatten{StartAxis: 1}, must(nn.NewLinear(nn.LinearOptions{In: 128 * 8 * 8, Out: 10}, r)))
	m := nn.NewSequential(ls...)
	x := tensor.Randn(r, tensor.Float32, 0, 1, 64, 3, 32, 32)
	y := tensor.New(tensor.Int64, 64)
	for i := range y.I64() {
		y.I64()[i] = int64(r.IntN(10))
	}
	return func() *ag.Var {
		return must(nn.CrossEntropy(m.Forward(ag.Const(x), true), y, nn.DefaultCrossEntropyOptions()))
	}, m.Params()
}

func crnn(r *rand.Rand) (func() *ag.Var, []nn.Param) {
	var ls []nn.Layer
	ls = append(ls, cbr(1, 64, r)...)
	ls = append(ls, pool(2, 2))
	ls = append(ls, cbr(64, 128, r)...)
	ls = append(ls, pool(2, 2))
	ls = append(ls, cbr(128, 256, r)...)
	ls = append(ls, pool(2, 1))
	ls = append(ls, cbr(256, 256, r)...)
	ls = append(ls, pool(4, 1))
	f := nn.NewSequential(ls...)
	lstm := must(nn.NewLSTM(nn.RNNOptions{InputSize: 256, HiddenSize: 128, NumLayers: 2, Bidirectional: true}, r))
	fc := must(nn.NewLinear(nn.LinearOptions{In: 256, Out: 100}, r))
	x := tensor.Randn(r, tensor.Float32, 0, 1, 32, 1, 32, 256)
	tl := tensor.New(tensor.Int64, 32)
	il := tensor.Full(tensor.Int64, 64, 32)
	var tg []int64
	for i := range 32 {
		n := 5 + r.IntN(16)
		tl.I64()[i] = int64(n)
		for range n {
			tg = append(tg, int64(1+r.IntN(99)))
		}
	}
	targets := tensor.FromSlice(tg, len(tg))
	params := append(nn.Prefix("f", f.Params()), append(nn.Prefix("rnn", lstm.Params()), nn.Prefix("fc", fc.Params())...)...)
	return func() *ag.Var {
		h := f.Forward(ag.Const(x), true)                                  // (32, 256, 1, 64)
		s := ag.Transpose(ag.Reshape(h, 32, 256, 64), 2, 0, 1)             // (64, 32, 256)
		logp := ag.LogSoftmax(fc.Forward(lstm.Forward(s, true), true), -1) // (T, N, 100)
		return nn.CTCLoss(logp, targets, il, tl, nn.CTCOptions{ZeroInfinity: true})
	}, params
}

func main() {
	threads := flag.Int("threads", 1, "kernel threads")
	seconds := flag.Float64("seconds", 4, "minimum timed seconds per model")
	only := flag.String("model", "", "time only this model (smallcnn_b64 or crnn_b32)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	stop, err := stepbench.Start(*threads, *cpuprofile)
	if err != nil {
		stepbench.Fail("trainbench", err)
	}
	defer stop()
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []struct {
		name string
		make func(*rand.Rand) (func() *ag.Var, []nn.Param)
		adam bool
	}{{"smallcnn_b64", smallCNN, false}, {"crnn_b32", crnn, true}} {
		if *only != "" && m.name != *only {
			continue
		}
		loss, params := m.make(r)
		var opt optim.Optimizer
		if m.adam {
			opt = must(optim.NewAdam(params, optim.AdamOptions{LR: 1e-3}))
		} else {
			opt = must(optim.NewSGD(params, optim.SGDOptions{LR: 0.01, Momentum: 0.9}))
		}
		stepbench.Time(func() {
			opt.ZeroGrad()
			loss().Backward()
			opt.Step()
		}, 3, *seconds, map[string]any{"impl": "paddle", "model": m.name, "threads": *threads})
	}
}
