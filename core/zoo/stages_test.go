package zoo

import "testing"

func TestStageTraining(t *testing.T) {
	at := 0
	o := StageTraining{LRMultList: []float64{0.1, 0.2, 0.3, 0.4, 0.5, 1}, FreezeAt: &at}
	if err := o.Check("PPLCNetV3"); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0, 0.3, 0.4, 0.5, 1} // freeze_at 0: the stem and blocks2
	for s, w := range want {
		if got := o.Mult(s); got != w {
			t.Errorf("stage %d: multiplier %g, want %g", s, got, w)
		}
	}
	if (StageTraining{}).Mult(3) != 1 || o.Mult(-1) != 1 {
		t.Error("no options, or an unknown stage: want 1")
	}
	none := -1
	if (StageTraining{FreezeAt: &none}).Mult(0) != 1 {
		t.Error("freeze_at -1 froze the stem")
	}
	big := 5
	for _, bad := range []StageTraining{{LRMultList: []float64{1, 1}}, {LRMultList: []float64{1, 1, 1, -1, 1, 1}}, {FreezeAt: &big}} {
		if bad.Check("X") == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
