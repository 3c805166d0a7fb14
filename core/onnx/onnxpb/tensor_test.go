package onnxpb

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestTensorAccessors(t *testing.T) {
	inf := float32(math.Inf(1))
	tests := []struct {
		name   string
		tensor *Tensor
		get    func(*Tensor) (any, error)
		want   any
	}{
		{"float raw", &Tensor{DataType: Float, Dims: []int64{2}, RawData: h("00 00 80 3f 00 00 20 c1")},
			f32s, []float32{1, -10}},
		{"float typed", &Tensor{DataType: Float, Dims: []int64{1, 2}, FloatData: []float32{0.5, -0}},
			f32s, []float32{0.5, 0}},
		// binary16: 1, -2, max normal 65504, min subnormal 2^-24, -min normal, +Inf, max subnormal
		{"float16 raw", &Tensor{DataType: Float16, Dims: []int64{7},
			RawData: h("00 3c 00 c0 ff 7b 01 00 00 84 00 7c ff 03")},
			f32s, []float32{1, -2, 65504, 1.0 / (1 << 24), -1.0 / (1 << 14), inf, 1023.0 / (1 << 24)}},
		{"float16 typed", &Tensor{DataType: Float16, Dims: []int64{2}, Int32Data: []int32{0x3800, 0xbc00}},
			f32s, []float32{0.5, -1}},
		{"bfloat16 raw", &Tensor{DataType: BFloat16, Dims: []int64{2}, RawData: h("80 3f 40 c0")},
			f32s, []float32{1, -3}},
		{"double raw", &Tensor{DataType: Double, Dims: []int64{1}, RawData: h("00 00 00 00 00 00 f8 3f")},
			f64s, []float64{1.5}},
		{"double typed", &Tensor{DataType: Double, Dims: []int64{2}, DoubleData: []float64{math.Pi, -1}},
			f64s, []float64{math.Pi, -1}},
		{"int64 raw", &Tensor{DataType: Int64, Dims: []int64{2}, RawData: h("ff ff ff ff ff ff ff ff 00 00 00 00 00 01 00 00")},
			i64s, []int64{-1, 1 << 40}},
		{"int64 typed scalar", &Tensor{DataType: Int64, Int64Data: []int64{42}}, i64s, []int64{42}},
		{"int32 raw", &Tensor{DataType: Int32, Dims: []int64{2}, RawData: h("fe ff ff ff 05 00 00 00")},
			i32s, []int32{-2, 5}},
		{"int32 typed", &Tensor{DataType: Int32, Dims: []int64{1}, Int32Data: []int32{-7}}, i32s, []int32{-7}},
		{"bool raw", &Tensor{DataType: Bool, Dims: []int64{3}, RawData: h("00 01 02")}, bools, []bool{false, true, true}},
		{"bool typed", &Tensor{DataType: Bool, Dims: []int64{2}, Int32Data: []int32{1, 0}}, bools, []bool{true, false}},
		{"uint8 raw", &Tensor{DataType: Uint8, Dims: []int64{2}, RawData: h("00 ff")}, u8s, []uint8{0, 255}},
		{"int8 raw", &Tensor{DataType: Int8, Dims: []int64{2}, RawData: h("80 7f")}, i8s, []int8{-128, 127}},
		{"int8 typed", &Tensor{DataType: Int8, Dims: []int64{1}, Int32Data: []int32{-3}}, i8s, []int8{-3}},
		{"int16 raw", &Tensor{DataType: Int16, Dims: []int64{1}, RawData: h("00 80")},
			func(t *Tensor) (any, error) { return t.Int16s() }, []int16{-32768}},
		{"uint16 typed", &Tensor{DataType: Uint16, Dims: []int64{1}, Int32Data: []int32{65535}},
			func(t *Tensor) (any, error) { return t.Uint16s() }, []uint16{65535}},
		{"uint32 raw", &Tensor{DataType: Uint32, Dims: []int64{1}, RawData: h("ff ff ff ff")},
			u64s, []uint64{math.MaxUint32}},
		{"uint64 typed", &Tensor{DataType: Uint64, Dims: []int64{1}, Uint64Data: []uint64{math.MaxUint64}},
			u64s, []uint64{math.MaxUint64}},
		{"strings", &Tensor{DataType: String, Dims: []int64{2}, StringData: [][]byte{[]byte("a"), {}}},
			func(t *Tensor) (any, error) { return t.Strings() }, [][]byte{[]byte("a"), {}}},
		{"empty", &Tensor{DataType: Float, Dims: []int64{3, 0}}, f32s, []float32{}},
		{"FromFloat32s", FromFloat32s("x", []int64{2}, []float32{1.25, -0.5}), f32s, []float32{1.25, -0.5}},
		{"FromInt64s", FromInt64s("x", []int64{2}, []int64{-5, 7}), i64s, []int64{-5, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.get(tt.tensor)
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTensorAccessorErrors(t *testing.T) {
	tests := []struct {
		name   string
		tensor *Tensor
		get    func(*Tensor) (any, error)
		want   string
	}{
		{"wrong type", &Tensor{Name: "x", DataType: Int64, Dims: []int64{1}}, f32s,
			`onnx: tensor "x": data type INT64, want FLOAT`},
		{"raw size", &Tensor{Name: "x", DataType: Float, Dims: []int64{2}, RawData: make([]byte, 7)}, f32s,
			`onnx: tensor "x": raw_data has 7 bytes, want 8 (2 FLOAT elements)`},
		{"typed count", &Tensor{Name: "x", DataType: Int64, Dims: []int64{3}, Int64Data: []int64{1}}, i64s,
			`onnx: tensor "x": int64_data has 1 values, want 3`},
		{"no data", &Tensor{Name: "x", DataType: Int32, Dims: []int64{2}}, i32s,
			`onnx: tensor "x": int32_data has 0 values, want 2`},
		{"negative dim", &Tensor{Name: "x", DataType: Float, Dims: []int64{-1}}, f32s,
			`onnx: tensor "x": bad dims [-1]`},
		{"overflowing dims", &Tensor{Name: "x", DataType: Uint8, Dims: []int64{1 << 40, 1 << 40}}, u8s,
			`onnx: tensor "x": bad dims`},
		{"external", &Tensor{Name: "x", DataType: Float, Dims: []int64{2}, DataLocation: LocationExternal}, f32s,
			`onnx: tensor "x": data is in an external file not loaded (use ReadFile)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.get(tt.tensor)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, %v; want error %q", got, err, tt.want)
			}
		})
	}
}

func TestNumElements(t *testing.T) {
	tests := []struct {
		dims []int64
		want int64
	}{
		{nil, 1}, {[]int64{0}, 0}, {[]int64{2, 3, 4}, 24}, {[]int64{3, -1}, -1}, {[]int64{1 << 32, 1 << 32}, -1},
	}
	for _, tt := range tests {
		if got := (&Tensor{Dims: tt.dims}).NumElements(); got != tt.want {
			t.Errorf("NumElements(%v) = %d, want %d", tt.dims, got, tt.want)
		}
	}
}

func TestOpsetVersion(t *testing.T) {
	m := &Model{OpsetImport: []OpsetID{{"ai.onnx", 13}, {"com.microsoft", 1}}}
	tests := []struct {
		domain string
		want   int64
	}{{"", 13}, {"ai.onnx", 13}, {"com.microsoft", 1}, {"ai.onnx.ml", 0}}
	for _, tt := range tests {
		if got := m.OpsetVersion(tt.domain); got != tt.want {
			t.Errorf("OpsetVersion(%q) = %d, want %d", tt.domain, got, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct{ got, want string }{
		{Float.String(), "FLOAT"}, {BFloat16.String(), "BFLOAT16"}, {Float8E8M0.String(), "FLOAT8E8M0"},
		{DataType(99).String(), "DataType(99)"}, {DataType(-1).String(), "DataType(-1)"},
		{AttrInts.String(), "INTS"}, {AttrTypeProtos.String(), "TYPE_PROTOS"}, {AttrType(15).String(), "AttrType(15)"},
		{Dim{Value: 0, HasValue: true}.String(), "0"}, {Dim{Param: "N"}.String(), "N"}, {Dim{}.String(), "?"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	sizes := map[DataType]int{Float: 4, Float16: 2, Bool: 1, Int64: 8, Complex128: 16, String: 0, Int4: 0}
	for dt, want := range sizes {
		if got := dt.Size(); got != want {
			t.Errorf("%v.Size() = %d, want %d", dt, got, want)
		}
	}
}

func f32s(t *Tensor) (any, error)  { return t.Float32s() }
func f64s(t *Tensor) (any, error)  { return t.Float64s() }
func i64s(t *Tensor) (any, error)  { return t.Int64s() }
func i32s(t *Tensor) (any, error)  { return t.Int32s() }
func bools(t *Tensor) (any, error) { return t.Bools() }
func u8s(t *Tensor) (any, error)   { return t.Uint8s() }
func i8s(t *Tensor) (any, error)   { return t.Int8s() }
func u64s(t *Tensor) (any, error)  { return t.Uint64s() }

func TestFloat32ToHalf(t *testing.T) {
	for h := range 1 << 16 {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue // NaN: checked below
		}
		if got := Float32ToHalf(HalfToFloat32(uint16(h))); got != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, HalfToFloat32(uint16(h)), got)
		}
	}
	ulp := float32(1.0 / 1024)
	for _, c := range []struct {
		f    float32
		want uint16
	}{
		{1 + ulp/2, 0x3c00},                     // tie: to the even 1
		{1 + 3*ulp/2, 0x3c02},                   // tie: to the even 1+2ulp
		{1 + ulp/2 + ulp/64, 0x3c01},            // past the tie: up
		{65519, 0x7bff},                         // the largest half, 65504
		{65520, 0x7c00},                         // tie between 65504 (odd) and 65536: Inf
		{-1e9, 0xfc00},                          // too large: -Inf
		{float32(math.Inf(1)), 0x7c00},          // Inf
		{0x1p-25, 0x0000},                       // tie between 0 and the smallest subnormal: 0
		{0x1p-25 + 0x1p-30, 0x0001},             // past it: the smallest subnormal
		{3 * 0x1p-25, 0x0002},                   // tie between 1 and 2 units: 2
		{0x1p-14 - 0x1p-26, 0x0400},             // rounds up to the smallest normal
		{1e-30, 0x0000},                         // underflow
		{float32(math.Copysign(0, -1)), 0x8000}, // -0
	} {
		if got := Float32ToHalf(c.f); got != c.want {
			t.Errorf("Float32ToHalf(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
	if h := Float32ToHalf(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN -> %#04x", h)
	}
}
