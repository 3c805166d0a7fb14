package det

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// GIoU worked by hand: [0,0,2,2] vs [1,1,3,3]: inter 1, union 7, hull 9 →
// 1/7 - 2/9; identical boxes → 1; disjoint [0,0,1,1] vs [2,0,3,1]: iou 0,
// hull 3, union 2 → -1/3.
func TestGIoUWorked(t *testing.T) {
	pred := ag.Param(tensor.FromSlice([]float64{0, 0, 2, 2, 5, 5, 9, 8, 0, 0, 1, 1}, 3, 4))
	tgt := tensor.FromSlice([]float64{1, 1, 3, 3, 5, 5, 9, 8, 2, 0, 3, 1}, 3, 4)
	g := GIoU(pred, tgt).T.Float64s()
	want := []float64{1.0/7 - 2.0/9, 1, -1.0 / 3}
	for i := range want {
		if !near(g[i], want[i], 1e-9) {
			t.Errorf("giou[%d] = %.10f, want %.10f", i, g[i], want[i])
		}
	}
	// Gradient: moving the first box's x2 right grows the overlap: d giou/d x2 > 0.
	ag.Sum(GIoU(pred, tgt), nil, false).Backward()
	if gr := pred.Grad.Float64s(); !(gr[2] > 0) {
		t.Errorf("d giou / d x2 = %g, want > 0", gr[2])
	}
}

// Greedy NMS keeps a box, drops one overlapping it by IoU 0.81 > 0.6, keeps
// one at IoU 1/3.
func TestNMSWorked(t *testing.T) {
	ds := []Det{
		{Score: 0.9, Box: [4]float64{0, 0, 10, 10}},
		{Score: 0.8, Box: [4]float64{0, 0, 10, 9}},  // IoU 0.9
		{Score: 0.7, Box: [4]float64{5, 0, 15, 10}}, // IoU 50/150
	}
	got := NMS(ds, 0.6)
	if len(got) != 2 || got[0].Score != 0.9 || got[1].Score != 0.7 {
		t.Errorf("NMS = %+v", got)
	}
}

// Matrix NMS by hand. Boxes A (0.9), B (0.8, IoU(A,B)=0.9), C (0.7,
// IoU(A,C)=1/3, IoU(B,C)=40/150... computed below). Linear: B decays by
// (1-0.9)/(1-0) = 0.1 → 0.08; C by min((1-iouAC)/1, (1-iouBC)/(1-0.9)).
func TestMatrixNMSWorked(t *testing.T) {
	ds := []Det{
		{Score: 0.9, Box: [4]float64{0, 0, 10, 10}},
		{Score: 0.8, Box: [4]float64{0, 0, 10, 9}},
		{Score: 0.7, Box: [4]float64{5, 0, 15, 10}},
	}
	ab, ac, bc := iou(ds[0].Box, ds[1].Box), iou(ds[0].Box, ds[2].Box), iou(ds[1].Box, ds[2].Box)
	if !near(ab, 0.9, 1e-12) || !near(ac, 1.0/3, 1e-12) || !near(bc, 45.0/145, 1e-12) {
		t.Fatalf("ious %g %g %g", ab, ac, bc)
	}
	got := matrixNMS(ds, NMSOpts{PostThreshold: 0.05})
	wantC := 0.7 * math.Min(1-ac, (1-bc)/(1-ab))
	if len(got) != 3 || !near(got[0].Score, 0.9, 1e-12) || !near(got[1].Score, wantC, 1e-12) || !near(got[2].Score, 0.8*0.1, 1e-12) {
		t.Errorf("linear matrix NMS = %+v, want 0.9, %g, 0.08", got, wantC)
	}
	sigma := 2.0
	got = matrixNMS(ds, NMSOpts{UseGaussian: true, GaussianSigma: sigma})
	wantB := 0.8 * math.Exp(-sigma*ab*ab)
	wantC = 0.7 * math.Min(math.Exp(-sigma*ac*ac), math.Exp(sigma*(ab*ab-bc*bc)))
	if len(got) != 3 || !near(got[1].Score, wantC, 1e-12) || !near(got[2].Score, wantB, 1e-12) {
		t.Errorf("gaussian matrix NMS = %+v, want C %g B %g", got, wantC, wantB)
	}
	// PostProcess: class-aware (the same boxes in another class survive), threshold and top-k.
	scores := []float32{0.9, 0.02, 0.8, 0.5, 0.7, 0.01} // 3 anchors × 2 classes
	boxes := []float32{0, 0, 10, 10, 0, 0, 10, 9, 5, 0, 15, 10}
	out := PostProcess(scores, boxes, 2, NMSOpts{Name: "MultiClassNMS", ScoreThreshold: 0.025, NMSThreshold: 0.6, KeepTopK: 3})
	if len(out) != 3 || out[0].Score != float64(float32(0.9)) || out[1].Score != float64(float32(0.7)) || out[2].Class != 1 {
		t.Errorf("PostProcess = %+v", out)
	}
}

// The task-aligned assigner on two anchors inside one GT: the better-aligned
// one gets target IoU_max (normalised metric 1), the other metric/max·IoU_max;
// an anchor outside is background; a GT with no anchor inside takes its
// nearest one.
func TestTaskAlignedAssigner(t *testing.T) {
	anc := Anchors{CX: []float32{4, 12, 40, 100}, CY: []float32{4, 4, 40, 100}, Stride: []float32{8, 8, 8, 8}}
	in := assignInput{
		scores:  []float32{0.5, 0.2, 0.4, 0.3, 0.9, 0.9, 0.1, 0.1},
		boxes:   [][4]float64{{0, 0, 16, 8}, {2, 0, 16, 8}, {30, 30, 50, 50}, {0, 0, 1, 1}},
		anchors: anc,
		gt:      [][4]float64{{0, 0, 16, 8}, {60, 60, 61, 61}},
		classes: []int{0, 1},
		k:       2,
	}
	a := taskAligned(in, 13, 1, 6)
	iou1 := iou(in.boxes[1], in.gt[0])
	m0, m1 := 0.5*1.0, 0.4*math.Pow(iou1, 6)
	// Anchor 2 (40, 40) is the nearest to GT 1's centre (60.5, 60.5), which has no anchor inside.
	if a.GT[0] != 0 || a.GT[1] != 0 || a.GT[2] != 1 || a.GT[3] != -1 {
		t.Fatalf("GT = %v, want [0 0 1 -1]", a.GT)
	}
	if !near(float64(a.Score[0]), 1, 1e-6) || !near(float64(a.Score[1]), m1/m0, 1e-6) {
		t.Errorf("scores %v, want 1 and %g", a.Score, m1/m0)
	}
	// SimOTA: GT 0's dynamic k is int(IoU 1 + IoU 14/16) = 1, its cheapest
	// anchor is 0; GT 1 has no candidate within 2.5 strides (|40-60.5| > 20).
	s := simOTA(in, 10, 2.5, 3, 1)
	if s.GT[0] != 0 || s.GT[1] != -1 || s.GT[2] != -1 || s.GT[3] != -1 || s.Score[0] != 1 {
		t.Errorf("simOTA GT = %v scores %v", s.GT, s.Score)
	}
}

// Flip, expand and crop move boxes with the pixels: a white rectangle on
// black keeps its box equal to the white region's bounds.
func TestTransformsMoveBoxes(t *testing.T) {
	img := data.NewImage(64, 80, 3)
	box := [4]float64{10, 20, 30, 50}
	for y := 20; y < 50; y++ {
		for x := 10; x < 30; x++ {
			for c := range 3 {
				img.Set(y, x, c, 255)
			}
		}
	}
	bounds := func(m *data.Image) [4]float64 {
		b := [4]float64{1e9, 1e9, -1, -1}
		for y := range m.H {
			for x := range m.W {
				if m.At(y, x, 0) == 255 && m.At(y, x, 1) == 255 {
					b = [4]float64{min(b[0], float64(x)), min(b[1], float64(y)), max(b[2], float64(x+1)), max(b[3], float64(y+1))}
				}
			}
		}
		return b
	}
	for seed := range uint64(20) {
		s := Sample{Img: img.Clone(), Boxes: [][4]float64{box}, Classes: []int{3}, SX: 1, SY: 1}
		r := rand.New(rand.NewPCG(seed, 7))
		expand(&s, RandomExpandOpts{Ratio: 2, Prob: 1, FillValue: []float64{0, 0, 0}}, r)
		randomCrop(&s, RandomCropOpts{AspectRatio: []float64{0.5, 2}, Thresholds: []float64{0.3}, Scaling: []float64{0.5, 1}, NumAttempts: 50, Prob: 1, CoverAllBox: true}, r)
		flipH(&s)
		if len(s.Boxes) != 1 || s.Classes[0] != 3 {
			t.Fatalf("seed %d: boxes %v", seed, s.Boxes)
		}
		want := bounds(s.Img)
		for k := range 4 {
			if !near(s.Boxes[0][k], want[k], 1e-9) {
				t.Errorf("seed %d: box %v, white region %v", seed, s.Boxes[0], want)
				break
			}
		}
	}
}

// The model's raw outputs have one row per anchor point (3 levels), decoded
// boxes contain their anchor centres, and the loss of a batch backpropagates
// into every parameter group.
func TestPicoDetShapesAndLoss(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m, err := NewPicoDet(LCNetOpts{Scale: 0.25}, LCPANOpts{OutChannels: 32}, PicoHeadOpts{ConvFeat: PicoFeatOpts{NumConvs: 1}}, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Randn(r, tensor.Float32, 0, 1, 2, 3, 64, 96)
	out := m.Run(ag.Const(x), true)
	anc := m.Head.AnchorsFor(64, 96)
	na := 8*12 + 4*6 + 2*3
	if anc.Len() != na || !equalShape(out.Cls.Shape(), 2, na, 3) || !equalShape(out.Reg.Shape(), 2, na, 32) {
		t.Fatalf("anchors %d, cls %v, reg %v", anc.Len(), out.Cls.Shape(), out.Reg.Shape())
	}
	b := m.Head.Decode(out.Reg, anc).T.Contiguous().F32()
	for a := range na {
		if b[a*4] > anc.CX[a] || b[a*4+2] < anc.CX[a] || b[a*4+1] > anc.CY[a] || b[a*4+3] < anc.CY[a] {
			t.Fatalf("anchor %d box %v does not contain its centre (%g, %g)", a, b[a*4:a*4+4], anc.CX[a], anc.CY[a])
		}
	}
	lc, err := newLossConfig(PicoHeadOpts{})
	if err != nil {
		t.Fatal(err)
	}
	loss, parts := m.Head.Loss(out, anc, [][][4]float64{{{8, 8, 40, 40}}, {{50, 10, 90, 60}, {0, 0, 20, 20}}}, [][]int{{1}, {0, 2}}, lc)
	if parts.Positives == 0 || parts.Cls <= 0 || parts.Box <= 0 || parts.DFL <= 0 {
		t.Fatalf("loss parts %+v", parts)
	}
	loss.Backward()
	for _, p := range m.Params() {
		if p.V.Grad == nil {
			t.Errorf("%s has no gradient", p.Name)
		}
	}
}

func equalShape(s []int, want ...int) bool {
	if len(s) != len(want) {
		return false
	}
	for i := range s {
		if s[i] != want[i] {
			return false
		}
	}
	return true
}

// The shipped configs resolve their _BASE_ files, pass the schema and
// build their models: xs and s share the towers, m decouples them.
func TestShippedConfigs(t *testing.T) {
	for _, tt := range []struct {
		name    string
		scale   float64
		decoup  bool
		channel int
	}{{"det/picodet_xs_synth.yaml", 0.5, false, 64}, {"det/picodet_s_synth.yaml", 0.75, false, 96}, {"det/picodet_m_synth.yaml", 1, true, 128}} {
		cfg, err := config.Load(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		wr, err := build(cfg)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		r := wr.(*runner)
		m, err := r.newModel()
		if err != nil {
			t.Fatal(err)
		}
		if r.backbone.Scale != tt.scale || r.neck.OutChannels != tt.channel || (m.Head.RegTower != nil) != tt.decoup || r.numClasses != 8 {
			t.Errorf("%s: scale %g, channels %d, decoupled %v, classes %d", tt.name, r.backbone.Scale, r.neck.OutChannels, m.Head.RegTower != nil, r.numClasses)
		}
		if _, err := buildPipeline(r.train); err != nil {
			t.Errorf("%s: TrainReader: %v", tt.name, err)
		}
		if sz, _, err := r.inputSize(); err != nil || sz[0] == 0 {
			t.Errorf("%s: predict size %v, %v", tt.name, sz, err)
		}
	}
	// A bad component name is a config error naming the known ones.
	cfg, err := config.Load("det/picodet_xs_synth.yaml", "PicoHeadV2.assigner.name=Hungarian")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build(cfg); err == nil || !strings.Contains(err.Error(), "TaskAlignedAssigner, SimOTAAssigner") {
		t.Errorf("unknown assigner: %v", err)
	}
}

// Mosaic keeps each box on its pixels: four images with one white
// rectangle each; every kept box is white inside and dark just outside
// (where it was not clipped by the canvas).
func TestMosaicMovesBoxes(t *testing.T) {
	mk := func(w, h int, b [4]float64) Sample {
		img := data.NewImage(h, w, 3)
		for y := int(b[1]); y < int(b[3]); y++ {
			for x := int(b[0]); x < int(b[2]); x++ {
				for c := range 3 {
					img.Set(y, x, c, 255)
				}
			}
		}
		return Sample{Img: img, Boxes: [][4]float64{b}, Classes: []int{int(b[0]) % 8}}
	}
	for seed := range uint64(10) {
		s := mk(80, 60, [4]float64{10, 10, 50, 40})
		more := [3]Sample{mk(60, 90, [4]float64{5, 20, 45, 80}), mk(100, 100, [4]float64{60, 60, 96, 96}), mk(70, 50, [4]float64{0, 0, 30, 30})}
		if err := mosaic(&s, more, MosaicOpts{TargetSize: 64, FillValue: 0}, rand.New(rand.NewPCG(seed, 1))); err != nil {
			t.Fatal(err)
		}
		if s.Img.W != 128 || s.Img.H != 128 || len(s.Boxes) == 0 || len(s.Boxes) != len(s.Classes) {
			t.Fatalf("seed %d: %dx%d, boxes %v classes %v", seed, s.Img.W, s.Img.H, s.Boxes, s.Classes)
		}
		for _, b := range s.Boxes {
			cx, cy := int((b[0]+b[2])/2), int((b[1]+b[3])/2)
			if s.Img.At(cy, cx, 0) < 200 {
				t.Errorf("seed %d: box %v centre is not white", seed, b)
			}
			for _, p := range [][2]int{{int(b[0]) - 2, cy}, {int(b[2]) + 2, cy}, {cx, int(b[1]) - 2}, {cx, int(b[3]) + 2}} {
				if p[0] >= 0 && p[0] < 128 && p[1] >= 0 && p[1] < 128 && s.Img.At(p[1], p[0], 0) > 60 {
					t.Errorf("seed %d: box %v: pixel %v just outside is %d", seed, b, p, s.Img.At(p[1], p[0], 0))
				}
			}
		}
	}
}

// A VOCDataSet trains through the same loader: the synth set's VOC files
// give the batches the COCO files give.
func TestVOCDatasetLoader(t *testing.T) {
	stamps, bgs := fakePhotos(t)
	set := t.TempDir()
	if code, _, errOut := runPaddle(t, "det", "synth", "--output", set, "--train", "4", "--eval", "2", "--size", "96", "--seed", "5",
		"--stamps", stamps, "--backgrounds", bgs); code != 0 {
		t.Fatal(errOut)
	}
	path := tinyConfig(t, set, tinyOpts{size: 96, epochs: 1})
	cfg, err := config.Load(path, "TestDataset.name=VOCDataSet", "TestDataset.anno_path=train.txt", "TestDataset.label_list=label_list.txt")
	if err != nil {
		t.Fatal(err)
	}
	wr, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := wr.(*runner)
	batches := func(c config.Component) Batch {
		l, _, err := r.loader(c, r.eval, false)
		if err != nil {
			t.Fatal(err)
		}
		for b, err := range l.Epoch(t.Context(), 0) {
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		t.Fatal("no batch")
		return Batch{}
	}
	voc, coco := batches(r.testDS), batches(r.trainDS)
	d, _ := tensor.MaxDiff(voc.X, coco.X, 0, 0)
	if d != 0 || len(voc.Boxes) != len(coco.Boxes) {
		t.Fatalf("VOC and COCO batches differ: images %g, %d vs %d", d, len(voc.Boxes), len(coco.Boxes))
	}
	for i := range voc.Boxes {
		if len(voc.Boxes[i]) != len(coco.Boxes[i]) {
			t.Fatalf("image %d: %v vs %v", i, voc.Boxes[i], coco.Boxes[i])
		}
		for j := range voc.Boxes[i] {
			if voc.Classes[i][j] != coco.Classes[i][j] || voc.Boxes[i][j] != coco.Boxes[i][j] {
				t.Errorf("image %d box %d: VOC %v %d, COCO %v %d", i, j, voc.Boxes[i][j], voc.Classes[i][j], coco.Boxes[i][j], coco.Classes[i][j])
			}
		}
	}
}
