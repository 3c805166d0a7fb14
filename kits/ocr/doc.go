// Package ocr is the OCR kit (PaddleOCR's job): the PP-OCRv4 system — DB text
// detection, 0/180 angle classification, SVTR_LCNet/CTC recognition — run exactly as
// PaddleOCR 2.x's tools/infer/predict_system.py does (default profile v2), or with
// PaddleOCR 3.x's detection limits (profile v3), on ONNX models through core/runtime.
//
// Where things are:
//
//	kit.go      the kit and its commands
//	profile.go  the v2 and v3 constant sets
//	det.go      DetResizeSize, DetPreprocess, DBPostprocess, FilterBoxes, Detect
//	cls.go      ClsBatchInput, Classify (0/180)
//	rec.go      LoadDict, RecBatchInput, CTCDecode, Recognize
//	system.go   Model (what a network must do), System: Predict, PredictLine
//	load.go     LoadSystem: models from the hub store, files or export folders
//	predict.go  `paddle ocr predict`: inputs, PDFs, output formats, errors
//	draw.go     --draw: annotated images
//
// The geometry (contours, minimum-area rectangles, polygon offsetting, resizing,
// perspective crops) comes from core/imgproc. testdata/golden holds the reference runs
// of scripts/ref/ocr_reference.py on testdata/images.
package ocr
