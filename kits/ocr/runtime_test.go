package ocr

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"paddle/core/hub"
)

// storeDir finds the ppocrv4 files: the model store, $PADDLE_MODELS_DIR, or the folder
// of scripts/fetch_ppocrv4.sh; "" when none has them.
func storeDir() string {
	var dirs []string
	if d, ok := hub.Path(storeModel); ok {
		dirs = append(dirs, d)
	}
	if d := os.Getenv("PADDLE_MODELS_DIR"); d != "" {
		dirs = append(dirs, d, filepath.Join(d, "package", "assets"))
	}
	dirs = append(dirs, filepath.Join(hub.CacheDir(), "npm", "ocr-models-1.4.2", "package", "assets"))
	for _, d := range dirs {
		if fileExists(filepath.Join(d, storeDet)) && fileExists(filepath.Join(d, storeDict)) {
			return d
		}
	}
	return ""
}

var (
	sysOnce  sync.Once
	sysCache map[bool]*System
	sysErr   error
)

// realSystems loads the PP-OCRv4 models once: with and without the angle classifier.
func realSystems(t *testing.T) map[bool]*System {
	t.Helper()
	dir := storeDir()
	if dir == "" {
		t.Skip("ppocrv4 models not found: run `paddle model pull ppocrv4` or scripts/fetch_ppocrv4.sh")
	}
	sysOnce.Do(func() {
		src := Sources{Det: filepath.Join(dir, storeDet), Rec: filepath.Join(dir, storeRec),
			Cls: filepath.Join(dir, storeCls), Dict: filepath.Join(dir, storeDict), UseDet: true, UseCls: true, Offline: true}
		s, err := LoadSystem(context.Background(), src, ProfileV2())
		if err != nil {
			sysErr = err
			return
		}
		noCls := *s
		noCls.Cls = nil
		sysCache = map[bool]*System{true: s, false: &noCls}
	})
	if sysErr != nil {
		t.Fatal(sysErr)
	}
	return sysCache
}

// goldenQuick are the cases run by default; PADDLE_OCR_GOLDEN=all runs every case
// (about 30 s on two cores; the replay test covers every case without models).
var goldenQuick = []string{"sample_en_v2.json", "mix_zh_en_v2.json", "rotated_v2_cls.json", "line_v2_nodet.json"}

// TestRuntimeGolden runs the full system on core/runtime and compares it with the
// reference run on ONNX Runtime: same lines, identical text, box corners within 1 px,
// scores within 1e-3.
func TestRuntimeGolden(t *testing.T) {
	systems := realSystems(t)
	goldens := loadGoldens(t)
	names := goldenQuick
	if os.Getenv("PADDLE_OCR_GOLDEN") == "all" {
		names = names[:0]
		for n := range goldens {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	for _, name := range names {
		g := goldens[name]
		if g == nil {
			t.Fatalf("no golden %s", name)
		}
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			img := loadBGR(t, g.Image)
			s := *systems[g.Cls]
			s.Profile, _ = ProfileByName(g.Profile)
			start := time.Now()
			var got []Result
			var err error
			if g.Det {
				got, err = s.Predict(img)
			} else {
				var r Result
				r, err = s.PredictLine(img)
				got = []Result{r}
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d lines in %v", name, len(got), time.Since(start))
			compareResults(t, got, g.Results, g.Det, 1, 1e-3)
		})
	}
}
