package det

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "paddle/core/backend/all"
	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
)

// The pycocotools fixtures of core/metric/coco (edge: 3 categories, one without GT).
var fixtureDir = filepath.Join("..", "..", "core", "metric", "coco", "testdata")

func runPaddle(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("PADDLE_CONFIG", "")
	return clitest.Run(t, []*cmdutil.Kit{Kit()}, "", args...)
}

func TestEvalCommand(t *testing.T) {
	gt, dt := filepath.Join(fixtureDir, "edge_gt.json"), filepath.Join(fixtureDir, "edge_dt.json")
	var ref struct {
		Stats         []float64 `json:"stats"`
		Summary       []string  `json:"summary"`
		PerCategoryAP []float64 `json:"per_category_ap"`
	}
	b, err := os.ReadFile(filepath.Join(fixtureDir, "edge_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runPaddle(t, "det", "eval", "--gt", gt, "--dt", dt, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep EvalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i, want := range ref.Stats {
		if math.Abs(rep.Stats[i]-want) > 1e-12 {
			t.Errorf("stats[%d] = %v, want %v", i, rep.Stats[i], want)
		}
	}
	// categories a, b, c (ids 1, 2, 3); c has no GT: -1
	for k, name := range []string{"a", "b", "c"} {
		if got, ok := rep.PerCategory[name]; !ok || math.Abs(got-ref.PerCategoryAP[k]) > 1e-12 {
			t.Errorf("per_category[%s] = %v (present %v), want %v", name, got, ok, ref.PerCategoryAP[k])
		}
	}
	if !strings.Contains(errOut, "detections of categories not in the ground truth are ignored") {
		t.Errorf("no warning about the unknown category on stderr: %q", errOut)
	}

	code, out, _ = runPaddle(t, "det", "eval", "--gt", gt, "--dt", dt)
	if code != 0 || !strings.HasPrefix(out, strings.Join(ref.Summary, "\n")+"\n") {
		t.Errorf("text output (exit %d) does not start with pycocotools' summary:\n%s", code, out)
	}
	if !strings.Contains(out, "category  AP@[.5:.95]\na         ") {
		t.Errorf("no per-category table:\n%s", out)
	}
}

func TestEvalCommandErrors(t *testing.T) {
	gt := filepath.Join(fixtureDir, "edge_gt.json")
	bad := filepath.Join(t.TempDir(), "dt.json")
	if err := os.WriteFile(bad, []byte(`[{"image_id":99,"category_id":1,"bbox":[0,0,1,1],"score":1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"det", "eval", "--gt", gt}, 2, "--gt and --dt are both required"},
		{[]string{"det", "eval", "-c", "x.yaml"}, 2, "-c needs --weights"},
		{[]string{"det", "eval", "--gt", gt, "--dt", bad}, 1, "dt.json: result [0]: image_id 99 is not an image of the ground truth"},
		{[]string{"det", "eval", "--gt", "none.json", "--dt", bad}, 1, "none.json"},
		{[]string{"det", "eval", "--gt", gt, "--dt", bad, "--format", "csv"}, 2, `--format "csv"`},
	} {
		code, _, errOut := runPaddle(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}

// TestEvalClassAgnostic: two objects, each found at its place with the
// other's class, plus a near-duplicate (IoU 0.87) of the first with the
// right class ranked between them. Worked by hand (101-point AP):
//   - per class: a's only TP is the duplicate, matched at thresholds
//     0.5-0.85 (8 of 10) and ranked first among a's detections: AP 0.8;
//     b has only a false positive: 0. mAP 0.4.
//   - agnostic: TP, FP (duplicate), TP: precision 1 up to recall 0.5 (51
//     points), 2/3 after (50 points): (51 + 50·2/3)/101.
//   - agnostic after --agnostic-nms 0.6 (duplicate dropped): 1.
//   - per class after --agnostic-nms 0.6: a keeps only its false positive: 0.
func TestEvalClassAgnostic(t *testing.T) {
	dir := t.TempDir()
	gt, dt := filepath.Join(dir, "gt.json"), filepath.Join(dir, "dt.json")
	if err := os.WriteFile(gt, []byte(`{"images":[{"id":1,"width":64,"height":64}],
"categories":[{"id":1,"name":"a"},{"id":2,"name":"b"}],
"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,10,10],"area":100,"iscrowd":0},
{"id":2,"image_id":1,"category_id":2,"bbox":[20,20,10,10],"area":100,"iscrowd":0}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dt, []byte(`[{"image_id":1,"category_id":2,"bbox":[0,0,10,10],"score":0.9},
{"image_id":1,"category_id":1,"bbox":[0,0,10,8.7],"score":0.85},
{"image_id":1,"category_id":1,"bbox":[20,20,10,10],"score":0.8}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		agnostic, nms string
		want          float64
	}{
		{"--class-agnostic=false", "0", 0.4},
		{"--class-agnostic", "0", (51 + 50*2.0/3) / 101},
		{"--class-agnostic", "0.6", 1},
		{"--class-agnostic=false", "0.6", 0},
	} {
		code, out, errOut := runPaddle(t, "det", "eval", "--gt", gt, "--dt", dt, "--format", "json", c.agnostic, "--agnostic-nms", c.nms)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep EvalReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if math.Abs(rep.Stats[0]-c.want) > 1e-12 {
			t.Errorf("%s --agnostic-nms %s: mAP %v, want %v", c.agnostic, c.nms, rep.Stats[0], c.want)
		}
	}
}
