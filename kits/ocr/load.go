package ocr

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"paddle/core/cli/iostreams"
	"paddle/core/graph"
	"paddle/core/hub"
	"paddle/core/onnx"
	"paddle/core/runtime"
)

// The ppocrv4 store entry's file names.
const (
	storeModel = "ppocrv4"
	storeDet   = "ch_PP-OCRv4_det_infer.onnx"
	storeRec   = "ch_PP-OCRv4_rec_infer.onnx"
	storeCls   = "ch_ppocr_mobile_v2.0_cls_infer.onnx"
	storeDict  = "ppocr_keys_v1.txt"
)

// Sources says where the system's models come from; an empty path means the ppocrv4
// model of the store.
type Sources struct {
	Det, Rec, Cls string // .onnx file or export folder (model.onnx + inference.yaml)
	Dict          string // rec dictionary, one entry per line
	Lang          string // LangCh ("" too) or LangEn: the recogniser and dictionary when Rec/Dict are empty
	UseDet        bool
	UseCls        bool
	Offline       bool // never pull the store model
	Threads       int  // kernel threads (0: leave as is)
	// Precision is PrecisionFP32 ("" too) or PrecisionInt8: the store's
	// models quantized on first use and cached beside them (int8Plans says
	// which; models given by path are loaded as they are).
	Precision string
	// Progress, when not nil, shows the calibration of an int8 model.
	Progress func(total int, desc string) iostreams.Progress
}

// LoadSystem loads the models named by src (pulling the store model on first use
// unless src.Offline) and returns a System with profile p.
func LoadSystem(ctx context.Context, src Sources, p Profile) (*System, error) {
	need := (src.UseDet && src.Det == "") || src.Rec == "" || (src.UseCls && src.Cls == "")
	english := src.Lang == LangEn
	if src.Dict == "" && dictFromExport(src.Rec) == nil && !english {
		need = true
	}
	var store string
	if need {
		if _, ok := hub.Path(storeModel); !ok && !src.Offline {
			slog.Info("pulling the ppocrv4 models into the model store (first use)", "dir", hub.Dir(storeModel))
		}
		var err error
		if store, err = hub.Ensure(ctx, storeModel, src.Offline); err != nil {
			return nil, err
		}
	}
	s := &System{Profile: p}
	var err error
	int8 := src.Precision == PrecisionInt8
	// pick returns the file to load: the given one, else the store's, or
	// under int8 its cached quantization when the plan quantizes it.
	pick := func(given, file, kind string) (string, error) {
		if given != "" {
			return given, nil
		}
		path := filepath.Join(store, file)
		if !int8 {
			return path, nil
		}
		q, err := int8Model(store, kind, file, storeSHA256(file), func() (*graph.Graph, error) { return onnx.ReadFile(path) }, p, src.Progress)
		if err != nil || q == "" {
			return path, err
		}
		return q, nil
	}
	var path string
	if s.RecIn, err = recShapeFromExport(src.Rec); err != nil {
		return nil, fmt.Errorf("recognition model: %w", err)
	}
	if src.UseDet {
		if path, err = pick(src.Det, storeDet, "det"); err != nil {
			return nil, err
		}
		if s.Det, err = loadModel("detection", path, src.Threads); err != nil {
			return nil, err
		}
		if s.Profile, err = detExportPost(src.Det, s.Profile); err != nil {
			return nil, err
		}
	}
	if english && src.Rec == "" {
		if s.Rec, s.Chars, s.RecSteps, err = loadEnglishRec(store, src.Threads, int8, p, src.Progress); err != nil {
			return nil, err
		}
		s.LineStretch = EnglishStretch
	} else {
		if path, err = pick(src.Rec, storeRec, "rec"); err != nil {
			return nil, err
		}
		if s.Rec, err = loadModel("recognition", path, src.Threads); err != nil {
			return nil, err
		}
	}
	if src.UseCls {
		if path, err = pick(src.Cls, storeCls, "cls"); err != nil {
			return nil, err
		}
		if s.Cls, err = loadModel("angle classifier", path, src.Threads); err != nil {
			return nil, err
		}
	}
	switch {
	case src.Dict != "":
		s.Chars, err = LoadDict(src.Dict, true)
	case dictFromExport(src.Rec) != nil:
		s.Chars = dictFromExport(src.Rec)
	case english:
		if s.Chars == nil {
			s.Chars, err = EnglishChars()
		}
	default:
		s.Chars, err = LoadDict(filepath.Join(store, storeDict), true)
	}
	if err != nil {
		return nil, fmt.Errorf("rec dictionary: %w", err)
	}
	return s, nil
}

// storeSHA256 returns the manifest's sha256 of a ppocrv4 file (the key of
// what is derived from it).
func storeSHA256(file string) string {
	m, _ := hub.Lookup(storeModel)
	for _, f := range m.Files {
		if f.Name == file {
			return f.SHA256
		}
	}
	return ""
}

// modelFile resolves a model file or an export folder (model.onnx, else its
// only .onnx, else PaddleX's inference.json or inference.pdmodel).
func modelFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return path, nil
	}
	if p := filepath.Join(path, "model.onnx"); fileExists(p) {
		return p, nil
	}
	m, _ := filepath.Glob(filepath.Join(path, "*.onnx"))
	if len(m) == 0 {
		for _, n := range []string{"inference.json", "inference.pdmodel"} {
			if p := filepath.Join(path, n); fileExists(p) {
				return p, nil
			}
		}
	}
	if len(m) != 1 {
		return "", fmt.Errorf("%s: want model.onnx, a single .onnx file or PaddleX's inference.json / inference.pdmodel in the folder, found %d .onnx files", path, len(m))
	}
	return m[0], nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func loadModel(what, path string, threads int) (Model, error) {
	file, err := modelFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s model: %w", what, err)
	}
	p, err := runtime.Load(file, runtime.Options{Threads: threads})
	if err != nil {
		return nil, fmt.Errorf("%s model %s: %w", what, file, err)
	}
	return p, nil
}

// dictFromExport returns the CTC classes of an export folder's inference.yaml/.yml
// (PostProcess.character_dict, as PaddleX writes it, then a space class unless
// use_space_char is false), or nil.
func dictFromExport(dir string) []string {
	doc, ok := readRecExport(dir)
	if !ok || len(doc.PostProcess.CharacterDict) == 0 {
		return nil
	}
	chars := append([]string{"blank"}, doc.PostProcess.CharacterDict...)
	if doc.PostProcess.UseSpaceChar == nil || *doc.PostProcess.UseSpaceChar {
		chars = append(chars, " ")
	}
	return chars
}

// recExportDoc is what the system reads of a rec export's inference.yaml.
type recExportDoc struct {
	PreProcess struct {
		TransformOps []map[string]struct {
			ImageShape []int `yaml:"image_shape"`
		} `yaml:"transform_ops"`
	} `yaml:"PreProcess"`
	PostProcess struct {
		CharacterDict []string `yaml:"character_dict"`
		UseSpaceChar  *bool    `yaml:"use_space_char"`
	} `yaml:"PostProcess"`
}

// readRecExport parses dir's inference.yaml (or .yml); false when dir is not an
// export folder or the file does not parse.
func readRecExport(dir string) (recExportDoc, bool) {
	var doc recExportDoc
	if dir == "" {
		return doc, false
	}
	for _, name := range []string{"inference.yaml", "inference.yml"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		return doc, yaml.Unmarshal(b, &doc) == nil
	}
	return doc, false
}

// recShapeFromExport returns the input geometry of a rec export folder: the
// RecResizeImg image_shape [3, H, W] of its inference.yaml. Without one (a bare
// .onnx file, or PaddleX's PP-OCRv4 files) it is the zero RecShape, PP-OCRv4's
// 48×320; an image_shape that is not [3, H, W] is an error.
func recShapeFromExport(dir string) (RecShape, error) {
	doc, ok := readRecExport(dir)
	if !ok {
		return RecShape{}, nil
	}
	for _, op := range doc.PreProcess.TransformOps {
		o, ok := op["RecResizeImg"]
		if !ok || o.ImageShape == nil {
			continue
		}
		sh := o.ImageShape
		if len(sh) != 3 || sh[0] != 3 || sh[1] <= 0 || sh[2] <= 0 {
			return RecShape{}, fmt.Errorf("%s: RecResizeImg.image_shape %v: want [3, H, W]", dir, sh)
		}
		return RecShape{H: sh[1], W: sh[2]}, nil
	}
	return RecShape{}, nil
}
