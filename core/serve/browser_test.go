package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromiumFlags run Debian's chromium headless, offline-friendly and
// without touching the user's profile (a fresh --user-data-dir is added).
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"}

// chromium returns the browser's path, skipping the test where there is none.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (scripts/setup.sh installs Debian's chromium): the page is not tested in a browser")
	return ""
}

// runChromium runs the browser on url with extra flags and returns its stdout.
func runChromium(t *testing.T, bin, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(append(slices.Clone(chromiumFlags), "--user-data-dir="+t.TempDir()), extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, errb.String())
	}
	return out.String()
}

// ocrRecord is a fake OCR answer with three lines.
var ocrRecord = map[string]any{
	"image": "sample.png", "width": 320, "height": 120, "ms": 1.5,
	"results": []map[string]any{
		{"text": "Hello", "score": 0.99, "points": [][2]int{{10, 10}, {120, 10}, {120, 40}, {10, 40}}},
		{"text": "paddle", "score": 0.97, "points": [][2]int{{10, 50}, {150, 50}, {150, 80}, {10, 80}}},
		{"text": "serve", "score": 0.95, "points": [][2]int{{10, 85}, {130, 85}, {130, 115}, {10, 115}}},
	},
}

// TestPageInBrowser loads the page in a real headless browser with ?demo=1:
// the page posts the shipped sample image itself, and the test checks that
// the server received exactly that file and that the page drew as many boxes
// as the JSON answer holds and shows that JSON.
func TestPageInBrowser(t *testing.T) {
	bin := chromium(t)
	sample, err := pageFS.ReadFile("page/samples/image.png")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got [][]byte
	pred := PredictorFunc(func(_ context.Context, in Input) (any, error) {
		mu.Lock()
		got = append(got, in.Body)
		mu.Unlock()
		return ocrRecord, nil
	})
	srv, err := NewGroup(Options{Concurrency: 2, Queue: 4},
		Kit{Name: "ocr", Predictor: pred}, Kit{Name: "nlp", Predictor: echoPredictor("nlp"), Input: InputText})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	url := "http://" + ln.Addr().String() + "/?demo=1&kit=ocr"

	// The virtual time budget lets the page's fetches finish before the DOM is
	// dumped; on a loaded machine the browser sometimes dumps it before the
	// page's last step (the answer drawn, the status not yet updated), so a
	// page that did not finish gets two more tries, each counted afresh.
	var dom string
	for try := 0; try < 3; try++ {
		mu.Lock()
		got = nil
		mu.Unlock()
		dom = runChromium(t, bin, url, "--virtual-time-budget=30000", "--dump-dom")
		if strings.Contains(dom, `data-demo="done"`) {
			break
		}
	}
	if !strings.Contains(dom, `data-demo="done"`) {
		t.Fatalf("the page did not finish its demo in three tries; DOM:\n%s", dom)
	}
	mu.Lock()
	n := len(got)
	same := n == 1 && bytes.Equal(got[0], sample)
	mu.Unlock()
	if !same {
		t.Errorf("the server got %d requests; want one with the shipped sample (%d bytes)", n, len(sample))
	}
	m := regexp.MustCompile(`(?s)<pre id="json">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no JSON shown; DOM:\n%s", dom)
	}
	var shown struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &shown); err != nil {
		t.Fatalf("the JSON shown does not parse: %v\n%s", err, m[1])
	}
	boxes := strings.Count(dom, `<polygon class="box"`)
	if len(shown.Results) != 3 || boxes != len(shown.Results) {
		t.Errorf("the page drew %d boxes; its JSON holds %d results (want 3)", boxes, len(shown.Results))
	}
	if !strings.Contains(dom, `data-boxes="3"`) || !strings.Contains(dom, ">paddle</text>") {
		t.Errorf("the drawing lacks its count or captions; DOM:\n%s", dom)
	}
	if !strings.Contains(dom, `data-kit="nlp"`) {
		t.Errorf("the page does not offer the second kit")
	}

	// PADDLE_SCREENSHOT=file.png keeps a screenshot of the page to look at.
	if shot := os.Getenv("PADDLE_SCREENSHOT"); shot != "" {
		abs, _ := filepath.Abs(shot)
		runChromium(t, bin, url, "--virtual-time-budget=30000", "--window-size=1200,800", "--screenshot="+abs)
		if st, err := os.Stat(abs); err != nil || st.Size() == 0 {
			t.Errorf("no screenshot at %s: %v", abs, err)
		}
	}
}
