package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// Training-step benchmarks for the fast-kernels work: one step is forward,
// loss, Backward and an optimizer update, in float32 on the cpu reference
// kernels (or whatever fast kernels are installed). Run with
//
//	go test ./core/nn -run '^$' -bench TrainStep -benchtime 20x
//
// They live in an external test package so they can use core/optim.

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// smallCNN is LeNet-like on 28×28 gray images, batch 32:
// [conv3×3(1→8) BN ReLU maxpool2] [conv3×3(8→16) BN ReLU maxpool2] flatten linear(784→10).
func smallCNN(r *rand.Rand) *nn.Sequential {
	pool := func() nn.Layer { return must(nn.NewMaxPool2D(nn.PoolOptions{KernelSize: []int{2}})) }
	relu := func() nn.Layer { return must(nn.NewActivation("relu")) }
	return nn.NewSequential(
		must(nn.NewConv2D(nn.ConvOptions{InChannels: 1, OutChannels: 8, KernelSize: []int{3}, Padding: []int{1}}, r)),
		must(nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: 8})), relu(), pool(),
		must(nn.NewConv2D(nn.ConvOptions{InChannels: 8, OutChannels: 16, KernelSize: []int{3}, Padding: []int{1}}, r)),
		must(nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: 16})), relu(), pool(),
		&nn.Flatten{StartAxis: 1},
		must(nn.NewLinear(nn.LinearOptions{In: 16 * 7 * 7, Out: 10}, r)),
	)
}

func BenchmarkTrainStepCNN(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	m := smallCNN(r)
	opt := must(optim.NewSGD(m.Params(), optim.SGDOptions{LR: 0.05, Momentum: 0.9}))
	const n = 32
	x := ag.Const(tensor.Rand(r, tensor.Float32, 0, 1, n, 1, 28, 28))
	labels := make([]int64, n)
	for i := range labels {
		labels[i] = int64(r.IntN(10))
	}
	y := tensor.FromSlice(labels, n)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		opt.ZeroGrad()
		loss := must(nn.CrossEntropy(m.Forward(x, true), y, nn.DefaultCrossEntropyOptions()))
		loss.Backward()
		opt.Step()
		if math.IsNaN(loss.Item()) {
			b.Fatal("loss is NaN")
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "samples/s")
}

// crnn is a CRNN-style text recogniser (Shi et al. 2015) at a small scale:
// three conv-BN-ReLU blocks over a 32×100 gray line image, height pooled to
// 1, a one-layer bidirectional LSTM over the 25 columns, a linear head to
// 37 classes (blank + 36) and CTC.
type crnn struct {
	convs []*nn.Conv2D
	bns   []*nn.BatchNorm
	pools []nn.Layer
	lstm  *nn.LSTM
	head  *nn.Linear
}

func newCRNN(r *rand.Rand) *crnn {
	m := &crnn{}
	chans := []int{1, 16, 32, 64}
	for i := range 3 {
		m.convs = append(m.convs, must(nn.NewConv2D(nn.ConvOptions{InChannels: chans[i], OutChannels: chans[i+1], KernelSize: []int{3}, Padding: []int{1}}, r)))
		m.bns = append(m.bns, must(nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: chans[i+1]})))
	}
	// 32×100 → 16×50 → 8×25 → 1×25
	m.pools = []nn.Layer{
		must(nn.NewMaxPool2D(nn.PoolOptions{KernelSize: []int{2}})),
		must(nn.NewMaxPool2D(nn.PoolOptions{KernelSize: []int{2}})),
		must(nn.NewAdaptiveAvgPool2D([]int{1, 25})),
	}
	m.lstm = must(nn.NewLSTM(nn.RNNOptions{InputSize: 64, HiddenSize: 48, Bidirectional: true}, r))
	m.head = must(nn.NewLinear(nn.LinearOptions{In: 96, Out: 37}, r))
	return m
}

func (m *crnn) Params() []nn.Param {
	var ps []nn.Param
	for i := range m.convs {
		ps = append(ps, nn.Prefix(fmt.Sprint("conv", i), m.convs[i].Params())...)
		ps = append(ps, nn.Prefix(fmt.Sprint("bn", i), m.bns[i].Params())...)
	}
	return append(ps, nn.Collect("lstm", m.lstm, "head", m.head)...)
}

// forward maps x (N, 1, 32, 100) to log-probabilities (T=25, N, 37).
func (m *crnn) forward(x *ag.Var, training bool) *ag.Var {
	for i := range m.convs {
		x = m.pools[i].Forward(ag.Relu(m.bns[i].Forward(m.convs[i].Forward(x, training), training)), training)
	}
	s := x.Shape()                                                // (N, 64, 1, 25)
	seq := ag.Transpose(ag.Reshape(x, s[0], s[1], s[3]), 2, 0, 1) // (T, N, 64)
	return ag.LogSoftmax(m.head.Forward(m.lstm.Forward(seq, training), training), -1)
}

func BenchmarkTrainStepCRNN(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	m := newCRNN(r)
	opt := must(optim.NewAdam(m.Params(), optim.AdamOptions{LR: 1e-3}))
	const n, maxLen = 8, 10
	x := ag.Const(tensor.Rand(r, tensor.Float32, 0, 1, n, 1, 32, 100))
	tg := make([]int64, n*maxLen)
	tl := make([]int64, n)
	il := make([]int64, n)
	for i := range n {
		tl[i] = int64(4 + r.IntN(maxLen-3))
		il[i] = 25
		for j := range int(tl[i]) {
			tg[i*maxLen+j] = int64(1 + r.IntN(36))
		}
	}
	targets := tensor.FromSlice(tg, n, maxLen)
	inLen, tgLen := tensor.FromSlice(il, n), tensor.FromSlice(tl, n)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		opt.ZeroGrad()
		loss := nn.CTCLoss(m.forward(x, true), targets, inLen, tgLen, nn.CTCOptions{})
		loss.Backward()
		opt.Step()
		if v := loss.Item(); math.IsNaN(v) || math.IsInf(v, 0) {
			b.Fatalf("loss is %v", v)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "samples/s")
}

// The benchmarked CRNN step really trains: on one fixed batch, 40 Adam steps
// must cut the CTC loss by more than half (a broken conv, LSTM or CTC
// backward cannot fit the random labels).
func TestCRNNStepFitsABatch(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	m := newCRNN(r)
	opt := must(optim.NewAdam(m.Params(), optim.AdamOptions{LR: 3e-3}))
	const n = 4
	x := ag.Const(tensor.Rand(r, tensor.Float32, 0, 1, n, 1, 32, 100))
	targets := tensor.FromSlice([]int64{3, 7, 1, 9, 2, 2, 5, 0, 11, 4, 6, 0, 8, 8, 8, 1}, n, 4)
	inLen := tensor.FromSlice([]int64{25, 25, 25, 25}, n)
	tgLen := tensor.FromSlice([]int64{4, 3, 3, 4}, n)
	var first, last float64
	for i := range 40 {
		opt.ZeroGrad()
		loss := nn.CTCLoss(m.forward(x, true), targets, inLen, tgLen, nn.CTCOptions{})
		loss.Backward()
		opt.Step()
		if i == 0 {
			first = loss.Item()
		}
		last = loss.Item()
	}
	t.Logf("CTC loss %.4g → %.4g", first, last)
	if !(last < first/2) {
		t.Fatalf("CTC loss %.4g → %.4g after 40 steps, want less than half", first, last)
	}
}
