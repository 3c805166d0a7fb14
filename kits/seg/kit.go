// Package seg is the semantic-segmentation kit (PaddleSeg's job): PaddleSeg
// configs (`_base_`, components by `type:`), PP-LiteSeg-style and U-Net
// models, cross-entropy / OHEM / Dice losses, PaddleSeg augmentations,
// training, evaluation with PaddleSeg's exact metrics, predict (label PNGs,
// overlays), ONNX export, and a synthetic data set (`seg synth`).
//
// Where things are:
//
//	kit.go        the kit and its commands (predict with --draw, eval with --weights)
//	config.go     the PaddleSeg config sections (the schema)
//	models.go     PP-LiteSeg (SPPM, UAFM, heads; STDC backbone from core/zoo)
//	unet.go       U-Net
//	loss.go       CrossEntropyLoss, OhemCrossEntropyLoss, DiceLoss, MixedLoss
//	transforms.go ResizeStepScaling, RandomPaddingCrop, flip, RandomDistort, Resize, Normalize
//	dataset.go    splits from file lists, batches
//	infer.go      whole-image and sliding-window inference, argmax
//	runner.go     train / eval over core/workflow
//	predict.go    predict: label PNGs, overlays, jsonl with per-class pixel counts
//	serve.go      `paddle serve seg` (the kit's Serve hook; label map as a data: URL)
//	export.go     export (model.onnx + inference.yaml) and predict --model
//	label.go filelist.go   label PNGs, file lists, labels.txt
//	evalcmd.go    `paddle seg eval` (--pred/--label folders, or a checkpoint)
//	synthcmd.go   `paddle seg synth` (core/synth)
//
// The metrics themselves live in core/metric/seg.
package seg

import (
	"context"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/predict"
	"paddle/core/config"
	"paddle/core/kit"
)

// Kit returns the seg kit.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: &kit.Kit{
			Name:          "seg",
			Short:         "Semantic segmentation (PaddleSeg): PP-LiteSeg, U-Net; mIoU/Acc/Kappa/Dice as PaddleSeg",
			Schema:        Schema(),
			Build:         build,
			PredictRecord: PredictRecord,
		},
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{NewCmdEval(f, nil), newCmdPredict(f, k), NewCmdSynth(f, nil)}
		},
		Serve: Serve, // paddle serve seg
	}
}

// newCmdPredict is the shared predict verb plus --draw (colour overlays).
func newCmdPredict(f *cmdutil.Factory, k *kit.Kit) *cobra.Command {
	var draw bool
	var cmd *cobra.Command
	cmd = predict.NewCmdPredict(f, k, func(o *predict.Options) error {
		return predictRun(cmd.Context(), o, draw)
	})
	cmd.Flags().BoolVar(&draw, "draw", false, "also write colour overlays (added_prediction/<name>.png)")
	cmd.Long = "Segments images: writes pseudo_color_prediction/<name>.png (palette PNG of class indices,\n" +
		"scorable with `paddle seg eval --pred`) under --output, with --draw also added_prediction/<name>.png,\n" +
		"and prints one record per image with the per-class pixel counts (--format jsonl|json|text).\n\n" +
		predict.RecordHelp(PredictRecord)
	return cmd
}

func predictRun(ctx context.Context, o *predict.Options, draw bool) error {
	cfg, err := cmdutil.ModelConfig(o.Factory, o.Weights, o.Model)
	if err != nil {
		return err
	}
	w, err := build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	r := w.(*runner)
	r.draw = draw
	return r.Predict(ctx, o.Env(cfg), o.Inputs)
}

// evalModelRun evaluates a checkpoint on the config's val_dataset and
// prints the report `seg eval --pred --label` prints.
func evalModelRun(ctx context.Context, opts *EvalOptions) error {
	cfg, err := cmdutil.ModelConfig(opts.Factory, opts.Weights, "")
	if err != nil {
		return err
	}
	w, err := build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	r := w.(*runner)
	res, n, err := r.evalResult(ctx, opts.Weights)
	if err != nil {
		return err
	}
	return writeEval(opts.Factory.IOStreams.Out, opts.Factory.Settings.Format, res, n, r.labelNames())
}
