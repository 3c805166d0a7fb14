// Package workflow is the engine every kit shares: the train, eval and
// predict drivers, checkpoints with exact resume, best-model tracking, seeds,
// logging, progress and Ctrl-C handling. It never knows a model's name: a kit
// hands it a Task (closures over its own types) and gets the same behaviour
// as every other kit.
//
// Where things are:
//
//	task.go        Task, Schedule, Env, Runner: the contract with kits
//	export.go      Exporter (export verb), export directories (model.onnx + inference.yaml)
//	train.go       the training loop (accumulation, clipping, logging, eval, saving)
//	checkpoint.go  save/load of model + optimizer + state.yaml + config.yaml
//	inputs.go      predict inputs: files, folders, globs, "-" (paths on stdin)
//	batch.go       run per-input work in order with per-item errors
package workflow
