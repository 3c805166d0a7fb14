package cpu

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// TestActivateRoutesMatMulAndConv checks that after Activate, float32
// matmul and conv2d (which now run on this package's SGEMM) agree with
// their float64 versions (gonum's Dgemm).
func TestActivateRoutesMatMulAndConv(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	if err := (host{}).Activate(1); err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(op.Active().SGEMM).Pointer() != reflect.ValueOf(SGEMM).Pointer() {
		t.Fatal("Activate did not install SGEMM as the kernel set's SGEMM")
	}
	calls := 0
	op.Active().SGEMM = func(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		calls++ // Activate(1): one goroutine
		SGEMM(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
	defer installKernels()
	r := rand.New(rand.NewPCG(7, 8))
	a64 := tensor.Rand(r, tensor.Float64, -1, 1, 3, 37, 65)
	b64 := tensor.Rand(r, tensor.Float64, -1, 1, 65, 29)
	close32(t, "matmul", op.MatMul(a64.Cast(tensor.Float32), b64.Cast(tensor.Float32), false, false), op.MatMul(a64, b64, false, false), 65)
	close32(t, "matmul trans", op.MatMul(b64.Cast(tensor.Float32), a64.Cast(tensor.Float32), true, true), op.MatMul(b64, a64, true, true), 65)
	if calls == 0 {
		t.Fatal("matmul did not call the installed SGEMM")
	}
	calls = 0
	x := tensor.Rand(r, tensor.Float64, -1, 1, 2, 5, 19, 23)
	w := tensor.Rand(r, tensor.Float64, -1, 1, 7, 5, 3, 3)
	at := op.Attrs{"pads": []int{1, 1}, "strides": []int{2, 1}}
	y32 := op.Call(op.Lookup("conv2d"), at, x.Cast(tensor.Float32), w.Cast(tensor.Float32))[0]
	y64 := op.Call(op.Lookup("conv2d"), at, x, w)[0]
	close32(t, "conv2d", y32, y64, 45)
	if calls == 0 {
		t.Fatal("conv2d did not call the installed SGEMM")
	}
}

func close32(t *testing.T, what string, got, want *tensor.Tensor, k int) {
	t.Helper()
	g, w := got.Float64s(), want.Float64s()
	if len(g) != len(w) {
		t.Fatalf("%s: %d values, want %d", what, len(g), len(w))
	}
	for i := range g {
		if math.Abs(g[i]-w[i]) > 1e-5*math.Sqrt(float64(k))*(1+math.Abs(w[i])) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, g[i], w[i])
		}
	}
}
