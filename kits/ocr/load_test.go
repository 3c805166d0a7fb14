package ocr

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestModelFileAndExportDict(t *testing.T) {
	dir := t.TempDir()
	if _, err := modelFile(dir); err == nil || !strings.Contains(err.Error(), "found 0") {
		t.Errorf("empty folder: %v", err)
	}
	one := filepath.Join(dir, "rec.onnx")
	os.WriteFile(one, []byte("x"), 0o644)
	if p, err := modelFile(dir); err != nil || p != one {
		t.Errorf("single .onnx: %q %v", p, err)
	}
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("x"), 0o644)
	if p, err := modelFile(dir); err != nil || p != filepath.Join(dir, "model.onnx") {
		t.Errorf("model.onnx first: %q %v", p, err)
	}
	if p, err := modelFile(one); err != nil || p != one {
		t.Errorf("file: %q %v", p, err)
	}
	if dictFromExport(dir) != nil {
		t.Error("dictionary without inference.yaml")
	}
	yml := "Global:\n  model_name: PP-OCRv4_mobile_rec\nPostProcess:\n  name: CTCLabelDecode\n  character_dict:\n  - a\n  - b\n  - '1'\n"
	os.WriteFile(filepath.Join(dir, "inference.yml"), []byte(yml), 0o644)
	if got, want := dictFromExport(dir), []string{"blank", "a", "b", "1", " "}; !reflect.DeepEqual(got, want) {
		t.Errorf("export dictionary %q, want %q", got, want)
	}
}

func TestLoadSystemOfflineHint(t *testing.T) {
	t.Setenv("PADDLE_CACHE", t.TempDir())
	_, err := LoadSystem(context.Background(), Sources{UseDet: true, Offline: true}, ProfileV2())
	if err == nil || !strings.Contains(err.Error(), "run `paddle model pull ppocrv4`") {
		t.Errorf("err = %v", err)
	}
}
