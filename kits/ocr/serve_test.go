package ocr

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/backend"
	_ "paddle/core/backend/all" // the cpu backend, as in the binary
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/data"
	"paddle/core/parallel"
	"paddle/core/serve"
	"paddle/core/tensor"
)

// expectedOutput is what predict gives for a committed image with sys (ms zeroed).
func expectedOutput(t *testing.T, sys *System, det bool, name string) Output {
	t.Helper()
	pages, err := readPages(context.Background(), filepath.Join("testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	want, err := recognisePage(sys, pages[0], det, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want.Image, want.Ms = name, 0
	return want
}

// decodeOutput reads a served Output, checking ms is there and zeroing it.
func decodeOutput(t *testing.T, body []byte) Output {
	t.Helper()
	var got Output
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("response %q: %v", body, err)
	}
	if !bytes.Contains(body, []byte(`"ms":`)) {
		t.Errorf("response has no ms: %s", body)
	}
	got.Ms = 0
	return got
}

// pngHeader returns the start of a PNG that declares w×h pixels: enough for
// image.DecodeConfig, too little to decode.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 17)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 2 // 8-bit RGB
	b := append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0, 13)
	b = append(b, ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
}

// TestServePredictor serves fake models: the answer is predict's object for the
// same image, bad and oversized images are 400s.
func TestServePredictor(t *testing.T) {
	sys, _ := fakeLoad(context.Background(), Sources{}, ProfileV2())
	img, err := os.ReadFile("testdata/images/sample_en.png")
	if err != nil {
		t.Fatal(err)
	}
	for _, det := range []bool{true, false} {
		t.Run(fmt.Sprintf("det=%v", det), func(t *testing.T) {
			h := serve.New("ocr", &Predictor{System: sys, Det: det}, serve.Options{})
			req := httptest.NewRequest("POST", "/v1/ocr?name=sample_en.png", bytes.NewReader(img))
			req.Header.Set("Content-Type", "image/png")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("code %d: %s", rec.Code, rec.Body)
			}
			got, want := decodeOutput(t, rec.Body.Bytes()), expectedOutput(t, sys, det, "sample_en.png")
			if len(want.Results) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("served %+v\nwant     %+v", got, want)
			}
			if det == false && strings.Contains(rec.Body.String(), "points") {
				t.Errorf("points without detection: %s", rec.Body)
			}
		})
	}
	h := serve.New("ocr", &Predictor{System: sys, Det: true}, serve.Options{})
	defer data.SetMaxPixels(data.MaxPixels())
	data.SetMaxPixels(serve.DefaultMaxPixels) // what `paddle serve` sets by default
	for _, tt := range []struct {
		name    string
		body    []byte
		wantErr string
	}{
		{"not an image", []byte("hello"), "image: unknown image format"},
		{"truncated png", img[:200], "image: decode png"},
		{"too many pixels", pngHeader(10000, 5000), "10000×5000 = 50000000 pixels, more than the limit of 40000000"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/ocr", bytes.NewReader(tt.body)))
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), tt.wantErr) {
			t.Errorf("%s: %d %s, want 400 with %q", tt.name, rec.Code, rec.Body, tt.wantErr)
		}
	}
}

// TestServeFlags checks `paddle serve ocr` has predict's model flags and defaults.
func TestServeFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	cmd := &cobra.Command{}
	load := Serve(f, cmd)
	pred := NewCmdPredict(f, nil)
	for _, name := range serveFlags {
		got, want := cmd.Flags().Lookup(name), pred.Flags().Lookup(name)
		if got == nil || got.DefValue != want.DefValue || got.Usage != want.Usage {
			t.Errorf("--%s: %+v, want predict's %+v", name, got, want)
		}
	}
	if cmd.Flags().Lookup("draw") != nil || cmd.Flags().Lookup("workers") != nil {
		t.Error("serve has predict's output flags (--draw, --workers)")
	}
	for _, tt := range []struct{ flag, value, wantErr string }{
		{"profile", "v9", `--profile: unknown profile "v9"`},
		{"batch", "0", "--batch must be at least 1"},
		{"space-mode", "blanks", `--space-mode: unknown space mode "blanks"`},
		{"lang", "fr", `--lang: unknown language "fr"`},
	} {
		cmd := &cobra.Command{}
		load = Serve(f, cmd)
		if err := cmd.Flags().Set(tt.flag, tt.value); err != nil {
			t.Fatal(err)
		}
		_, err := load(context.Background())
		var fe *cmdutil.FlagError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("--%s %s: err %v, want a flag error with %q", tt.flag, tt.value, err, tt.wantErr)
		}
	}
}

// vmRSS returns this process's resident set size in KiB (Linux).
func vmRSS(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatalf("VmRSS line %q: %v", line, err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TestServeLoad is issue 5's load test of `paddle serve ocr` on loopback with the
// real PP-OCRv4 models: 200 requests at concurrency 8 on a committed image, all
// answered with predict's result, and RSS flat within 10 % between request 50 and
// request 200 (measured when settled; see settled).
func TestServeLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	sys := realSystems(t)[false]
	// The kernels `paddle serve` runs on: the binary activates the cpu backend's
	// SIMD GEMM at start-up (root's prepare); tests otherwise run the portable ones.
	// The activation is process-wide and stays for the package's later tests.
	b, err := backend.Get("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.Activate(b, parallel.Threads()); err != nil {
		t.Fatal(err)
	}
	const (
		name    = "tiny.png"
		total   = 200
		clients = 8
	)
	want := expectedOutput(t, sys, true, name)
	if len(want.Results) != 1 || want.Results[0].Text != "OK" {
		t.Fatalf("predict reads %+v in %s, want the one line OK", want.Results, name)
	}
	img, err := os.ReadFile(filepath.Join("testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New("ocr", &Predictor{System: sys, Det: true}, serve.Options{Concurrency: clients, Queue: clients, Timeout: time.Minute})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String() + "/v1/ocr?name=" + name
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: time.Minute}

	var (
		mu       sync.Mutex
		failures []string
		trace    []string
		kinds    = []string{"raw", "multipart", "json"}
	)
	// send makes requests [from, to) with `clients` clients, round-robin over the
	// three encodings.
	send := func(from, to int) {
		var next atomic.Int32
		next.Store(int32(from))
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= to {
						return
					}
					if (i+1)%25 == 0 {
						rss := vmRSS(t)
						mu.Lock()
						trace = append(trace, fmt.Sprintf("%d:%d", i+1, rss/1024))
						mu.Unlock()
					}
					kind := kinds[i%len(kinds)]
					ct, body := "image/png", img
					switch kind {
					case "multipart":
						ct, body = multipartImage(name, img)
					case "json":
						ct = "application/json"
						body, _ = json.Marshal(map[string]any{"image": img}) // []byte marshals as base64
					}
					got, err := post(client, url, ct, body)
					if err == nil {
						if out := decodeOutput(t, got); !reflect.DeepEqual(out, want) {
							err = fmt.Errorf("answer %s, want %+v", got, want)
						}
					}
					if err != nil {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("request %d (%s): %v", i+1, kind, err))
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
	}
	// settled measures once the requests so far are done and their garbage is
	// collected and returned to the OS: what the server holds, without the GC's
	// sawtooth (under load RSS swings by about ±15 % with GOGC=100; the trace below
	// shows it). It returns VmRSS, VmRSS less the free heap pages the runtime keeps
	// mapped even after FreeOSMemory (0.2–7 MiB here, varying run to run: page
	// retention, not data), and the live heap, all in KiB.
	settled := func() (rss, held int, heap uint64) {
		client.CloseIdleConnections()
		runtime.GC() // twice: the first only moves sync.Pool contents to the victim cache
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss = vmRSS(t)
		return rss, rss - int((ms.HeapIdle-ms.HeapReleased)>>10), ms.HeapInuse >> 10
	}
	start := time.Now()
	send(0, 50)
	rss50, held50, heap50 := settled()
	send(50, total)
	rss200, held200, heap200 := settled()
	elapsed := time.Since(start)
	cancel()
	if err := <-served; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed; first: %s", len(failures), total, failures[0])
	}
	change := func(a, b int) float64 { return float64(b-a) / float64(a) }
	t.Logf("RSS (MiB) under load, as requests were sent: %s", strings.Join(trace, " "))
	t.Logf("%d requests (raw, multipart, base64 JSON) at concurrency %d in %v (%.1f req/s)",
		total, clients, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
	t.Logf("settled, after request 50 and after request %d: VmRSS %d → %d KiB (%+.1f%%); less free heap pages %d → %d KiB (%+.1f%%); live heap %d → %d KiB (%+.1f%%)",
		total, rss50, rss200, 100*change(rss50, rss200), held50, held200, 100*change(held50, held200),
		heap50, heap200, 100*change(int(heap50), int(heap200)))
	if c := change(held50, held200); c > 0.10 || c < -0.10 {
		t.Errorf("RSS less free heap pages went from %d KiB (request 50) to %d KiB (request %d): %+.1f%%, want within 10%%", held50, held200, total, 100*c)
	}
	if c := change(int(heap50), int(heap200)); c > 0.10 || c < -0.10 {
		t.Errorf("live heap went from %d KiB (request 50) to %d KiB (request %d): %+.1f%%, want within 10%%", heap50, heap200, total, 100*c)
	}
}

// multipartImage returns a multipart/form-data body with img as field "image".
func multipartImage(name string, img []byte) (string, []byte) {
	var b bytes.Buffer
	ct := "multipart/form-data; boundary=paddle-load-test"
	fmt.Fprintf(&b, "--paddle-load-test\r\nContent-Disposition: form-data; name=\"image\"; filename=%q\r\nContent-Type: image/png\r\n\r\n", name)
	b.Write(img)
	b.WriteString("\r\n--paddle-load-test--\r\n")
	return ct, b.Bytes()
}

// post sends one request and returns the 200 body.
func post(c *http.Client, url, ct string, body []byte) ([]byte, error) {
	resp, err := c.Post(url, ct, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return b, nil
}

// releaseModel is a Model with Release, counting calls.
type releaseModel struct{ released int }

func (m *releaseModel) Run(map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	return nil, nil
}
func (m *releaseModel) Release() { m.released++ }

// TestServeRelease: the served Predictor releases every model that can
// (what `paddle serve` calls when idle), and a system without a classifier
// is fine.
func TestServeRelease(t *testing.T) {
	det, rec, cls := &releaseModel{}, &releaseModel{}, &releaseModel{}
	var _ serve.Releaser = &Predictor{}
	(&Predictor{System: &System{Det: det, Rec: rec, Cls: cls}}).Release()
	(&Predictor{System: &System{Det: det, Rec: rec}}).Release()
	if det.released != 2 || rec.released != 2 || cls.released != 1 {
		t.Errorf("released det %d, rec %d, cls %d times, want 2, 2, 1", det.released, rec.released, cls.released)
	}
}

// TestServeLangPerRequest: ?lang=en reads with the English System, loaded
// once on first use; ?lang=ch (the server's own) and no ?lang= use the
// server's; an unknown language, or ?lang= on a server given its own
// recogniser (no Load), is a 400.
func TestServeLangPerRequest(t *testing.T) {
	ch, _ := fakeLoad(context.Background(), Sources{}, ProfileV2())
	en := &System{Det: ch.Det, Rec: gapRec{}, Chars: []string{"blank", "a", "b", " "}, Profile: ch.Profile, Decode: DecoderFor(SpaceGaps, 1)}
	loads := 0
	p := &Predictor{System: ch, Det: false, Lang: LangCh, Load: func(_ context.Context, lang string) (*System, error) {
		loads++
		if lang != LangEn {
			t.Errorf("Load(%q)", lang)
		}
		return en, nil
	}}
	img, err := os.ReadFile("testdata/images/line.png")
	if err != nil {
		t.Fatal(err)
	}
	post := func(h http.Handler, query string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/ocr"+query, bytes.NewReader(img))
		req.Header.Set("Content-Type", "image/png")
		h.ServeHTTP(rec, req)
		return rec
	}
	h := serve.New("ocr", p, serve.Options{})
	base := post(h, "")
	for _, q := range []string{"?lang=en", "?lang=en&name=x.png"} {
		rec := post(h, q)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"a b"`) {
			t.Errorf("%s: %d %s, want the English System's \"a b\"", q, rec.Code, rec.Body)
		}
	}
	if loads != 1 {
		t.Errorf("the English System was loaded %d times, want once", loads)
	}
	if rec := post(h, "?lang=ch"); rec.Code != 200 || !reflect.DeepEqual(decodeOutput(t, rec.Body.Bytes()).Results, decodeOutput(t, base.Body.Bytes()).Results) {
		t.Errorf("?lang=ch: %d %s, want the server's own answer %s", rec.Code, rec.Body, base.Body)
	}
	if strings.Contains(base.Body.String(), `"a b"`) {
		t.Fatalf("the server's own System already reads \"a b\": %s", base.Body)
	}
	if rec := post(h, "?lang=fr"); rec.Code != 400 || !strings.Contains(rec.Body.String(), `unknown language \"fr\"`) {
		t.Errorf("?lang=fr: %d %s", rec.Code, rec.Body)
	}
	own := serve.New("ocr", &Predictor{System: ch, Lang: LangCh}, serve.Options{})
	if rec := post(own, "?lang=en"); rec.Code != 400 || !strings.Contains(rec.Body.String(), "reads ch only") {
		t.Errorf("?lang=en without Load: %d %s", rec.Code, rec.Body)
	}
}
