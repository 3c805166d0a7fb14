package ocr

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"

	"paddle/core/hub"
	pio "paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
)

// The English recogniser's own weights (docs/ocr.md, "Languages"): PP-OCRv4's
// recognition neck (SVTR) and CTC head trained by this project for en_dict +
// space on PP-OCRv4's frozen backbone (scripts/train_rec_en_neck.sh). They
// ship inside the binary as a store entry of their own, listed and
// sha256-checked like the pulled files; the rest of the network comes from
// the ppocrv4 entry.
const (
	englishModel = "ppocrv4-en"
	englishFile  = "en_PP-OCRv4_rec_neck.safetensors"
)

// EnglishStretch is the English recogniser's horizontal stretch
// (RecShape.Stretch) for whole images read as one line (--det=false): each
// is read 1.3 times wider than PP-OCRv4's resize makes it, so the CTC gets
// 1.3 times the time steps per character. Without it, a rotated or loosely
// cut line leaves its characters too few 8-pixel steps at 48 px height for
// doubled letters, which need a blank step between them ("atention",
// "mitakes"). Crops cut by the detector (rectified boxes whose height the
// text fills) are read unstretched: stretched, they gained nothing and got
// spurious spaces. 1.3 was chosen on the dev line sets (docs/ocr.md).
const EnglishStretch = 1.3

//go:embed models/en_PP-OCRv4_rec_neck.safetensors
var englishWeights []byte

func init() {
	hub.Register(hub.Model{
		Name:        englishModel,
		Description: "English recogniser trained by this project (--lang en): neck and CTC head for en_dict + space on ch_PP-OCRv4_rec's backbone (needs ppocrv4)",
		Files:       []hub.File{{Name: englishFile, SHA256: "4bc8cc3b549ebd35f8a59cf0e5587a2d955c1c9096b646f84388de142f46672b", Size: 2347304}},
		Embedded:    map[string][]byte{englishFile: englishWeights},
	})
}

// applyEnglishWeights gives the sliced English recogniser m the trained
// tensors of the ppocrv4-en entry (ApplyRecWeights).
func applyEnglishWeights(m *onnxpb.Model) error {
	b, err := hub.EmbeddedFile(englishModel, englishFile)
	if err != nil {
		return err
	}
	return ApplyRecWeights(m, b, englishFile)
}

// ApplyRecWeights gives the recogniser m the tensors of the safetensors file
// b (called name in errors), by their ONNX names and shapes, as
// scripts/ocr_en_neck writes them; a head weight of f times m's classes
// upsamples m's head first (UpsampleRecHead).
func ApplyRecWeights(m *onnxpb.Model, b []byte, name string) error {
	ts, _, err := pio.DecodeSafetensors(bytes.NewReader(b), int64(len(b)), name)
	if err != nil {
		return err
	}
	h, err := recHeadOf(m)
	if err != nil {
		return err
	}
	for _, nt := range ts { // a head weight of [D, f·C]: trained with f steps per column
		if sh := nt.T.Shape(); nt.Name == h.w.Name && len(sh) == 2 && sh[0] == h.D && sh[1] != h.C && sh[1]%h.C == 0 {
			if err := UpsampleRecHead(m, sh[1]/h.C); err != nil {
				return err
			}
		}
	}
	for _, nt := range ts {
		dst, err := constTensor(m.Graph, nt.Name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		src := onnx.TensorProto(nt.Name, nt.T)
		if src.DataType != onnxpb.Float || !slices.Equal(src.Dims, dst.Dims) {
			return fmt.Errorf("%s: %s is %s%v, the model's is float32%v", name, nt.Name, nt.T.DType(), src.Dims, dst.Dims)
		}
		dst.DataType, dst.RawData, dst.FloatData = src.DataType, src.RawData, nil
	}
	return nil
}

// englishSHA256 is the embedded weights' sha256, for the keys of files made from them.
func englishSHA256() string {
	m, err := hub.Lookup(englishModel)
	if err != nil || len(m.Files) == 0 {
		return ""
	}
	return m.Files[0].SHA256
}
