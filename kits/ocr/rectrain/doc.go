// Package rectrain is text-recognition training for the OCR kit (PaddleOCR's
// rec configs): CTC recognisers trained, evaluated, exported and run from
// configs/ocr/rec_*.yaml, and PP-OCRv4's own recogniser fine-tuned.
//
// Where things are:
//
//	config.go      the PaddleOCR sections (the schema) and component options
//	model.go       CRNN (backbone → Im2Seq → BiLSTM → CTC head), MiniVGG, buildModel
//	svtr.go        SVTRNet, the SVTR-tiny style backbone (conv stem, Conv/Global mixing blocks)
//	imported.go    Backbone ONNXModel: an imported rec network (PP-OCRv4) made trainable
//	runner.go      train / eval / predict over core/workflow, CTC loss, greedy decoding
//	export.go      export: model.onnx + PaddleX-style inference.yaml
//	dict.go labels.go transforms.go recaug.go metric.go   dictionary, label files, transforms, RecMetric
//	bench.go       NewRecognizer / CTCLoss for scripts/bench/ocr_rec_step
package rectrain
