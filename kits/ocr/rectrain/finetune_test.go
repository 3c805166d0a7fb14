package rectrain

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/hub"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/kits/ocr/synth"
)

// ppocrv4Dir finds the PP-OCRv4 files (model store or scripts/fetch_ppocrv4.sh's folder).
func ppocrv4Dir() string {
	var dirs []string
	if d, ok := hub.Path("ppocrv4"); ok {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, filepath.Join(hub.CacheDir(), "npm", "ocr-models-1.4.2", "package", "assets"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "ch_PP-OCRv4_rec_infer.onnx")); err == nil {
			return d
		}
	}
	return ""
}

const monoFont = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"

// Fine-tuning PP-OCRv4's recogniser (configs/ocr/rec_ppocrv4_finetune.yaml):
// the imported network trains (10 Adam steps at lr 3e-4 on one batch of 4
// random-ASCII lines in DejaVu Sans Mono at 3×48×160 take the CTC loss below a
// third: measured 2.54 → 0.000), and the fine-tuned weights export as the PP-OCRv4 graph, which
// paddle's runtime (with its fusion passes) and ONNX Runtime run like the Go
// module (≤ 1e-4).
func TestFineTunePPOCRv4(t *testing.T) {
	dir0 := ppocrv4Dir()
	if dir0 == "" {
		t.Skip("ppocrv4 models not found: run `paddle model pull ppocrv4` or scripts/fetch_ppocrv4.sh")
	}
	fonts, err := synth.LoadFonts(monoFont)
	if err != nil {
		t.Skipf("font missing (scripts/setup.sh installs fonts-dejavu-core): %v", err)
	}
	dir := t.TempDir()
	texts, err := synth.NewTexts(nil, "en", 3, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Generate(context.Background(), synth.Options{Out: dir, Count: 4, Texts: texts, Fonts: fonts, Seed: 3,
		Workers: 2, Line: synth.LineOptions{MinSize: 28, MaxSize: 36}}); err != nil {
		t.Fatal(err)
	}
	label := filepath.Join(dir, "rec_gt.txt")
	cfg, err := config.Load("ocr/rec_ppocrv4_finetune.yaml",
		"Architecture.Backbone.model_file="+filepath.Join(dir0, "ch_PP-OCRv4_rec_infer.onnx"),
		"Global.character_dict_path="+filepath.Join(dir0, "ppocr_keys_v1.txt"),
		"Train.dataset.data_dir="+dir, "Train.dataset.label_file_list=["+label+"]",
		"Eval.dataset.data_dir="+dir, "Eval.dataset.label_file_list=["+label+"]",
		"Train.dataset.transforms.1.RecAug.tia_prob=0", // RecAug stays in, but as a no-op: the batch must stay the same
		"Train.dataset.transforms.1.RecAug.crop_prob=0", "Train.dataset.transforms.1.RecAug.noise_prob=0",
		"Train.dataset.transforms.1.RecAug.jitter_prob=0", "Train.dataset.transforms.1.RecAug.blur_prob=0",
		"Train.dataset.transforms.1.RecAug.hsv_aug_prob=0",
		"Train.loader.batch_size_per_card=4", "Train.dataset.transforms.3.RecResizeImg.image_shape=[3,48,160]", "Optimizer.lr.name=Const", "Optimizer.lr.learning_rate=0.0003")
	if err != nil {
		t.Fatal(err)
	}
	wr, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := wr.(*runner)
	ios, _, _, _ := iostreams.Test()
	// --weights naming the imported file evaluates the stock weights
	stock, err := r.Eval(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: filepath.Join(dir0, "ch_PP-OCRv4_rec_infer.onnx")})
	if err != nil || stock.Count != 4 {
		t.Fatalf("eval of the stock weights: %v over %d lines, %v", stock, stock.Count, err)
	}
	t.Logf("stock PP-OCRv4 on the 4 lines: %v", stock)
	model, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	task, err := r.task(model, true)
	if err != nil {
		t.Fatal(err)
	}
	var batch Batch
	for b, err := range task.TrainBatches(context.Background(), 0, 0) {
		if err != nil {
			t.Fatal(err)
		}
		batch = b
		break
	}
	var first, last float64
	for i := range 10 {
		task.Optimizer.ZeroGrad()
		l, err := task.Loss(batch, workflow.StepInfo{})
		if err != nil {
			t.Fatal(err)
		}
		l.Backward()
		task.Optimizer.SetLR(task.LR(i, 0))
		task.Optimizer.Step()
		if i == 0 {
			first = l.Item()
		}
		last = l.Item()
	}
	t.Logf("CTC loss %.3f → %.3f in 10 steps", first, last)
	if !(last < first/3) {
		t.Fatalf("CTC loss %.3f → %.3f: want it below a third", first, last)
	}

	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "exp")
	y, _ := r.cfg.YAML()
	if err := workflow.SaveCheckpoint(ckpt, model, nil, workflow.State{}, y); err != nil {
		t.Fatal(err)
	}
	if err := r.Export(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: ckpt}, exp); err != nil {
		t.Fatal(err)
	}
	x := tensor.Rand(rand.New(rand.NewPCG(7, 8)), tensor.Float32, -1, 1, 2, 3, 48, 200)
	var want *tensor.Tensor
	ag.NoGrad(func() { want = exportHead(model.Forward(ag.Const(x), false)).T.Contiguous() })
	p, err := runtime.Load(filepath.Join(exp, workflow.ExportModelFile), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(map[string]*tensor.Tensor{p.InputNames()[0]: x})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tensor.MaxDiff(got[p.OutputNames()[0]], want, 0, 0)
	t.Logf("fine-tuned export in paddle's runtime vs the Go module: max abs diff %.3g", d)
	if d > 1e-4 {
		t.Errorf("export differs by %g", d)
	}
	checkORT(t, exp, p.OutputNames()[0], x, want)
}
