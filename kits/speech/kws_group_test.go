package speech

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// rowModel answers each input row (its first value v) with logits [0, s·v].
type rowModel struct{ s float32 }

func (rowModel) Params() []nn.Param { return nil }

func (m rowModel) Forward(x *ag.Var, _ bool) *ag.Var {
	s := x.Shape()
	per := s.NumElements() / s[0]
	out := tensor.New(tensor.Float32, s[0], 2)
	for i := range s[0] {
		out.F32()[2*i+1] = m.s * x.T.Contiguous().F32()[i*per]
	}
	return ag.Const(out)
}

// clipProbs averages the models' softmax rows per clip and warp: under
// v = ln 3 the model s=1 gives [1/4 3/4] and s=2 gives [1/10 9/10], mean
// [0.175 0.825]; under v = 0 both give [1/2 1/2].
func TestClipProbsEnsemble(t *testing.T) {
	x := tensor.FromSlice([]float32{float32(math.Log(3)), 0}, 1, 2, 1, 1)
	p, err := clipProbs([]nn.Layer{rowModel{1}, rowModel{2}}, x)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.175, 0.825}, {0.5, 0.5}}
	for j, row := range want {
		for c, w := range row {
			if math.Abs(p[0][j][c]-w) > 1e-6 {
				t.Fatalf("probs %v, want %v", p[0], want)
			}
		}
	}
	one, err := clipProbs([]nn.Layer{rowModel{1}}, x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(one[0][0][1]-0.75) > 1e-6 {
		t.Errorf("one model: %v, want [0.25 0.75] under warp 0", one[0][0])
	}
}

// One warp per group: group 0 (clips 0, 1) sums log top-probabilities
// ln .9 + ln .55 = −0.703 under warp 0 and ln .6 + ln .8 = −0.734 under
// warp 1, so warp 0 — although clip 1 alone is surer under warp 1 (the
// per-clip "max" would answer class 1 there); group 1 (clip 2) takes warp 1.
func TestGroupWarps(t *testing.T) {
	probs := [][][]float64{
		{{0.9, 0.1}, {0.6, 0.4}},
		{{0.55, 0.45}, {0.2, 0.8}},
		{{0.3, 0.7}, {0.1, 0.9}},
	}
	got := groupWarps(probs, []int{0, 0, 1})
	if got[0] != 0 || got[1] != 1 {
		t.Fatalf("warps %v, want group 0 → 0, group 1 → 1", got)
	}
	m := &groupWarpMetric{inner: newKWSMetric([]string{"yes", "no"}, []int{1}), warps: []float64{0.9, 1.1}, names: []string{"a", "b"}}
	m.add(probs, []int{0, 0, 1}, []int{0, 0, 1})
	if top1 := m.Result().Values["top1"]; top1 != 1 {
		t.Errorf("top1 = %g, want 1 (clip 1 answered under its group's warp 0)", top1)
	}
	perClip := newKWSMetric([]string{"yes", "no"}, []int{1})
	for i, p := range probs {
		perClip.Update(combineProbs(p, "max"), []int{[]int{0, 0, 1}[i]})
	}
	if top1 := perClip.Result().Values["top1"]; math.Abs(top1-2.0/3) > 1e-9 {
		t.Errorf("per-clip max top1 = %g, want 2/3 (the case group warps differ on)", top1)
	}
	if m.Reset(); len(m.probs) != 0 {
		t.Error("Reset kept clips")
	}
}

// test_groups: every clip needs a group (keyed by the list's own path,
// .mfc word included); group needs test_groups and test_warps.
func TestTestGroupsConfig(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.tsv")
	os.WriteFile(g, []byte("# speakers\na.wav\tman\nb.mfc@0.10-0.50 woman\nc.wav man\n"), 0o644)
	items := []kwsItem{{Key: "a.wav"}, {Key: "b.mfc@0.10-0.50"}, {Key: "c.wav"}}
	names, err := assignGroups(items, g)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "man,woman" || items[0].Group != 0 || items[1].Group != 1 || items[2].Group != 0 {
		t.Errorf("groups %v, items %+v", names, items)
	}
	if _, err := assignGroups([]kwsItem{{Key: "d.wav"}}, g); err == nil || !strings.Contains(err.Error(), "no group for clip d.wav") {
		t.Errorf("missing clip error = %v", err)
	}
	if err := checkTestWarps([]float64{1}, "group"); err != nil {
		t.Errorf("group refused: %v", err)
	}
	labels := filepath.Join(dir, "labels.txt")
	os.WriteFile(labels, []byte("yes\nno\n"), 0o644)
	list := filepath.Join(dir, "e.list")
	os.WriteFile(list, []byte("a.wav yes\nd.wav no\n"), 0o644)
	for _, tt := range []struct {
		o    []string
		want string
	}{
		{[]string{"DataLoader.Eval.dataset.test_warps=[0.9,1]"}, "needs test_groups"},
		{[]string{"DataLoader.Eval.dataset.test_warps=[]"}, "needs test_warps"},
		{[]string{"DataLoader.Eval.dataset.test_warps=[0.9,1]", "DataLoader.Eval.dataset.test_groups=" + g}, "no group for clip d.wav"},
	} {
		o := append([]string{"Global.label_file=" + labels, "DataLoader.Eval.dataset.list_file=" + list, "DataLoader.Eval.dataset.test_combine=group"}, tt.o...)
		k, _ := loadKWSRunner(t, "../../configs/speech/kws_mdtc_8k_conn.yaml", o...)
		if err := k.loadClasses(); err != nil {
			t.Fatal(err)
		}
		if _, err := k.loaderFor(k.loader.Eval, false); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.o, err, tt.want)
		}
	}
	k, _ := loadKWSRunner(t, "../../configs/speech/kws_mdtc_8k_conn.yaml", "Global.label_file="+labels, "Global.ensemble=["+dir+"]")
	if _, err := k.loadEnsemble(); err == nil || !strings.Contains(err.Error(), "Global.ensemble") {
		t.Errorf("ensemble of a non-checkpoint: %v", err)
	}
}
