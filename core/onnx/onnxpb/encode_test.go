package onnxpb

import (
	"bytes"
	"reflect"
	"testing"
)

func TestMarshalRoundTrip(t *testing.T) {
	want := sampleModel()
	b, err := want.Marshal()
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode(Marshal(m)): %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode(Marshal(m)) differs\n got %s\nwant %s", dump(got), dump(want))
	}
	b2, err := got.Marshal()
	if err != nil || !bytes.Equal(b2, b) {
		t.Errorf("second Marshal differs from the first (err %v)", err)
	}
}

// TestMarshalKnownBytes checks encodings written by hand from onnx.proto,
// including the value field an attribute's Type selects even when it is zero.
func TestMarshalKnownBytes(t *testing.T) {
	tests := []struct {
		name string
		in   interface{ Marshal() ([]byte, error) }
		want string
	}{
		{"tensor", &Tensor{Name: "w", DataType: Float, Dims: []int64{2, 1}, FloatData: []float32{1, 2}},
			"08 02 08 01 10 01 22 08 00 00 80 3f 00 00 00 40 42 01 77"},
		{"tensor ints", &Tensor{DataType: Int32, Int32Data: []int32{-2, 1}, Int64Data: []int64{300}, Uint64Data: []uint64{1}},
			"10 06 2a 0b fe ff ff ff ff ff ff ff ff 01 01 3a 02 ac 02 5a 01 01"},
		{"empty raw data is present", &Tensor{DataType: Float, Dims: []int64{0}, RawData: []byte{}},
			"08 00 10 01 4a 00"},
		{"zero attributes", &Graph{Node: []*Node{{Attribute: []*Attribute{
			{Name: "f", Type: AttrFloat}, {Name: "i", Type: AttrInt}, {Name: "s", Type: AttrString}}}}},
			// node{attribute{name f, f 0, type 1}, attribute{name i, i 0, type 2}, attribute{name s, s "", type 3}}
			"0a 21  2a 0b 0a 01 66 15 00 00 00 00 a0 01 01  2a 08 0a 01 69 18 00 a0 01 02  2a 08 0a 01 73 22 00 a0 01 03"},
		{"opset domain always written", &Model{OpsetImport: []OpsetID{{"", 9}}}, "42 04 0a 00 10 09"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Marshal()
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if !bytes.Equal(got, h(tt.want)) {
				t.Errorf("Marshal = % x\n          want %s", got, tt.want)
			}
		})
	}
}

// TestMarshalLongLengths covers length prefixes of 1, 2 and 3 bytes, which
// appendMsg widens after writing the payload.
func TestMarshalLongLengths(t *testing.T) {
	for _, n := range []int{0, 100, 127, 128, 200, 16383, 16384, 70000} {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(i * 7)
		}
		want := &Model{Graph: &Graph{Name: "g", Initializer: []*Tensor{{Name: "r", DataType: Uint8, Dims: []int64{int64(n)}, RawData: raw}}}}
		b, err := want.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("n=%d: Decode: %v", n, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("n=%d: round trip differs", n)
		}
	}
}

func TestMarshalNil(t *testing.T) {
	m := &Model{Graph: &Graph{Node: []*Node{{OpType: "A"}, {Attribute: []*Attribute{{Name: "t", Type: AttrTensors, Tensors: []*Tensor{nil}}}}}}}
	_, err := m.Marshal()
	want := "onnx: graph.node[1].attribute[0].tensors[0]: nil element"
	if err == nil || err.Error() != want {
		t.Errorf("Marshal error = %v, want %q", err, want)
	}
}
