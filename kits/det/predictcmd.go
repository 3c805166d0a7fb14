package det

import (
	"context"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/predict"
	"paddle/core/config"
	"paddle/core/kit"

	"github.com/spf13/cobra"
)

// PredictOptions are the inputs of `paddle det predict`.
type PredictOptions struct {
	*predict.Options
	Draw string // --draw: folder for the images with boxes drawn
}

// newCmdPredict is the shared predict verb plus --draw DIR.
func newCmdPredict(f *cmdutil.Factory, k *kit.Kit) *cobra.Command {
	opts := &PredictOptions{}
	cmd := predict.NewCmdPredict(f, k, func(o *predict.Options) error {
		opts.Options = o
		return predictRun(opts)
	})
	cmd.Example += "\n  paddle det predict --model inference/picodet img.jpg --draw vis/"
	cmd.Flags().StringVar(&opts.Draw, "draw", "", "folder to write each image with its boxes, labels and scores drawn (PNG)")
	return cmd
}

// predictRun loads the checkpoint's (or export's) config unless -c is given
// and runs Predict.
func predictRun(opts *PredictOptions) error {
	r, cfg, err := runnerFor(opts.Factory, opts.Weights, opts.Model)
	if err != nil {
		return err
	}
	env := opts.Env(cfg)
	if opts.Draw != "" {
		env.Output = opts.Draw
	}
	return r.Predict(context.Background(), env, opts.Inputs)
}

// runnerFor builds the runner of -c, else of the config saved with the
// checkpoint weights (or the export model).
func runnerFor(f *cmdutil.Factory, weights, model string) (*runner, *config.Config, error) {
	cfg, err := cmdutil.ModelConfig(f, weights, model)
	if err != nil {
		return nil, nil, err
	}
	r, err := build(cfg)
	if err != nil {
		return nil, nil, config.Usage(err)
	}
	return r.(*runner), cfg, nil
}
