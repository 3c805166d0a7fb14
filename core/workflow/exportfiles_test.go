package workflow

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExportFilesFindsPaddleXFolders(t *testing.T) {
	tests := []struct {
		name            string
		files           []string
		model, inferenc string
	}{
		{"paddle export", []string{"model.onnx", "inference.yaml"}, "model.onnx", "inference.yaml"},
		{"paddle2onnx of a PaddleX export", []string{"inference.onnx", "inference.yml", "inference.pdiparams"}, "inference.onnx", "inference.yml"},
		{"PaddleX Paddle 3 export", []string{"inference.json", "inference.yml", "inference.pdiparams"}, "inference.json", "inference.yml"},
		{"PaddleX Paddle 2 export", []string{"inference.pdmodel", "inference.yml", "inference.pdiparams"}, "inference.pdmodel", "inference.yml"},
		{"converted and not: the ONNX file first", []string{"inference.onnx", "inference.json", "inference.yml"}, "inference.onnx", "inference.yml"},
		{"both: ours first", []string{"model.onnx", "inference.onnx", "inference.yaml", "inference.yml"}, "model.onnx", "inference.yaml"},
		{"empty: the names to report", nil, "model.onnx", "inference.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m, inf := ExportFiles(dir)
			if m != filepath.Join(dir, tt.model) || inf != filepath.Join(dir, tt.inferenc) {
				t.Fatalf("ExportFiles = %s, %s; want %s, %s", filepath.Base(m), filepath.Base(inf), tt.model, tt.inferenc)
			}
		})
	}
}
