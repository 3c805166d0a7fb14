package tensor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

var allDTypes = []DType{Float32, Float64, Int64, Int32, Uint8, Int8, Bool}

// TestDTypeTable checks names, sizes, kinds and ParseDType for every dtype.
func TestDTypeTable(t *testing.T) {
	want := map[DType]struct {
		name         string
		size         int
		float, integ bool
	}{
		Float32: {"float32", 4, true, false}, Float64: {"float64", 8, true, false},
		Int64: {"int64", 8, false, true}, Int32: {"int32", 4, false, true},
		Uint8: {"uint8", 1, false, true}, Int8: {"int8", 1, false, true}, Bool: {"bool", 1, false, false},
	}
	for _, d := range allDTypes {
		w := want[d]
		if d.String() != w.name || d.Size() != w.size || d.IsFloat() != w.float || d.IsInt() != w.integ {
			t.Errorf("%v: name %q size %d float %v int %v, want %+v", d, d.String(), d.Size(), d.IsFloat(), d.IsInt(), w)
		}
		if p, err := ParseDType(w.name); err != nil || p != d {
			t.Errorf("ParseDType(%q) = %v, %v", w.name, p, err)
		}
	}
	if _, err := ParseDType("float16"); err == nil {
		t.Error("ParseDType(float16): want an error")
	}
	if DTypeOf[int32]() != Int32 || DTypeOf[uint8]() != Uint8 || DTypeOf[int8]() != Int8 || DTypeOf[bool]() != Bool {
		t.Error("DTypeOf maps Go types to the wrong dtypes")
	}
}

// TestCreationEveryDType builds each dtype with every constructor and reads
// it back through the typed accessors.
func TestCreationEveryDType(t *testing.T) {
	for _, d := range allDTypes {
		t.Run(d.String(), func(t *testing.T) {
			z := Zeros(d, 2, 3)
			o := Ones(d, 2, 3)
			f := Full(d, 2, 3)
			a := Arange(d, 0, 3, 1)
			for _, x := range []*Tensor{z, o, f, a} {
				if x.DType() != d {
					t.Fatalf("dtype %v, want %v", x.DType(), d)
				}
			}
			two := 2.0
			if d == Bool {
				two = 1
			}
			if !slices.Equal(z.Float64s(), []float64{0, 0, 0, 0, 0, 0}) ||
				!slices.Equal(o.Float64s(), []float64{1, 1, 1, 1, 1, 1}) ||
				!slices.Equal(f.Float64s(), []float64{two, two, two}) {
				t.Fatalf("zeros %v ones %v full %v", z.Float64s(), o.Float64s(), f.Float64s())
			}
			wantA := []float64{0, 1, 2}
			if d == Bool {
				wantA = []float64{0, 1, 1}
			}
			if !slices.Equal(a.Float64s(), wantA) {
				t.Fatalf("arange %v, want %v", a.Float64s(), wantA)
			}
			if n := typedLen(o); n != 6 {
				t.Fatalf("typed accessor has %d elements, want 6", n)
			}
		})
	}
	if Scalar(int8(-3)).Item() != -3 || Scalar(uint8(200)).Item() != 200 || Scalar(true).Item() != 1 {
		t.Error("Scalar of int8/uint8/bool")
	}
	r1, r2 := rand.New(rand.NewPCG(4, 2)), rand.New(rand.NewPCG(4, 2))
	if !AllClose(Rand(r1, Float64, -1, 1, 5), Rand(r2, Float64, -1, 1, 5), 0, 0) {
		t.Error("Rand with the same seed differs")
	}
}

func typedLen(x *Tensor) int {
	switch x.DType() {
	case Float32:
		return len(x.F32())
	case Float64:
		return len(x.F64())
	case Int64:
		return len(x.I64())
	case Int32:
		return len(x.I32())
	case Uint8:
		return len(x.U8())
	case Int8:
		return len(x.I8())
	case Bool:
		return len(x.Bools())
	}
	return -1
}

// TestCastMatchesNumPy pins Cast against numpy.ndarray.astype (values from
// NumPy run on this machine): truncation toward zero, two's-complement
// wrap-around when narrowing, exact int64 beyond 2^53, bool as != 0.
func TestCastMatchesNumPy(t *testing.T) {
	x := FromSlice([]float64{-1.5, 0, 2.7, 300, -129.9}, 5)
	fromFloat := map[DType][]float64{
		Float32: {-1.5, 0, float64(float32(2.7)), 300, float64(float32(-129.9))},
		Int64:   {-1, 0, 2, 300, -129},
		Int32:   {-1, 0, 2, 300, -129},
		Uint8:   {255, 0, 2, 44, 127},
		Int8:    {-1, 0, 2, 44, 127},
		Bool:    {1, 0, 1, 1, 1},
	}
	for d, want := range fromFloat {
		if got := x.Cast(d); got.DType() != d || !slices.Equal(got.Float64s(), want) {
			t.Errorf("float64 → %v: %v, want %v", d, got.Float64s(), want)
		}
	}
	y := FromSlice([]int64{1<<53 + 1, -1, 255, 256, 128, -129}, 6)
	fromInt := map[DType][]int64{
		Int32: {1, -1, 255, 256, 128, -129},
		Uint8: {1, 255, 255, 0, 128, 127},
		Int8:  {1, -1, -1, 0, -128, 127},
		Bool:  {1, 1, 1, 1, 1, 1},
	}
	for d, want := range fromInt {
		got := y.Cast(d)
		back := got.Cast(Int64).I64()
		if got.DType() != d || !slices.Equal(back, want) {
			t.Errorf("int64 → %v: %v, want %v", d, back, want)
		}
	}
	if got := y.Cast(Int64).I64()[0]; got != 1<<53+1 {
		t.Errorf("int64 → int64 lost precision: %d", got)
	}
	big := FromSlice([]int64{1<<53 + 1, 2, 3, 1<<62 + 3}, 2, 2).Transpose()
	if got := big.Clone().I64(); !slices.Equal(got, []int64{1<<53 + 1, 3, 2, 1<<62 + 3}) {
		t.Errorf("Clone of a transposed int64 view: %v", got)
	}
	if got := FromSlice([]int32{1<<31 - 1, -7}, 2).Cast(Int64).I64(); !slices.Equal(got, []int64{1<<31 - 1, -7}) {
		t.Errorf("int32 → int64: %v", got)
	}
	b := FromSlice([]bool{true, false}, 2)
	for _, d := range allDTypes {
		if got := b.Cast(d).Float64s(); !slices.Equal(got, []float64{1, 0}) {
			t.Errorf("bool → %v: %v", d, got)
		}
	}
	// a strided view casts in logical order
	v := FromSlice([]uint8{1, 2, 3, 4, 5, 6}, 2, 3).Transpose()
	if got := v.Cast(Int8).I8(); !slices.Equal(got, []int8{1, 4, 2, 5, 3, 6}) {
		t.Errorf("transposed uint8 → int8: %v", got)
	}
}

// TestStringEveryDType pins the printed form of each dtype, scalars,
// empty tensors and elided long axes.
func TestStringEveryDType(t *testing.T) {
	tests := []struct {
		x    *Tensor
		want string
	}{
		{FromSlice([]float32{1.5, -2, 1e-5}, 3), "tensor(float32, (3)) [1.5, -2, 1e-05]"},
		{FromSlice([]float64{0.125, 3}, 1, 2), "tensor(float64, (1, 2)) [[0.125, 3]]"},
		{FromSlice([]int64{-9, 1 << 40}, 2), "tensor(int64, (2)) [-9, 1099511627776]"},
		{FromSlice([]int32{7, -8}, 2), "tensor(int32, (2)) [7, -8]"},
		{FromSlice([]uint8{0, 255}, 2), "tensor(uint8, (2)) [0, 255]"},
		{FromSlice([]int8{-128, 127}, 2), "tensor(int8, (2)) [-128, 127]"},
		{FromSlice([]bool{true, false}, 2), "tensor(bool, (2)) [true, false]"},
		{Scalar(int8(-3)), "tensor(int8, ()) -3"},
		{Zeros(Uint8, 0), "tensor(uint8, (0)) []"},
		{Arange(Int32, 0, 8, 1), "tensor(int32, (8)) [0, 1, 2, ..., 5, 6, 7]"},
		{FromSlice([]bool{true, false, true, false}, 2, 2).Transpose(), "tensor(bool, (2, 2)) [[true, true], [false, false]]"},
	}
	for _, tt := range tests {
		if got := tt.x.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
