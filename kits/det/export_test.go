package det

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

func readPredictions(t *testing.T, s string) []Prediction {
	t.Helper()
	var out []Prediction
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var p Prediction
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, p)
	}
	return out
}

// tinyOpts vary tinyConfig.
type tinyOpts struct {
	size, epochs int
	adamw        bool   // AdamW 0.005 instead of SGD 0.1
	onTrain      bool   // evaluate on the training split
	lightAug     bool   // flips only (no distortion, no crop)
	extra        string // more top-level YAML
}

// tinyConfig is a small PicoDet config over the COCO set in dir, for tests.
func tinyConfig(t *testing.T, dir string, o tinyOpts) string {
	size, epochs, adamw, onTrain, extra := o.size, o.epochs, o.adamw, o.onTrain, o.extra
	t.Helper()
	y := `architecture: PicoDet
num_classes: 8
epoch: EPOCHS
log_iter: 50
worker_num: 1
seed: 3
snapshot_epoch: 0
PicoDet: {backbone: LCNet, neck: LCPAN, head: PicoHeadV2}
LCNet: {scale: 0.35, feature_maps: [3, 4, 5]}
LCPAN: {out_channels: 48}
PicoHeadV2:
  conv_feat: {name: PicoFeat, feat_out: 48, num_convs: 1, share_cls_reg: true}
  fpn_stride: [8, 16, 32]
  reg_max: 7
  nms: {name: MultiClassNMS, nms_top_k: 200, keep_top_k: 50, score_threshold: 0.025, nms_threshold: 0.6}
TrainDataset: {name: COCODataSet, dataset_dir: DIR, anno_path: annotations/instances_train.json}
EvalDataset: {name: COCODataSet, dataset_dir: DIR, anno_path: annotations/instances_EVALSPLIT.json}
TestDataset: {name: COCODataSet, dataset_dir: DIR, anno_path: annotations/instances_eval.json}
OPTIMIZERTrainReader:
  sample_transforms: [{Decode: {}}, {RandomDistort: {}}, {RandomCrop: {prob: 0.3}}, {RandomFlip: {}}]
  batch_transforms: [{BatchRandomResize: {target_size: [SIZES]}}, {NormalizeImage: {is_scale: true, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]}}]
  batch_size: 8
  shuffle: true
  drop_last: true
EvalReader:
  sample_transforms: [{Decode: {}}, {Resize: {target_size: [SIZE, SIZE]}}, {NormalizeImage: {is_scale: true, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]}}]
  batch_size: 8
TestReader:
  sample_transforms: [{Decode: {}}, {Resize: {target_size: [SIZE, SIZE]}}, {NormalizeImage: {is_scale: true, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]}}]
`
	opt := `LearningRate:
  base_lr: 0.1
  schedulers:
  - {name: CosineDecay, max_epochs: EPOCHS, min_lr_ratio: 0.05}
  - {name: LinearWarmup, start_factor: 0.1, steps: 30}
OptimizerBuilder:
  optimizer: {type: Momentum, momentum: 0.9}
  regularizer: {type: L2, factor: 0.00004}
  clip_grad_by_norm: 10
`
	if adamw {
		opt = `LearningRate:
  base_lr: 0.005
  schedulers:
  - {name: CosineDecay, max_epochs: EPOCHS, min_lr_ratio: 0.05}
  - {name: LinearWarmup, start_factor: 0.1, steps: 30}
OptimizerBuilder:
  optimizer: {type: AdamW, weight_decay: 0.01}
  clip_grad_by_norm: 10
`
	}
	split := "eval"
	if onTrain {
		split = "train"
	}
	y = strings.Replace(y, "OPTIMIZER", opt, 1)
	if o.lightAug {
		y = strings.Replace(y, "{RandomDistort: {}}, {RandomCrop: {prob: 0.3}}, ", "", 1)
	}
	y = strings.ReplaceAll(y, "EVALSPLIT", split)
	y = strings.ReplaceAll(y, "EPOCHS", itoa(epochs))
	y = strings.ReplaceAll(y, "DIR", dir)
	y = strings.ReplaceAll(y, "SIZES", strings.Join([]string{itoa(size - 32), itoa(size), itoa(size + 32)}, ", "))
	y = strings.ReplaceAll(y, "SIZE", itoa(size)) + extra
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func itoa(v int) string { return strconv.Itoa(v) }

// An untrained tiny PicoDet (random weights, saved as a checkpoint) exports
// to model.onnx + inference.yaml; paddle's runtime and ONNX Runtime on the
// export match the Go eval forward at a batch size other than the traced
// one; predict --model then prints what predict --weights prints.
func TestExportMatchesForward(t *testing.T) {
	stamps, bgs := fakePhotos(t)
	set := filepath.Join(t.TempDir(), "set")
	if code, _, errOut := runPaddle(t, "det", "synth", "--output", set, "--train", "4", "--eval", "3", "--size", "96", "--seed", "2",
		"--stamps", stamps, "--backgrounds", bgs); code != 0 {
		t.Fatal(errOut)
	}
	cfgPath := tinyConfig(t, set, tinyOpts{size: 96, epochs: 10, extra: "draw_threshold: 0.0\n"})
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	wr, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := wr.(*runner)
	model, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	// Non-trivial batch-norm statistics and head biases, so the export is checked on real arithmetic.
	rg := rand.New(rand.NewPCG(5, 5))
	for _, p := range append(model.Params(), model.Buffers()...) {
		if strings.HasSuffix(p.Name, "running_var") {
			p.V.T.CopyFrom(tensor.Rand(rg, tensor.Float32, 0.5, 1.5, p.V.T.Shape()...))
		} else if strings.HasSuffix(p.Name, "running_mean") || strings.Contains(p.Name, "bias") {
			p.V.T.CopyFrom(tensor.Rand(rg, tensor.Float32, -0.2, 0.2, p.V.T.Shape()...))
		}
	}
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	y, _ := cfg.YAML()
	if err := workflow.SaveCheckpoint(ckpt, model, nil, workflow.State{}, y); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(t.TempDir(), "exp")
	if code, _, errOut := runPaddle(t, "det", "export", "--weights", ckpt, "--output", exp); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	inf, err := os.ReadFile(filepath.Join(exp, "inference.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"model_name: PicoDet", "name: MultiClassNMS", "nms_threshold: 0.6", "shape: [-1, 3, 96, 96]", "- Resize:", "label_list:"} {
		if !strings.Contains(string(inf), want) {
			t.Errorf("inference.yaml lacks %q:\n%s", want, inf)
		}
	}
	// Go forward vs runtime vs ORT on a batch of 3.
	x := tensor.Randn(rand.New(rand.NewPCG(9, 9)), tensor.Float32, 0, 1, 3, 3, 96, 96)
	var scores, boxes *tensor.Tensor
	ag.NoGrad(func() {
		out := model.Run(ag.Const(x), false)
		scores = ag.Sigmoid(out.Cls).T
		boxes = model.Head.Decode(out.Reg, model.Head.AnchorsFor(96, 96)).T
	})
	p, err := runtime.Load(filepath.Join(exp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(map[string]*tensor.Tensor{"image": x})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := tensor.MaxDiff(got["scores"], scores, 0, 0)
	db, _ := tensor.MaxDiff(got["boxes"], boxes, 0, 0)
	t.Logf("paddle runtime vs Go forward: scores %.3g, boxes %.3g px", ds, db)
	if ds > 1e-5 || db > 1e-3 {
		t.Errorf("paddle runtime on the export differs: scores %g, boxes %g", ds, db)
	}
	ortcheck.Compare(t, filepath.Join(exp, "model.onnx"), map[string]*tensor.Tensor{"image": x},
		ortcheck.Output{Name: "scores", Want: scores, Tol: 1e-4},
		ortcheck.Output{Name: "boxes", Want: boxes, Tol: 1e-2})
	// predict --weights and --model agree; --draw writes a PNG per image.
	imgs := []string{filepath.Join(set, "images", "eval", "000000.jpg"), filepath.Join(set, "images", "eval", "000001.jpg")}
	draw := filepath.Join(t.TempDir(), "vis")
	code, fromW, errOut := runPaddle(t, append([]string{"det", "predict", "--weights", ckpt, "--draw", draw}, imgs...)...)
	if code != 0 {
		t.Fatalf("predict --weights: %s", errOut)
	}
	code, fromM, errOut := runPaddle(t, append([]string{"det", "predict", "--model", exp}, imgs...)...)
	if code != 0 {
		t.Fatalf("predict --model: %s", errOut)
	}
	pw, pm := readPredictions(t, fromW), readPredictions(t, fromM)
	if len(pw) != 2 || len(pm) != 2 {
		t.Fatalf("%d and %d predictions", len(pw), len(pm))
	}
	for i := range pw {
		if len(pw[i].Detections) == 0 || len(pw[i].Detections) != len(pm[i].Detections) {
			t.Fatalf("%s: %d vs %d detections", imgs[i], len(pw[i].Detections), len(pm[i].Detections))
		}
		a, b := pw[i].Detections[0], pm[i].Detections[0]
		if a.ClassID != b.ClassID || a.Label != b.Label || a.BBox != b.BBox || a.Score-b.Score > 2e-5 || b.Score-a.Score > 2e-5 {
			t.Errorf("%s: --weights %+v, --model %+v", imgs[i], a, b)
		}
		base := filepath.Base(imgs[i])
		if _, err := os.Stat(filepath.Join(draw, strings.TrimSuffix(base, filepath.Ext(base))+".png")); err != nil {
			t.Error(err)
		}
	}
	checkQuantizedExport(t, ckpt, set, exp)
}

// checkQuantizedExport exports the checkpoint again with --quantize,
// calibrated on the set's 4 training images (a directory): the model runs
// int8 convolutions, and on the held-out eval images, preprocessed as
// predict --model does (CalibrationFeed on the eval folder), its scores
// stay close to the float export's; ONNX Runtime's outputs on the QDQ file
// equal paddle's.
func checkQuantizedExport(t *testing.T, ckpt, set, exp string) {
	qexp := filepath.Join(t.TempDir(), "qexp")
	if code, _, errOut := runPaddle(t, "det", "export", "--weights", ckpt, "--output", qexp,
		"--quantize", "--calib", filepath.Join(set, "images", "train")); code != 0 {
		t.Fatalf("export --quantize: %s", errOut)
	}
	fp, err := runtime.Load(filepath.Join(exp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qp, err := runtime.Load(filepath.Join(qexp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nq := quant.Int8Nodes(qp.Graph())
	if nq == 0 {
		t.Fatal("the quantized export runs no int8 conv or gemm")
	}
	feed, n, err := (&runner{}).CalibrationFeed(qexp, filepath.Join(set, "images", "eval"), 0)
	if err != nil || n != 3 {
		t.Fatalf("CalibrationFeed on the eval images: %d inputs, %v", n, err)
	}
	var worst, worstBox float64
	for i := range n {
		x, err := feed(i)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fp.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := qp.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := tensor.MaxDiff(got["scores"], want["scores"], 0, 0)
		db, _ := tensor.MaxDiff(got["boxes"], want["boxes"], 0, 0)
		worst, worstBox = max(worst, d), max(worstBox, db)
		if i == 0 {
			ortcheck.Compare(t, filepath.Join(qexp, "model.onnx"), x,
				ortcheck.Output{Name: "scores", Want: got["scores"], Tol: 1e-4},
				ortcheck.Output{Name: "boxes", Want: got["boxes"], Tol: 1e-2})
		}
	}
	t.Logf("int8 export: %d int8 nodes; on the eval images scores within %.3g, boxes within %.3g px of the float export's", nq, worst, worstBox)
	if worst > 0.05 || worstBox > 2 {
		t.Errorf("int8 scores differ from float by up to %.3g (want ≤ 0.05), boxes by %.3g px (want ≤ 2)", worst, worstBox)
	}
}
