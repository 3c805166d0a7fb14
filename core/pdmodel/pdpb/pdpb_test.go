package pdpb

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The fixtures of ../testdata are written by scripts/ref/pdmodel_ref.py
// (Python protobuf compiling framework.proto at run time), not by this package.
const tinyDir = "../testdata/tiny"

func TestDecodeProgramTiny(t *testing.T) {
	p, err := ReadProgram(filepath.Join(tinyDir, "inference.pdmodel"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) != 1 || p.Version != 2006000 {
		t.Fatalf("blocks %d version %d", len(p.Blocks), p.Version)
	}
	b := p.Blocks[0]
	var types []string
	for _, o := range b.Ops {
		types = append(types, o.Type)
	}
	want := "feed conv2d batch_norm relu depthwise_conv2d hard_swish pool2d conv2d elementwise_add hard_sigmoid " +
		"elementwise_mul pool2d flatten_contiguous_range matmul_v2 elementwise_add scale softmax fetch"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("ops\n got %s\nwant %s", got, want)
	}
	conv := b.Ops[1]
	if got := conv.Input("Filter"); !reflect.DeepEqual(got, []string{"conv1_weights"}) {
		t.Errorf("conv2d Filter = %v", got)
	}
	if a := conv.Attr("paddings"); a == nil || a.Type != AttrInts || !reflect.DeepEqual(a.Ints, []int32{1, 1}) {
		t.Errorf("conv2d paddings = %+v", a)
	}
	if a := conv.Attr("padding_algorithm"); a == nil || a.Type != AttrString || a.S != "EXPLICIT" {
		t.Errorf("conv2d padding_algorithm = %+v", a)
	}
	if a := b.Ops[2].Attr("is_test"); a == nil || a.Type != AttrBool || !a.B {
		t.Errorf("batch_norm is_test = %+v", a)
	}
	if a := b.Ops[2].Attr("epsilon"); a == nil || a.Type != AttrFloat || a.F != 1e-5 {
		t.Errorf("batch_norm epsilon = %+v", a)
	}
	if a := b.Ops[12].Attr("stop_axis"); a == nil || a.Type != AttrInt || a.I != -1 {
		t.Errorf("flatten stop_axis = %+v", a)
	}
	var x *Var
	for _, v := range b.Vars {
		if v.Name == "x" {
			x = v
		}
	}
	if x == nil || x.Type != LoDTensor || x.DType != FP32 || !reflect.DeepEqual(x.Dims, []int64{-1, 3, 8, 8}) || x.Persistable {
		t.Fatalf("var x = %+v", x)
	}
	wantP := []string{"bn1_mean", "bn1_offset", "bn1_scale", "bn1_variance", "conv1_weights", "dw_weights",
		"fc_bias", "fc_weights", "se_bias", "se_weights"}
	if got := p.Persistables(); !reflect.DeepEqual(got, wantP) {
		t.Fatalf("persistables %v", got)
	}
}

func TestDecodeParamsTiny(t *testing.T) {
	p, err := ReadProgram(filepath.Join(tinyDir, "inference.pdmodel"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ReadParams(filepath.Join(tinyDir, "inference.pdiparams"), p.Persistables())
	if err != nil {
		t.Fatal(err)
	}
	w := ts[4]
	if w.Name != "conv1_weights" || w.DType != FP32 || !reflect.DeepEqual(w.Dims, []int64{4, 3, 3, 3}) || len(w.Data) != 4*108 {
		t.Fatalf("conv1_weights: %s %v %v %d bytes", w.Name, w.DType, w.Dims, len(w.Data))
	}
	if ts[7].Name != "fc_weights" || !reflect.DeepEqual(ts[7].Dims, []int64{16, 5}) {
		t.Fatalf("fc_weights: %+v", ts[7].Dims)
	}
}

// stream builds one tensor of the .pdiparams layout by hand.
func stream(version uint32, lod [][]byte, desc []byte, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, version)
	binary.Write(&b, binary.LittleEndian, uint64(len(lod)))
	for _, l := range lod {
		binary.Write(&b, binary.LittleEndian, uint64(len(l)))
		b.Write(l)
	}
	binary.Write(&b, binary.LittleEndian, uint32(0))
	binary.Write(&b, binary.LittleEndian, int32(len(desc)))
	b.Write(desc)
	b.Write(data)
	return b.Bytes()
}

func TestDecodeParamsErrors(t *testing.T) {
	desc := []byte{0x08, 0x05, 0x10, 0x02, 0x10, 0x03} // FP32, dims 2, 3 (unpacked)
	good := stream(0, [][]byte{make([]byte, 16)}, desc, make([]byte, 24))
	ts, err := DecodeParams(good, []string{"w"})
	if err != nil || !reflect.DeepEqual(ts[0].Dims, []int64{2, 3}) || len(ts[0].Data) != 24 {
		t.Fatalf("good stream: %v %+v", err, ts)
	}
	packed := []byte{0x08, 0x03, 0x12, 0x02, 0x02, 0x03} // INT64, packed dims 2, 3
	if ts, err := DecodeParams(stream(0, nil, packed, make([]byte, 48)), []string{"i"}); err != nil || ts[0].DType != Int64 {
		t.Fatalf("packed dims: %v", err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated data", good[:len(good)-1], `variable "w" at byte 0: data of FP32 [2 3]: want 24 bytes, only 23 left`},
		{"trailing bytes", append(append([]byte{}, good...), 0), "1 bytes left after the 1 tensors"},
		{"version", stream(1, nil, desc, make([]byte, 24)), "version: 1, want 0"},
		{"huge lod", append([]byte{0, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 8)...), "lod level count"},
		{"desc size", stream(0, nil, bytes.Repeat([]byte{0}, 3), nil)[:21], "TensorDesc: want 3 bytes, only 1 left"},
		{"negative dim", stream(0, nil, []byte{0x08, 0x05, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, nil), "has a negative dimension"},
		{"not a dtype", stream(0, nil, []byte{0x08, 0x07}, nil), "data type LOD_TENSOR is not a tensor data type"},
		{"empty", nil, `variable "w" at byte 0: version: want 4 bytes, only 0 left`},
	} {
		_, err := DecodeParams(c.b, []string{"w"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestDecodeProgramErrors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(tinyDir, "inference.pdmodel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated", b[:len(b)-3], "field 4: unexpected EOF"},
		{"empty", nil, "no blocks"},
		{"group", []byte{0x0b}, "wire type 3"},
		{"ints as fixed32", []byte{0x0a, 0x0c, 0x22, 0x0a, 0x22, 0x08, 0x0a, 0x01, 'a', 0x35, 0, 0, 0, 0},
			`blocks[0].ops[0].attrs[0]."a": ints (field 6) has wire type 5`},
	} {
		_, err := DecodeProgram(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func FuzzDecodeProgram(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(tinyDir, "inference.pdmodel")); err == nil {
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeProgram(b)
		if err == nil {
			p.Persistables()
		}
	})
}

func FuzzDecodeParams(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(tinyDir, "inference.pdiparams")); err == nil {
		f.Add(b, 10)
	}
	f.Add(stream(0, [][]byte{{1, 2}}, []byte{0x08, 0x05, 0x10, 0x01}, make([]byte, 4)), 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		names := make([]string, n&15)
		for i := range names {
			names[i] = "v"
		}
		DecodeParams(b, names)
	})
}
