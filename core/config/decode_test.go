package config_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"gopkg.in/yaml.v3"

	"paddle/core/config"
)

func TestDecode(t *testing.T) {
	c, err := config.LoadKit("fixture", "testdata/fixture/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := globalOpts{Seed: 1234} // a default the file does not set
	if err := c.Decode("Global", &g); err != nil {
		t.Fatal(err)
	}
	if g.EpochNum != 5 || g.LR != 0.01 || g.Seed != 1234 || len(g.ImageShape) != 3 || g.ImageShape[2] != 32 {
		t.Errorf("Global = %+v", g)
	}
	var a archOpts
	if err := c.Decode("Architecture", &a); err != nil {
		t.Fatal(err)
	}
	if a.Backbone.Name != "MobileNetV3" || a.Backbone.At() != "Architecture.Backbone.name" || a.Neck.Name != "" || a.Head.Name != "DBHead" {
		t.Errorf("Architecture = %+v", a)
	}
	var mb mobileNetV3Opts
	if err := a.Backbone.Decode(&mb); err != nil {
		t.Fatal(err)
	}
	if mb.Scale != 0.5 {
		t.Errorf("MobileNetV3 options = %+v", mb)
	}
	var tr trainOpts
	if err := c.Decode("Train", &tr); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tf := range tr.Dataset.Transforms {
		names = append(names, tf.Name)
	}
	if got := strings.Join(names, ","); got != "DecodeImage,Resize,ToTensor" {
		t.Errorf("transforms = %s", got)
	}
	var rs resizeOpts
	if err := tr.Dataset.Transforms[1].Decode(&rs); err != nil || len(rs.Size) != 2 {
		t.Errorf("Resize options = %+v, %v", rs, err)
	}
	var whole map[string]any
	if err := c.Decode("", &whole); err != nil || len(whole) != 5 {
		t.Errorf("Decode(\"\") = %d sections, %v", len(whole), err)
	}
}

func TestDecodeErrors(t *testing.T) {
	c := mustLoad(t, "testdata/fixture/bad.yaml")
	tests := []struct {
		name, path string
		v          any
		want       string
	}{
		{"unknown key and wrong type, all reported", "Global", &globalOpts{},
			"testdata/fixture/bad.yaml:2: Global.epoch_nm: unknown key (did you mean \"Global.epoch_num\"?)\n" +
				"testdata/fixture/bad.yaml:3: Global.lr: expected a number, got \"fast\""},
		{"nested wrong type", "Optimizer", &optimizerOpts{},
			`testdata/fixture/bad.yaml:8: Optimizer.lr.learning_rate: expected a number, got "fast"`},
		{"expected a map", "Global.lr", &lrOpts{},
			`testdata/fixture/bad.yaml:3: Global.lr: expected a map, got "fast"`},
		{"expected a list", "Optimizer", &struct {
			Name []string `yaml:"name"`
			LR   any      `yaml:"lr"`
		}{}, `testdata/fixture/bad.yaml:5: Optimizer.name: expected a list, got "Adam"`},
		{"missing path", "Nope", &globalOpts{}, "testdata/fixture/bad.yaml: Nope: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Decode(tt.path, tt.v)
			if err == nil {
				t.Fatalf("Decode(%q) succeeded, want %q", tt.path, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Decode(%q):\n got %q\nwant %q", tt.path, err, tt.want)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Errorf("error is not a *config.Error")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, kit, file string
		overrides       []string
		want            string // "" for no error
	}{
		{name: "name selector, good", kit: "fixture", file: "testdata/fixture/good.yaml"},
		{name: "name selector, every problem", kit: "fixture", file: "testdata/fixture/bad.yaml", want: strings.Join([]string{
			`testdata/fixture/bad.yaml:2: Global.epoch_nm: unknown key (did you mean "Global.epoch_num"?)`,
			`testdata/fixture/bad.yaml:3: Global.lr: expected a number, got "fast"`,
			`testdata/fixture/bad.yaml:8: Optimizer.lr.learning_rate: expected a number, got "fast"`,
			`testdata/fixture/bad.yaml:11: Architecture.Backbone.name: unknown "MobileNetV4" (known: MobileNetV3, ResNet)`,
			`testdata/fixture/bad.yaml:14: Architecture.Head.k: expected an integer, got a list`,
			`testdata/fixture/bad.yaml:18: Train.dataset.transforms.0.DecodeImage.img_mod: unknown key (did you mean "Train.dataset.transforms.0.DecodeImage.img_mode"?)`,
			`testdata/fixture/bad.yaml:19: Train.dataset.transforms.1: unknown "Blur" (known: DecodeImage, Resize, ToTensor)`,
			`testdata/fixture/bad.yaml:20: Metrics: unknown key (did you mean "Metric"?)`,
		}, "\n")},
		{name: "override checked at validate", kit: "fixture", file: "testdata/fixture/good.yaml",
			overrides: []string{"Architecture.Backbone.name=ResNet"},
			want:      `testdata/fixture/good.yaml:10: Architecture.Backbone.scale: unknown key (known: layers)`},
		{name: "override value of the wrong type", kit: "fixture", file: "testdata/fixture/good.yaml",
			overrides: []string{"Train.loader.shuffle=[1]"},
			want:      `-o: Train.loader.shuffle: expected a boolean, got a list`},
		{name: "class-keyed, good", kit: "testdet", file: "testdata/det/yolo.yaml"},
		{name: "class-keyed, unknown name, bad types", kit: "testdet", file: "testdata/det/bad.yaml", want: strings.Join([]string{
			`testdata/det/bad.yaml:3: YOLOv3.backbone: unknown "DarkNet2" (known: DarkNet, ResNet)`,
			`testdata/det/bad.yaml:4: YOLOv3.num_classes: expected an integer, got "eighty"`,
			`testdata/det/bad.yaml:6: DarkNet.depht: unknown key (did you mean "DarkNet.depth"?)`,
		}, "\n")},
		{name: "type selector, good", kit: "testseg", file: "testdata/seg/unet.yaml"},
		{name: "type selector, unknown name", kit: "testseg", file: "testdata/seg/bad.yaml",
			want: `testdata/seg/bad.yaml:5: model.backbone.type: unknown "MobileNetV4" (known: HRNet, ResNet)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.LoadKit(tt.kit, tt.file, tt.overrides...)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := config.SchemaFor(tt.kit)
			err = c.Validate(s)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestClassKeyedDecode(t *testing.T) {
	c, err := config.LoadKit("testdet", "testdata/det/yolo.yaml", "DarkNet.depth=21")
	if err != nil {
		t.Fatal(err)
	}
	var arch config.Component
	if err := c.Decode("architecture", &arch); err != nil {
		t.Fatal(err)
	}
	var y yoloOpts
	if err := arch.Decode(&y); err != nil {
		t.Fatal(err)
	}
	if arch.Name != "YOLOv3" || y.Backbone.Name != "DarkNet" || y.NumClasses != 80 {
		t.Fatalf("arch %s, options %+v", arch.Name, y)
	}
	var dn darkNetOpts
	if err := y.Backbone.Decode(&dn); err != nil {
		t.Fatal(err)
	}
	if dn.Depth != 21 || dn.NormType != "bn" {
		t.Errorf("DarkNet options = %+v", dn)
	}
	_, err = config.LoadKit("testdet", "testdata/det/yolo.yaml", "YOLOv3.backbone.depth=3")
	if want := `-o "YOLOv3.backbone.depth=3": YOLOv3.backbone names the component DarkNet: set its options under DarkNet`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestTypeSelectorDecode(t *testing.T) {
	c, err := config.LoadKit("testseg", "testdata/seg/unet.yaml", "model.backbone.depth=50")
	if err != nil {
		t.Fatal(err)
	}
	var m config.Component
	if err := c.Decode("model", &m); err != nil {
		t.Fatal(err)
	}
	var u unetOpts
	if err := m.Decode(&u); err != nil {
		t.Fatal(err)
	}
	var r segResNetOpts
	if err := u.Backbone.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if m.Name != "UNet" || u.NumClasses != 2 || u.Backbone.Name != "ResNet" || r.Depth != 50 {
		t.Errorf("model %s %+v, backbone %+v", m.Name, u, r)
	}
	_, err = config.LoadKit("testseg", "testdata/seg/unet.yaml", "model.backbone.dept=50")
	if want := `-o "model.backbone.dept=50": unknown key "model.backbone.dept" (did you mean "model.backbone.depth"?)`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestIgnoredWarnsOnce(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)

	c, err := config.LoadKit("fixture", "testdata/fixture/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var g globalOpts
		if err := c.Decode("Global", &g); err != nil {
			t.Fatalf("an Ignored key must not fail: %v", err)
		}
	}
	if n := strings.Count(buf.String(), "key=Global.use_gpu"); n != 1 {
		t.Errorf("warned %d times about Global.use_gpu, want 1; log:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "at=testdata/fixture/good.yaml:4") {
		t.Errorf("warning lacks the position: %s", buf.String())
	}
}

func TestDecodeShapes(t *testing.T) {
	fsys := fstest.MapFS{"k/x.yaml": {Data: []byte(`A:
  common: 1
  ptr: 2.5
  pair: [1, 2]
  counts: {a: 1, b: 2}
  raw: {any: [thing]}
  wait: 1m30s
  extra1: x
  extra2: y
`)}}
	type common struct {
		Common int `yaml:"common"`
	}
	type shapes struct {
		common `yaml:",inline"`
		Ptr    *float64          `yaml:"ptr"`
		Pair   [2]int            `yaml:"pair"`
		Counts map[string]int    `yaml:"counts"`
		Raw    *yaml.Node        `yaml:"raw"`
		Wait   time.Duration     `yaml:"wait"`
		Rest   map[string]string `yaml:",inline"`
	}
	c, err := config.LoadFS(fsys, "k/x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var s shapes
	if err := c.Decode("A", &s); err != nil {
		t.Fatal(err)
	}
	if s.Common != 1 || s.Ptr == nil || *s.Ptr != 2.5 || s.Pair != [2]int{1, 2} || s.Counts["b"] != 2 ||
		s.Raw == nil || s.Raw.Line != 6 || s.Wait != 90*time.Second || s.Rest["extra2"] != "y" || len(s.Rest) != 2 {
		t.Errorf("decoded %+v", s)
	}
	var bad struct {
		Pair [3]int `yaml:"pair"`
	}
	err = c.Decode("A", &bad)
	if err == nil || !strings.Contains(err.Error(), "\nk/x.yaml:4: A.pair: expected a list of 3 items, got 2\n") {
		t.Errorf("error = %v", err)
	}
}

func TestValidateIgnoresListedSections(t *testing.T) {
	fsys := fstest.MapFS{"fixture/x.yaml": {Data: []byte("Global:\n  seed: 1\nAMP:\n  scale_loss: 128\n")}}
	c, err := config.LoadFS(fsys, "fixture/x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(c.Schema); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
