package ocr

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"paddle/core/data"
	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// golden is one case written by scripts/ref/ocr_reference.py.
type golden struct {
	Image   string
	Profile string
	Cls     bool
	Det     bool
	Width   int
	Height  int
	Results []goldenResult
	Replay  struct {
		Calls   []replayCall
		Results []goldenResult
		Chars   map[string]string
	}
}

type goldenResult struct {
	Text   string
	Score  float64
	Points [][2]int
}

type replayCall struct {
	Model       string
	InputSHA256 string  `json:"input_sha256"`
	InputShape  []int   `json:"input_shape"`
	InputSum    float64 `json:"input_sum"`
	MapU8       string  `json:"map_u8"`
	Classes     int
	Argmax      [][]int
	Maxprob     [][]float64
	Probs       [][]float64
}

func loadGoldens(t *testing.T) map[string]*golden {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if len(files) < 10 {
		t.Fatalf("only %d golden files in testdata/golden", len(files))
	}
	out := map[string]*golden{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g := &golden{}
		if err := json.Unmarshal(b, g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = g
	}
	return out
}

func loadBGR(t *testing.T, path string) imgproc.Mat8 {
	t.Helper()
	m, err := data.DecodeFile(filepath.Join("testdata", path), data.BGR)
	if err != nil {
		t.Fatal(err)
	}
	return imgproc.Mat8{H: m.H, W: m.W, C: m.C, Pix: m.Pix}
}

func tensorSHA(x *tensor.Tensor) (string, float64) {
	v := x.Contiguous().F32()
	b := make([]byte, 4*len(v))
	var sum float64
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		sum += float64(f)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), sum
}

// replayModels answer the model calls of one reference run in order, after checking
// that each input is bit for bit the reference's.
type replayModels struct {
	t     *testing.T
	calls []replayCall
	next  int
}

type replayModel struct {
	r    *replayModels
	kind string
}

func (m replayModel) Run(in map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	r := m.r
	if r.next >= len(r.calls) {
		return nil, fmt.Errorf("unexpected %s call #%d", m.kind, r.next)
	}
	c := r.calls[r.next]
	r.next++
	if c.Model != m.kind {
		return nil, fmt.Errorf("call #%d: %s model called, reference called %s", r.next-1, m.kind, c.Model)
	}
	x := in["x"]
	if x == nil {
		return nil, fmt.Errorf("no input x")
	}
	if fmt.Sprint(x.Shape()) != fmt.Sprint(tensor.Shape(c.InputShape)) {
		return nil, fmt.Errorf("%s call: input shape %v, reference %v", m.kind, x.Shape(), c.InputShape)
	}
	if sum, s := tensorSHA(x); sum != c.InputSHA256 {
		r.t.Errorf("%s call #%d: input differs from the reference (sum %.6f, reference %.6f)", m.kind, r.next-1, s, c.InputSum)
	}
	switch m.kind {
	case "det":
		z, err := base64.StdEncoding.DecodeString(c.MapU8)
		if err != nil {
			return nil, err
		}
		zr, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			return nil, err
		}
		u8, err := io.ReadAll(zr)
		if err != nil {
			return nil, err
		}
		h, w := c.InputShape[2], c.InputShape[3]
		y := tensor.New(tensor.Float32, 1, 1, h, w)
		for i, v := range u8 {
			y.F32()[i] = float32(v) / 255
		}
		return map[string]*tensor.Tensor{"sigmoid_0.tmp_0": y}, nil
	case "rec":
		n, steps := len(c.Argmax), len(c.Argmax[0])
		y := tensor.New(tensor.Float32, n, steps, c.Classes)
		d := y.F32()
		for i := range c.Argmax {
			for s, k := range c.Argmax[i] {
				d[(i*steps+s)*c.Classes+k] = float32(c.Maxprob[i][s])
			}
		}
		return map[string]*tensor.Tensor{"softmax_11.tmp_0": y}, nil
	default:
		y := tensor.New(tensor.Float32, len(c.Probs), 2)
		for i, p := range c.Probs {
			y.F32()[2*i], y.F32()[2*i+1] = float32(p[0]), float32(p[1])
		}
		return map[string]*tensor.Tensor{"softmax_0.tmp_0": y}, nil
	}
}

// TestReplayGolden runs the Go pipeline with the reference's recorded model outputs:
// every model input must equal the reference's bit for bit, and boxes, texts and
// scores must come out exactly as PaddleOCR's logic on OpenCV/pyclipper/shapely gives.
func TestReplayGolden(t *testing.T) {
	for name, g := range loadGoldens(t) {
		t.Run(name, func(t *testing.T) {
			img := loadBGR(t, g.Image)
			if img.W != g.Width || img.H != g.Height {
				t.Fatalf("image %dx%d, reference %dx%d", img.W, img.H, g.Width, g.Height)
			}
			prof, err := ProfileByName(g.Profile)
			if err != nil {
				t.Fatal(err)
			}
			r := &replayModels{t: t, calls: g.Replay.Calls}
			sys := &System{Det: replayModel{r, "det"}, Rec: replayModel{r, "rec"}, Profile: prof}
			if g.Cls {
				sys.Cls = replayModel{r, "cls"}
			}
			classes := 6625
			for _, c := range g.Replay.Calls {
				if c.Model == "rec" {
					classes = c.Classes
				}
			}
			sys.Chars = make([]string, classes)
			for k, v := range g.Replay.Chars {
				i, _ := strconv.Atoi(k)
				sys.Chars[i] = v
			}
			var got []Result
			if g.Det {
				got, err = sys.Predict(img)
			} else {
				var res Result
				res, err = sys.PredictLine(img)
				got = []Result{res}
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.next != len(r.calls) {
				t.Errorf("%d model calls, reference made %d", r.next, len(r.calls))
			}
			compareResults(t, got, g.Replay.Results, g.Det, 0, 0)
		})
	}
}

// compareResults checks got against want: same count and text, box corners within tol
// pixels, scores within stol.
func compareResults(t *testing.T, got []Result, want []goldenResult, det bool, tol int, stol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d results, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Text != w.Text {
			t.Errorf("result %d: text %q, want %q", i, g.Text, w.Text)
		}
		if math.Abs(g.Score-w.Score) > stol {
			t.Errorf("result %d (%q): score %v, want %v", i, w.Text, g.Score, w.Score)
		}
		if !det {
			continue
		}
		for k := 0; k < 4; k++ {
			gx, gy := int(g.Box[k].X), int(g.Box[k].Y)
			if abs(gx-w.Points[k][0]) > tol || abs(gy-w.Points[k][1]) > tol {
				t.Errorf("result %d (%q): box %v, want %v", i, w.Text, g.Box, w.Points)
				break
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
