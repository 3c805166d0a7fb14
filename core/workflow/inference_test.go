package workflow

import (
	"strings"
	"testing"

	"paddle/core/config"
)

type testPre struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

type testPost struct {
	Name string `yaml:"name"`
	Topk int    `yaml:"topk"`
}

type testResize struct {
	Size []int `yaml:"size"`
}

func TestInferenceSchemaAndDecode(t *testing.T) {
	schema := InferenceSchema((*testPre)(nil), (*testPost)(nil), map[string]any{"Resize": (*testResize)(nil)}, "name")
	parse := func(y string) (*config.Config, error) {
		cfg, err := config.Parse("", "inference.yaml", []byte(y))
		if err != nil {
			return nil, err
		}
		if err := cfg.Validate(schema); err != nil {
			return nil, err
		}
		cfg.Schema = schema
		return cfg, nil
	}
	cfg, err := parse("Global: {model_name: m}\nPreProcess:\n  transform_ops:\n    - Resize: {size: [4, 5]}\n" +
		"PostProcess: {name: Topk, topk: 3}\nInputs: [{name: x, shape: [-1, 3, 5, 4], dtype: float32}]\n")
	if err != nil {
		t.Fatal(err)
	}
	var pre testPre
	var post testPost
	inputs, err := DecodeInference(cfg, &pre, &post)
	if err != nil {
		t.Fatal(err)
	}
	if len(pre.TransformOps) != 1 || pre.TransformOps[0].Name != "Resize" || post != (testPost{Name: "Topk", Topk: 3}) ||
		len(inputs) != 1 || inputs[0].Name != "x" || len(inputs[0].Shape) != 4 || inputs[0].Shape[0] != -1 {
		t.Errorf("decoded pre %+v, post %+v, inputs %+v", pre, post, inputs)
	}
	// An unknown key in a kit's section, or an op the kit does not list, is an error.
	for _, y := range []string{
		"PostProcess: {name: Topk, top: 3}\n",
		"PreProcess:\n  transform_ops:\n    - Crop: {size: 3}\n",
	} {
		if _, err := parse(y); err == nil {
			t.Errorf("%q: no error", strings.TrimSpace(y))
		}
	}
}
