package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/quant"
	"paddle/core/runtime"
)

// Exporter is the optional Runner capability behind `paddle <kit> export`:
// write the model of checkpoint env.Weights to the export directory dir
// (DESIGN §7), usually with WriteExport.
type Exporter interface {
	Export(ctx context.Context, env Env, dir string) error
}

// Calibrator is the optional Runner capability behind `paddle <kit> export
// --quantize`: it turns the calibration inputs named by calib (a directory
// or list, as quant.Files reads them, or the kit's own kind of input) into
// inputs of the exported model in dir, preprocessed as `predict --model
// dir` preprocesses its inputs, and says how many there are (at most
// count; count 0: all).
type Calibrator interface {
	CalibrationFeed(dir, calib string, count int) (quant.Feed, int, error)
}

// The files of an export directory.
const (
	ExportModelFile     = "model.onnx"
	ExportInferenceFile = "inference.yaml"
	ExportConfigFile    = "config.yaml" // the resolved training config
)

// Inference is an export's inference.yaml, in PaddleX's inference.yml
// layout plus the model's inputs:
//
//	Global: {model_name: PPLCNet}
//	PreProcess: {transform_ops: [{ResizeImage: {size: [8, 8]}}, ...]}
//	PostProcess: {name: Topk, topk: 5, label_list: [...]}
//	Inputs: [{name: x, shape: [-1, 1, 8, 8], dtype: float32}]
//
// PreProcess and PostProcess are the kit's: it writes its own structs and
// reads them back with ReadExport's config.
type Inference struct {
	Global      InferenceGlobal  `yaml:"Global"`
	PreProcess  any              `yaml:"PreProcess"`
	PostProcess any              `yaml:"PostProcess"`
	Inputs      []InferenceInput `yaml:"Inputs"`
}

// InferenceGlobal is inference.yaml's Global section.
type InferenceGlobal struct {
	ModelName string `yaml:"model_name"`
}

// InferenceInput describes one model input; -1 marks a dynamic dimension.
type InferenceInput struct {
	Name  string `yaml:"name"`
	Shape []int  `yaml:"shape,flow"`
	DType string `yaml:"dtype"`
}

// InputsOf lists g's inputs as inference.yaml describes them.
func InputsOf(g *graph.Graph) []InferenceInput {
	var out []InferenceInput
	for _, v := range g.Inputs {
		out = append(out, InferenceInput{Name: v.Name, Shape: append([]int(nil), v.Meta.Shape...), DType: v.Meta.DType.String()})
	}
	return out
}

// WriteExport writes an export directory: g as model.onnx, inf as
// inference.yaml (its Inputs filled from g when empty) and cfg, the
// resolved config the model was trained with, as config.yaml. The files are
// written beside their places first and renamed in only when all are
// written (io.WriteFilesAtomic): a full disk or a read-only folder leaves an
// earlier export as it was, and the error says why.
func WriteExport(dir string, g *graph.Graph, inf *Inference, cfg *config.Config) error {
	m, err := onnx.Export(g)
	if err != nil {
		return err
	}
	model, err := m.Marshal()
	if err != nil {
		return fmt.Errorf("onnx export: %w", err)
	}
	if inf.Inputs == nil {
		inf.Inputs = InputsOf(g)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(inf); err != nil {
		return fmt.Errorf("export: %s: %w", ExportInferenceFile, err)
	}
	files := []io.File{{Name: ExportModelFile, Data: model, Perm: 0o644}, {Name: ExportInferenceFile, Data: buf.Bytes(), Perm: 0o644}}
	if cfg != nil {
		y, err := cfg.YAML()
		if err != nil {
			return err
		}
		files = append(files, io.File{Name: ExportConfigFile, Data: y, Perm: 0o644})
	}
	if err := io.WriteFilesAtomic(dir, files); err != nil {
		left := "nothing was written"
		if _, serr := os.Stat(filepath.Join(dir, ExportModelFile)); serr == nil {
			left = "the export already in " + dir + " is unchanged"
		}
		if why := io.Why(err); why != "" {
			return fmt.Errorf("export %s: %w (%s; %s)", dir, err, why, left)
		}
		return fmt.Errorf("export %s: %w (%s)", dir, err, left)
	}
	return nil
}

// ExportFiles returns the model and inference-config paths of export
// directory dir: model.onnx and inference.yaml as `paddle <kit> export`
// writes them, or, where those are absent, inference.onnx and
// inference.yml as PaddleX exports converted by paddle2onnx name them, or
// PaddleX's own inference.json (Paddle 3 PIR) or inference.pdmodel, which
// runtime.Load reads with the inference.pdiparams beside them.
func ExportFiles(dir string) (model, inference string) {
	pick := func(names ...string) string {
		for _, n := range names {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && !fi.IsDir() {
				return filepath.Join(dir, n)
			}
		}
		return filepath.Join(dir, names[0])
	}
	return pick(ExportModelFile, "inference.onnx", "inference.json", "inference.pdmodel"), pick(ExportInferenceFile, "inference.yml")
}

// ReadInference reads export directory dir's inference.yaml (ExportFiles)
// as a config checked against schema (nil: not checked), without loading
// the model.
func ReadInference(dir string, schema *config.Schema) (*config.Config, error) {
	_, file := ExportFiles(dir)
	b, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("--model %s: no %s (or inference.yml): want an export directory (paddle <kit> export, or PaddleX's paddle2onnx folder)", dir, ExportInferenceFile)
		}
		return nil, err
	}
	cfg, err := config.Parse("", file, b)
	if err != nil {
		return nil, err
	}
	if schema != nil {
		if err := cfg.Validate(schema); err != nil {
			return nil, err
		}
		cfg.Schema = schema
	}
	return cfg, nil
}

// ReadExport loads an export directory for `predict --model`: model.onnx
// in a runtime Predictor (default passes) and inference.yaml as a config
// checked against schema (the kit's PreProcess/PostProcess types, with
// Inputs as []InferenceInput), so the kit decodes its sections strictly.
func ReadExport(dir string, schema *config.Schema, opts runtime.Options) (*runtime.Predictor, *config.Config, error) {
	cfg, err := ReadInference(dir, schema)
	if err != nil {
		return nil, nil, err
	}
	model, _ := ExportFiles(dir)
	p, err := runtime.Load(model, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("--model %s: %w", dir, err)
	}
	return p, cfg, nil
}
