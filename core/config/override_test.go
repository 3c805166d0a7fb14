package config_test

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"

	"paddle/core/config"
)

// nodeYAML renders the node at path in flow style for compact comparisons.
func nodeYAML(t *testing.T, c *config.Config, path string) string {
	t.Helper()
	n, ok := c.Node(path)
	if !ok {
		return "<missing>"
	}
	cp := *n
	setFlow(&cp)
	out, err := yaml.Marshal(&cp)
	if err != nil {
		t.Fatal(err)
	}
	return string(out[:len(out)-1])
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
}

func TestOverrides(t *testing.T) {
	const good = "testdata/fixture/good.yaml"
	tests := []struct {
		name     string
		override string
		path     string // where to look after applying
		want     string // that node, as flow YAML
		wantTag  string // its YAML tag, when it matters
	}{
		{"int", "Global.epoch_num=50", "Global.epoch_num", "50", "!!int"},
		{"float", "Global.lr=0.5", "Global.lr", "0.5", "!!float"},
		{"bool", "Global.debug=false", "Global.debug", "false", "!!bool"},
		{"list", "Global.image_shape=[1,28,28]", "Global.image_shape", "[1, 28, 28]", "!!seq"},
		{"map", "Global.extra={a: 1, b: two}", "Global.extra", "{a: 1, b: two}", "!!map"},
		{"string", "Train.dataset.data_dir=./train_data/icdar2015", "Train.dataset.data_dir", "./train_data/icdar2015", "!!str"},
		{"value holding '='", "Train.dataset.name=a=b", "Train.dataset.name", "a=b", "!!str"},
		{"empty value is null", "Global.lr=", "Global.lr", "", "!!null"},
		{"nested", "Optimizer.lr.learning_rate=0.1", "Optimizer.lr.learning_rate", "0.1", "!!float"},
		{"list index", "Train.dataset.transforms.1.Resize.size=[512,512]", "Train.dataset.transforms.1", "{Resize: {size: [512, 512]}}", ""},
		{"key absent from file, known to schema", "Global.seed=42", "Global.seed", "42", "!!int"},
		{"section absent from file, known to schema", "Eval.loader.shuffle=false", "Eval", "{loader: {shuffle: false}}", ""},
		{"fills a null component", "Architecture.Neck.name=FPN", "Architecture.Neck", "{name: FPN}", ""},
		{"component options known to the chosen component", "Architecture.Backbone.model_name=large", "Architecture.Backbone.model_name", "large", ""},
		{"one-key component options", "Train.dataset.transforms.0.DecodeImage.img_mode=RGB", "Train.dataset.transforms.0.DecodeImage.img_mode", "RGB", ""},
		{"ignored key", "Global.use_amp=true", "Global.use_amp", "true", ""},
		{"type change is allowed here", "Global.epoch_num=many", "Global.epoch_num", "many", "!!str"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.LoadKit("fixture", good, tt.override)
			if err != nil {
				t.Fatalf("LoadKit(-o %s): %v", tt.override, err)
			}
			if got := nodeYAML(t, c, tt.path); got != tt.want {
				t.Errorf("-o %s: %s = %s, want %s", tt.override, tt.path, got, tt.want)
			}
			if tt.wantTag != "" {
				if n, _ := c.Node(tt.path); n.Tag != tt.wantTag {
					t.Errorf("-o %s: tag %s, want %s", tt.override, n.Tag, tt.wantTag)
				}
			}
		})
	}
}

func TestOverrideOrder(t *testing.T) {
	c, err := config.LoadKit("fixture", "testdata/fixture/good.yaml", "Global.lr=1", "Global.lr=2", "Architecture.Neck.name=FPN", "Architecture.Neck.out_channels=96")
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeYAML(t, c, "Global.lr"); got != "2" {
		t.Errorf("later override should win: Global.lr = %s", got)
	}
	if got := nodeYAML(t, c, "Architecture.Neck"); got != "{name: FPN, out_channels: 96}" {
		t.Errorf("Architecture.Neck = %s", got)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"malformed", []string{"Global"}, `-o "Global": want Section.key=value`},
		{"empty key", []string{"=3"}, `-o "=3": want Section.key=value`},
		{"empty segment", []string{"Global..lr=3"}, `-o "Global..lr=3": empty key in "Global..lr"`},
		{"bad yaml value", []string{"Global.image_shape=[1,2"}, `-o "Global.image_shape=[1,2": value: did not find expected ',' or ']'`},
		{"unknown key with suggestion", []string{"Global.epoch_nm=3"}, `-o "Global.epoch_nm=3": unknown key "Global.epoch_nm" (did you mean "Global.epoch_num"?)`},
		{"unknown section with suggestion", []string{"Globl.seed=3"}, `-o "Globl.seed=3": unknown key "Globl.seed" (did you mean "Global.seed"?)`},
		{"unknown deep key", []string{"Optimizer.lr.learning_rat=3"}, `-o "Optimizer.lr.learning_rat=3": unknown key "Optimizer.lr.learning_rat" (did you mean "Optimizer.lr.learning_rate"?)`},
		{"unknown component option", []string{"Architecture.Backbone.scal=1"}, `-o "Architecture.Backbone.scal=1": unknown key "Architecture.Backbone.scal" (did you mean "Architecture.Backbone.scale"?)`},
		{"wrong one-key component", []string{"Train.dataset.transforms.0.Resize.size=3"}, `-o "Train.dataset.transforms.0.Resize.size=3": Train.dataset.transforms.0 is DecodeImage, not Resize`},
		{"nothing close", []string{"Global.zzzzzzzz=1"}, `-o "Global.zzzzzzzz=1": unknown key "Global.zzzzzzzz" (known: debug, epoch_num, extra, image_shape, lr, seed, tags, use_gpu)`},
		{"index out of range", []string{"Train.dataset.transforms.7.ToTensor={}"}, `-o "Train.dataset.transforms.7.ToTensor={}": testdata/fixture/good.yaml:24: Train.dataset.transforms: no item "7": the list has 3 items (0..2)`},
		{"into a scalar", []string{"Global.lr.x=1"}, `-o "Global.lr.x=1": Global.lr is a number, not a map`},
		{"malformed stops before anything is applied", []string{"Global.a1=1", "Global"}, `-o "Global": want Section.key=value`},
		{"every bad override is reported", []string{"Global.sed=1", "Global.lr=2", "Optimizer.nme=x"},
			`-o "Global.sed=1": unknown key "Global.sed" (did you mean "Global.seed"?)` + "\n" +
				`-o "Optimizer.nme=x": unknown key "Optimizer.nme" (did you mean "Optimizer.name"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.LoadKit("fixture", "testdata/fixture/good.yaml", tt.args...)
			if err == nil {
				t.Fatalf("-o %v: no error, want %q", tt.args, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("-o %v:\n got %q\nwant %q", tt.args, err, tt.want)
			}
			var oe *config.OverrideError
			if !errors.As(err, &oe) {
				t.Errorf("error %v is not an *OverrideError", err)
			}
		})
	}
}

func TestOverrideWithoutSchema(t *testing.T) {
	// No schema for the kit: keys the file lacks are accepted; Validate judges later.
	c, err := config.LoadKit("nokit", "testdata/inherit/base.yaml", "Global.anything.new=1")
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeYAML(t, c, "Global.anything"); got != "{new: 1}" {
		t.Errorf("Global.anything = %s", got)
	}
}

func TestOverrideTypeCheckedAtDecode(t *testing.T) {
	c, err := config.LoadKit("fixture", "testdata/fixture/good.yaml", "Optimizer.lr.learning_rate=fast")
	if err != nil {
		t.Fatal(err)
	}
	var o optimizerOpts
	err = c.Decode("Optimizer", &o)
	want := `-o: Optimizer.lr.learning_rate: expected a number, got "fast"`
	if err == nil || err.Error() != want {
		t.Errorf("Decode error = %v, want %q", err, want)
	}
}

func TestSet(t *testing.T) {
	c := mustLoad(t, "testdata/inherit/base.yaml")
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "3"}
	if err := c.Set("Eval.loader.workers", v); err != nil {
		t.Fatal(err)
	}
	if got := nodeYAML(t, c, "Eval"); got != "{loader: {workers: 3}}" {
		t.Errorf("Eval = %s", got)
	}
	if err := c.Set("Global.tags.1", v); err != nil {
		t.Fatal(err)
	}
	if got := nodeYAML(t, c, "Global.tags"); got != "[a, 3]" {
		t.Errorf("Global.tags = %s", got)
	}
	err := c.Set("Global.lr.x", v)
	if want := "testdata/inherit/base.yaml:3: Global.lr: is \"0.1\", not a map: cannot set Global.lr.x"; err == nil || err.Error() != want {
		t.Errorf("Set into a scalar: %v, want %q", err, want)
	}
	if !c.Has("Architecture.Backbone.layers") || c.Has("Architecture.Backbone.depth") || c.Has("Global.tags.5") {
		t.Error("Has is wrong")
	}
}
