package onnxpb

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdata/external was saved by the onnx package with every tensor, the
// Constant's attribute tensor included, in weights.bin (scripts/ref/onnxpb_golden.py).
func TestReadFileExternalData(t *testing.T) {
	var ref struct {
		Values       map[string]any               `json:"values"`
		ExternalData map[string]map[string]string `json:"external_data"`
	}
	readJSON(t, "testdata/external/values.json", &ref)

	raw, err := os.ReadFile("testdata/external/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	ext := 0
	plain.EachTensor(func(tn *Tensor) bool {
		if tn.DataLocation == LocationExternal {
			ext++
			got := map[string]string{}
			for _, e := range tn.ExternalData {
				got[e.Key] = e.Value
			}
			if !reflect.DeepEqual(got, ref.ExternalData[tn.Name]) {
				t.Errorf("tensor %q external_data %v, onnx wrote %v", tn.Name, got, ref.ExternalData[tn.Name])
			}
			if _, err := tn.Float32s(); err == nil && tn.DataType == Float {
				t.Errorf("tensor %q: Float32s of unloaded external data gave no error", tn.Name)
			}
		}
		return true
	})
	if ext != len(ref.ExternalData) {
		t.Errorf("Decode: %d external tensors, want %d", ext, len(ref.ExternalData))
	}

	m, err := ReadFile("testdata/external/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	m.EachTensor(func(tn *Tensor) bool {
		if tn.DataLocation != LocationDefault || tn.ExternalData != nil {
			t.Errorf("tensor %q still external after ReadFile", tn.Name)
		}
		var v any
		var err error
		switch tn.DataType {
		case Float:
			v, err = tn.Float32s()
		case Int64:
			v, err = tn.Int64s()
		case Int32:
			v, err = tn.Int32s()
		}
		if err != nil {
			t.Errorf("tensor %q: %v", tn.Name, err)
		}
		got[tn.Name] = v
		return true
	})
	want := map[string]any{
		"w":      []float32{-0.5, -0.25, 0, 0.25, 0.5, 0.75},
		"b":      []int64{1, -2, 1 << 40},
		"c":      []float32{0.5, 1.5, -2.5, 3.25},
		"inline": []int32{7, -8},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tensor values %v, want %v (onnx read %v)", got, want, ref.Values)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("data.bin", make([]byte, 16))
	model := func(entries ...StringStringEntry) []byte {
		m := &Model{Graph: &Graph{Initializer: []*Tensor{{Name: "w", DataType: Float, Dims: []int64{2},
			DataLocation: LocationExternal, ExternalData: entries}}}}
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	loc := func(s string) StringStringEntry { return StringStringEntry{"location", s} }
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"missing file", nil, "no such file"},
		{"truncated", h("3a 05 00"), "truncated.onnx: field 7: truncated length-delimited value"},
		{"no location", model(), `tensor "w": external data has no "location"`},
		{"escape", model(loc("../data.bin")), `location "../data.bin": not a path inside the model directory`},
		{"absolute", model(loc(filepath.Join(dir, "data.bin"))), "not a path inside the model directory"},
		{"absent data file", model(loc("nope.bin")), "nope.bin: no such file"},
		{"past end", model(loc("data.bin"), StringStringEntry{"offset", "8"}, StringStringEntry{"length", "12"}),
			"offset 8 + length 12 beyond the file's 16 bytes"},
		{"bad offset", model(loc("data.bin"), StringStringEntry{"offset", "x"}), `external data offset "x": not a byte count`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "missing.onnx")
			if tt.file != nil {
				path = write(strings.ReplaceAll(tt.name, " ", "_")+".onnx", tt.file)
			}
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "onnx: ") {
				t.Errorf("ReadFile error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// A good one, with offset and length, reads exactly those bytes.
	data := []byte{0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 9, 9}
	write("good.bin", data)
	p := write("good.onnx", model(loc("good.bin"), StringStringEntry{"offset", "4"}, StringStringEntry{"length", "8"}))
	m, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := m.Graph.Initializer[0].Float32s(); err != nil || !reflect.DeepEqual(v, []float32{1, 2}) {
		t.Errorf("Float32s = %v, %v; want [1 2]", v, err)
	}
	var e *Error
	if _, err := ReadFile(filepath.Join(dir, "truncated.onnx")); !errors.As(err, &e) || e.File == "" {
		t.Errorf("ReadFile decode error %v: want an *Error naming the file", err)
	}
}
