package dettrain

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow/pdtest"
	"paddle/kits/ocr/internal/train"
)

// testdata/db_pplcnet_x0_25.pdparams is written by
// scripts/ref/pdparams_ref.py (db_pdparams) from its own reading of
// PaddleOCR's DB with det_pp_lcnet (scale 0.25), DBFPN (32 channels) and
// DBHead, each tensor pdtest.Pattern(this package's name for it).
const dbFixture = "testdata/db_pplcnet_x0_25.pdparams"

func dbForward(m nn.Module) *tensor.Tensor {
	x := tensor.Rand(rand.New(rand.NewPCG(7, 7)), tensor.Float32, -1, 1, 1, 3, 64, 64)
	return m.(*DBNet).Forward(ag.Const(x), false).T
}

func newTinyDB(t *testing.T, seed uint64) *DBNet {
	t.Helper()
	m, err := buildModel(tinyArch(t), rand.New(rand.NewPCG(seed, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDBLoadsPaddleWeights(t *testing.T) {
	want := newTinyDB(t, 1)
	pdtest.SetPattern(want)
	if err := pdtest.SamePattern(dbFixture, want, newTinyDB(t, 2), dbForward); err != nil {
		t.Fatal(err)
	}
}

// swappedDB exchanges two same-shaped entries of the map.
type swappedDB struct {
	*DBNet
	a, b string
}

func (s swappedDB) PaddleName(name string) (string, bool) {
	switch name {
	case s.a:
		name = s.b
	case s.b:
		name = s.a
	}
	return s.DBNet.PaddleName(name)
}

func TestDBSwappedNameFails(t *testing.T) {
	want := newTinyDB(t, 1)
	pdtest.SetPattern(want)
	got := swappedDB{newTinyDB(t, 2), "head.binarize.conv2.weight", "head.thresh.conv2.weight"}
	err := pdtest.SamePattern(dbFixture, want, got, func(m nn.Module) *tensor.Tensor {
		if s, ok := m.(swappedDB); ok {
			m = s.DBNet
		}
		return dbForward(m)
	})
	if err == nil || !strings.Contains(err.Error(), "differs from the pattern") {
		t.Fatalf("a swapped entry went unnoticed: %v", err)
	}
}

// Written back as .pdparams, the patterned model equals the fixture.
func TestDBWritesPaddleWeights(t *testing.T) {
	m := newTinyDB(t, 1)
	pdtest.SetPattern(m)
	if err := pdtest.WritesFixture(dbFixture, t.TempDir(), m); err != nil {
		t.Fatal(err)
	}
}

// Global.pretrained_model may name PaddleOCR weights without their
// .pdparams suffix, as PaddleOCR's configs do.
func TestPretrainedModelWithoutSuffix(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(dbFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "best_accuracy.pdparams"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := newTinyDB(t, 1)
	pdtest.SetPattern(want)
	got := newTinyDB(t, 2)
	if err := train.Pretrained(got, filepath.Join(dir, "best_accuracy")); err != nil {
		t.Fatal(err)
	}
	if d := pdtest.MaxDiff(dbForward(got), dbForward(want)); d > 1e-5 {
		t.Fatalf("predictions differ by %g", d)
	}
	if err := train.Pretrained(got, filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "Global.pretrained_model") {
		t.Fatalf("err = %v", err)
	}
}
