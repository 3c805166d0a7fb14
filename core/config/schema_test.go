package config_test

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"paddle/core/config"
)

// The fixture schemas: a PaddleOCR-like kit ("fixture", `name:`), a
// PaddleDetection-like one ("det", class-keyed) and a PaddleSeg-like one
// ("seg", `type:`). Their configs live in testdata/<kit>/.

type globalOpts struct {
	EpochNum   int            `yaml:"epoch_num"`
	LR         float64        `yaml:"lr"`
	Seed       int            `yaml:"seed"`
	Tags       []string       `yaml:"tags"`
	Debug      bool           `yaml:"debug"`
	ImageShape []int          `yaml:"image_shape"`
	Extra      map[string]any `yaml:"extra"`
}

type archOpts struct {
	ModelType string           `yaml:"model_type"`
	Backbone  config.Component `yaml:"Backbone"`
	Neck      config.Component `yaml:"Neck"`
	Head      config.Component `yaml:"Head"`
}

type mobileNetV3Opts struct {
	Scale float64 `yaml:"scale"`
	Model string  `yaml:"model_name"`
}

type resNetOpts struct {
	Layers int `yaml:"layers"`
}

type fpnOpts struct {
	OutChannels int `yaml:"out_channels"`
}

type dbHeadOpts struct {
	K int `yaml:"k"`
}

type lrOpts struct {
	Name         string  `yaml:"name"`
	LearningRate float64 `yaml:"learning_rate"`
	Warmup       int     `yaml:"warmup_epoch"`
}

type optimizerOpts struct {
	Name  string  `yaml:"name"`
	Beta1 float64 `yaml:"beta1"`
	LR    lrOpts  `yaml:"lr"`
}

type datasetOpts struct {
	Name       string             `yaml:"name"`
	DataDir    string             `yaml:"data_dir"`
	Transforms []config.Component `yaml:"transforms"`
}

type loaderOpts struct {
	BatchSize int  `yaml:"batch_size_per_card"`
	Shuffle   bool `yaml:"shuffle"`
}

type trainOpts struct {
	Dataset datasetOpts `yaml:"dataset"`
	Loader  loaderOpts  `yaml:"loader"`
}

type decodeImageOpts struct {
	ImgMode string `yaml:"img_mode"`
}

type resizeOpts struct {
	Size []int `yaml:"size"`
}

type metricOpts struct {
	MainIndicator string `yaml:"main_indicator"`
}

func fixtureSchema() *config.Schema {
	return &config.Schema{
		Sections: map[string]any{
			"Global":       (*globalOpts)(nil),
			"Architecture": (*archOpts)(nil),
			"Optimizer":    (*optimizerOpts)(nil),
			"Train":        (*trainOpts)(nil),
			"Eval":         (*trainOpts)(nil),
			"Metric":       (*metricOpts)(nil),
		},
		Components: map[string]map[string]any{
			"Architecture.Backbone": {
				"MobileNetV3": (*mobileNetV3Opts)(nil),
				"ResNet":      (*resNetOpts)(nil),
			},
			"Architecture.Neck": {"FPN": (*fpnOpts)(nil)},
			"Architecture.Head": {"DBHead": (*dbHeadOpts)(nil)},
			"*.dataset.transforms.*": {
				"DecodeImage": (*decodeImageOpts)(nil),
				"Resize":      (*resizeOpts)(nil),
				"ToTensor":    (*struct{})(nil),
			},
		},
		Selector: "name",
	}
}

type yoloOpts struct {
	Backbone   config.Component `yaml:"backbone"`
	NumClasses int              `yaml:"num_classes"`
}

type darkNetOpts struct {
	Depth    int    `yaml:"depth"`
	NormType string `yaml:"norm_type"`
}

type detResNetOpts struct {
	Depth int `yaml:"depth"`
}

func detSchema() *config.Schema {
	return &config.Schema{
		Sections: map[string]any{
			"architecture": (*config.Component)(nil),
			"epoch":        (*int)(nil),
		},
		Components: map[string]map[string]any{
			"architecture": {"YOLOv3": (*yoloOpts)(nil)},
			"*.backbone": {
				"DarkNet": (*darkNetOpts)(nil),
				"ResNet":  (*detResNetOpts)(nil),
			},
		},
	}
}

type unetOpts struct {
	NumClasses int              `yaml:"num_classes"`
	Backbone   config.Component `yaml:"backbone"`
}

type segResNetOpts struct {
	Depth int `yaml:"depth"`
}

func segSchema() *config.Schema {
	return &config.Schema{
		Sections: map[string]any{
			"model": (*config.Component)(nil),
			"iters": (*int)(nil),
		},
		Components: map[string]map[string]any{
			"model":          {"UNet": (*unetOpts)(nil)},
			"model.backbone": {"ResNet": (*segResNetOpts)(nil), "HRNet": (*segResNetOpts)(nil)},
		},
		Selector: "type",
	}
}

func TestMain(m *testing.M) {
	// The tests register their fixture kits up front (kits do it in Kit()),
	// and keep the Ignored-key warnings out of the test output.
	config.Register("fixture", fixtureSchema())
	config.Register("testdet", detSchema()) // not "det"/"seg": the real kits' configs in configs/ are checked against their own schemas
	config.Register("testseg", segSchema())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
