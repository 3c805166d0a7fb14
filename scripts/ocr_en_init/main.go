// Command ocr_en_init writes the starting point of the English recogniser's
// fine-tuning (docs/ocr.md, "Languages"): PP-OCRv4's recogniser from the model
// store with its CTC head cut to configs/ocr/en_dict.txt + space
// (ocr.EnglishRecBase: what `ocr predict --lang en` runs before its trained neck and head),
// or with -trained the model `--lang en` runs (ocr.EnglishRecModel: the embedded neck and
// head applied, or with -from those of a file), to train further from;
// -upsample 2 gives its head two output steps per feature step
// (ocr.UpsampleRecHead).
//
//	go run ./scripts/ocr_en_init -o en_PP-OCRv4_rec_init.onnx
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"paddle/core/hub"
	"paddle/core/onnx/onnxpb"
	"paddle/kits/ocr"
)

func main() {
	out := flag.String("o", "en_PP-OCRv4_rec_init.onnx", "output ONNX file")
	trained := flag.Bool("trained", false, "write the shipped English recogniser (trained neck and head), not the sliced base")
	upsample := flag.Int("upsample", 1, "output steps per feature step (ocr.UpsampleRecHead: the head repeated, to train further)")
	from := flag.String("from", "", "the trained weights to start from (a safetensors file ocr_en_neck -delta wrote) instead of the embedded ones")
	flag.Parse()
	if err := run(*out, *from, *trained, *upsample); err != nil {
		fmt.Fprintln(os.Stderr, "ocr_en_init:", err)
		os.Exit(1)
	}
}

func run(out, from string, trained bool, upsample int) error {
	m, chars, err := start(from, trained)
	if err != nil {
		return err
	}
	if upsample > 1 {
		if err := ocr.UpsampleRecHead(m, upsample); err != nil {
			return err
		}
	}
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes, %d classes\n", out, len(b), len(chars))
	return nil
}

// start returns the model to write: the store's sliced English recogniser,
// with the embedded trained weights (trained) or those of the file from.
func start(from string, trained bool) (*onnxpb.Model, []string, error) {
	dir, err := hub.Ensure(context.Background(), "ppocrv4", false)
	if err != nil {
		return nil, nil, err
	}
	if from == "" && trained {
		return ocr.EnglishRecModel(dir)
	}
	m, chars, err := ocr.EnglishRecBase(dir)
	if err != nil || from == "" {
		return m, chars, err
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return nil, nil, err
	}
	return m, chars, ocr.ApplyRecWeights(m, b, from)
}
