package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testPNG returns a w×h PNG.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.Set(0, 0, color.RGBA{1, 2, 3, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decoded is what decodePredictor answers.
type decoded struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
}

// decodePredictor is a fake kit: it decodes the image and reports its size.
var decodePredictor = PredictorFunc(func(_ context.Context, in Input) (any, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(in.Body))
	if err != nil {
		return nil, BadInput(fmt.Errorf("decode image: %w", err))
	}
	return decoded{in.Name, in.ContentType, cfg.Width, cfg.Height}, nil
})

func multipartBody(t testing.TB, parts ...[3]string) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts { // field, file name ("" = plain field), content
		h := textproto.MIMEHeader{}
		disp := fmt.Sprintf(`form-data; name=%q`, p[0])
		if p[1] != "" {
			disp += fmt.Sprintf(`; filename=%q`, p[1])
			h.Set("Content-Type", "image/png")
		}
		h.Set("Content-Disposition", disp)
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p[2])
	}
	mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

func jsonBody(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func do(t *testing.T, h http.Handler, method, target, ct string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// errorOf returns the "error" of a JSON error body, failing when the body is not one.
func errorOf(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var e map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e["error"] == "" || len(e) != 1 {
		t.Fatalf("body %q is not {\"error\": \"...\"}", rec.Body)
	}
	return e["error"]
}

func TestPredictInputs(t *testing.T) {
	img := string(testPNG(t, 7, 5))
	b64 := base64.StdEncoding.EncodeToString([]byte(img))
	mpImage, mpImageBody := multipartBody(t, [3]string{"note", "", "hi"}, [3]string{"other", "a.png", "not an image"}, [3]string{"image", "scan.png", img})
	mpFirst, mpFirstBody := multipartBody(t, [3]string{"note", "", "hi"}, [3]string{"upload", "first.png", img}, [3]string{"x", "second.png", "junk"})
	mpNone, mpNoneBody := multipartBody(t, [3]string{"note", "", "hi"})
	tests := []struct {
		name     string
		target   string
		ct       string
		body     []byte
		wantCode int
		want     decoded
		wantErr  string
	}{
		{"raw png", "/v1/fake?name=a.png", "image/png", []byte(img), 200, decoded{"a.png", "image/png", 7, 5}, ""},
		{"raw octet-stream", "/v1/fake", "application/octet-stream", []byte(img), 200, decoded{"", "", 7, 5}, ""},
		{"raw no content type", "/v1/fake", "", []byte(img), 200, decoded{"", "", 7, 5}, ""},
		{"multipart image field", "/v1/fake", mpImage, mpImageBody, 200, decoded{"scan.png", "image/png", 7, 5}, ""},
		{"multipart first file", "/v1/fake", mpFirst, mpFirstBody, 200, decoded{"first.png", "image/png", 7, 5}, ""},
		{"multipart no file", "/v1/fake", mpNone, mpNoneBody, 400, decoded{}, `no field "image"`},
		{"multipart no boundary", "/v1/fake", "multipart/form-data", mpImageBody, 400, decoded{}, "boundary"},
		{"json base64", "/v1/fake", "application/json", jsonBody(t, map[string]string{"image": b64, "name": "j.png"}), 200, decoded{"j.png", "", 7, 5}, ""},
		{"json base64 unpadded url-safe", "/v1/fake", "application/json; charset=utf-8",
			jsonBody(t, map[string]string{"image": base64.RawURLEncoding.EncodeToString([]byte(img))}), 200, decoded{"", "", 7, 5}, ""},
		{"json data url", "/v1/fake", "application/json", jsonBody(t, map[string]string{"image": "data:image/png;base64," + b64}), 200, decoded{"", "", 7, 5}, ""},
		{"json bad base64", "/v1/fake", "application/json", []byte(`{"image": "@@@not base64"}`), 400, decoded{}, "base64"},
		{"json without image", "/v1/fake", "application/json", []byte(`{"name": "x"}`), 400, decoded{}, `no "image", "audio" or "text"`},
		{"json malformed", "/v1/fake", "application/json", []byte(`{"image": `), 400, decoded{}, "JSON body"},
		{"bad image", "/v1/fake", "image/png", []byte("this is not a png"), 400, decoded{}, "decode image"},
		{"empty body", "/v1/fake", "image/png", nil, 400, decoded{}, "empty request body"},
		{"bad content type", "/v1/fake", "image/png; ===", []byte(img), 400, decoded{}, "content type"},
	}
	s := New("fake", decodePredictor, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, "POST", tt.target, tt.ct, bytes.NewReader(tt.body))
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d (body %s)", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantErr != "" {
				if e := errorOf(t, rec); !strings.Contains(e, tt.wantErr) {
					t.Errorf("error = %q, want it to contain %q", e, tt.wantErr)
				}
				return
			}
			var got decoded
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// chunked hides the length of a body, as a chunked upload does.
type chunked struct{ io.Reader }

func TestOversized(t *testing.T) {
	const limit = 1000
	s := New("fake", decodePredictor, Options{MaxBody: limit})
	big := bytes.Repeat([]byte("a"), limit+1)
	ok := testPNG(t, 3, 3)
	if len(ok) > limit {
		t.Fatalf("test image is %d bytes, over the limit", len(ok))
	}
	mp, mpBody := multipartBody(t, [3]string{"image", "a.png", string(big)})
	tests := []struct {
		name string
		ct   string
		body io.Reader
		want int
	}{
		{"raw with length", "image/png", bytes.NewReader(big), 413},
		{"raw chunked", "image/png", chunked{bytes.NewReader(big)}, 413},
		{"json chunked", "application/json", chunked{strings.NewReader(`{"image": "` + strings.Repeat("A", limit) + `"}`)}, 413},
		{"multipart chunked", mp, chunked{bytes.NewReader(mpBody)}, 413},
		{"at the limit", "image/png", chunked{bytes.NewReader(ok)}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, "POST", "/v1/fake", tt.ct, tt.body)
			if rec.Code != tt.want {
				t.Fatalf("code = %d, want %d (body %s)", rec.Code, tt.want, rec.Body)
			}
			if tt.want == 413 {
				if e := errorOf(t, rec); !strings.Contains(e, "larger than 1000B") {
					t.Errorf("error = %q", e)
				}
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	s := New("fake", decodePredictor, Options{Concurrency: 2, Queue: 3})
	tests := []struct {
		method, target string
		want           int
		wantErr        string
	}{
		{"GET", "/v1/fake", 405, "use POST /v1/fake"},
		{"POST", "/v1/other", 404, "known: POST /v1/fake"},
		{"GET", "/nowhere", 404, "no route GET /nowhere"},
		{"POST", "/", 405, "use GET /"},
		{"POST", "/healthz", 405, "GET /healthz"},
	}
	for _, tt := range tests {
		rec := do(t, s, tt.method, tt.target, "", nil)
		if rec.Code != tt.want {
			t.Errorf("%s %s: code %d, want %d", tt.method, tt.target, rec.Code, tt.want)
			continue
		}
		if e := errorOf(t, rec); !strings.Contains(e, tt.wantErr) {
			t.Errorf("%s %s: error %q, want it to contain %q", tt.method, tt.target, e, tt.wantErr)
		}
	}
	rec := do(t, s, "GET", "/healthz", "", nil)
	var h Health
	if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil || rec.Code != 200 {
		t.Fatalf("healthz: %d %s", rec.Code, rec.Body)
	}
	if want := (Health{Status: "ok", Kit: "fake", Concurrency: 2, Queue: 3}); h != want {
		t.Errorf("healthz = %+v, want %+v", h, want)
	}
}

func TestPredictErrors(t *testing.T) {
	tests := []struct {
		name    string
		pred    PredictorFunc
		want    int
		wantErr string
	}{
		{"input error", func(context.Context, Input) (any, error) { return nil, BadInput(errors.New("odd image")) }, 400, "odd image"},
		{"wrapped input error", func(context.Context, Input) (any, error) {
			return nil, fmt.Errorf("page 1: %w", BadInput(errors.New("odd")))
		}, 400, "page 1: odd"},
		{"kit failure", func(context.Context, Input) (any, error) { return nil, errors.New("model exploded") }, 500, "model exploded"},
		{"panic", func(context.Context, Input) (any, error) { panic("index out of range") }, 500, "internal error: index out of range"},
		{"unencodable", func(context.Context, Input) (any, error) { return func() {}, nil }, 500, "encode result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("fake", tt.pred, Options{})
			rec := do(t, s, "POST", "/v1/fake", "image/png", strings.NewReader("x"))
			if rec.Code != tt.want {
				t.Fatalf("code = %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
			if e := errorOf(t, rec); !strings.Contains(e, tt.wantErr) {
				t.Errorf("error = %q, want it to contain %q", e, tt.wantErr)
			}
			if n := len(s.slots) + len(s.tickets); n != 0 {
				t.Errorf("%d slots/tickets still held after the request", n)
			}
		})
	}
}

// gate is a fake kit whose predictions block until released.
type gate struct {
	entered chan struct{}
	release chan struct{}
	active  atomic.Int32
	peak    atomic.Int32
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 100), release: make(chan struct{})} }

func (g *gate) Predict(_ context.Context, in Input) (any, error) {
	n := g.active.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	g.entered <- struct{}{}
	<-g.release // like a real model, it ignores ctx
	g.active.Add(-1)
	return map[string]string{"name": in.Name}, nil
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestQueueFull(t *testing.T) {
	g := newGate()
	s := New("fake", g, Options{Concurrency: 2, Queue: 1})
	codes := make(chan int, 3)
	for i := range 3 { // 2 running, 1 waiting
		go func() {
			codes <- do(t, s, "POST", fmt.Sprintf("/v1/fake?name=%d", i), "image/png", strings.NewReader("x")).Code
		}()
	}
	<-g.entered
	<-g.entered
	waitFor(t, "the third request to queue", func() bool { return len(s.tickets) == 3 })
	rec := do(t, s, "GET", "/healthz", "", nil)
	if !strings.Contains(rec.Body.String(), `"running":2,"waiting":1`) {
		t.Errorf("healthz while full = %s", rec.Body)
	}
	rec = do(t, s, "POST", "/v1/fake", "image/png", strings.NewReader("x"))
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("full server: code %d Retry-After %q, want 503 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	if e := errorOf(t, rec); !strings.Contains(e, "server busy") {
		t.Errorf("error = %q", e)
	}
	close(g.release)
	for range 3 {
		if c := <-codes; c != 200 {
			t.Errorf("admitted request got %d, want 200", c)
		}
	}
	if p := g.peak.Load(); p != 2 {
		t.Errorf("peak concurrent predictions = %d, want 2", p)
	}
	if rec := do(t, s, "POST", "/v1/fake", "image/png", strings.NewReader("x")); rec.Code != 200 {
		t.Errorf("after the burst: code %d, want 200", rec.Code)
	}
}

func TestTimeout(t *testing.T) {
	g := newGate()
	s := New("fake", g, Options{Concurrency: 1, Queue: 1, Timeout: 100 * time.Millisecond})
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- do(t, s, "POST", "/v1/fake", "image/png", strings.NewReader("x")) }()
	<-g.entered
	// The second request waits for the slot the first holds and times out there.
	rec := do(t, s, "POST", "/v1/fake", "image/png", strings.NewReader("x"))
	if rec.Code != 504 {
		t.Fatalf("queued request: code %d, want 504", rec.Code)
	}
	if e := errorOf(t, rec); !strings.Contains(e, "waiting for a free slot") {
		t.Errorf("error = %q", e)
	}
	rec = <-first
	if rec.Code != 504 {
		t.Fatalf("running request: code %d, want 504", rec.Code)
	}
	if e := errorOf(t, rec); !strings.Contains(e, "no answer within 100ms (timed out predicting") {
		t.Errorf("error = %q", e)
	}
	// The timed-out prediction still holds its slot: a new request cannot run
	// until the model is done with it.
	if len(s.slots) != 1 || len(s.tickets) != 1 {
		t.Errorf("slots %d tickets %d after the timeout, want 1 and 1", len(s.slots), len(s.tickets))
	}
	close(g.release)
	waitFor(t, "the slot to be freed", func() bool { return len(s.slots) == 0 && len(s.tickets) == 0 })
	if rec := do(t, s, "POST", "/v1/fake", "image/png", strings.NewReader("x")); rec.Code != 200 {
		t.Errorf("after the timeout: code %d, want 200", rec.Code)
	}
}

func TestGracefulShutdown(t *testing.T) {
	g := newGate()
	s := New("fake", g, Options{Concurrency: 2})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()

	type reply struct {
		code int
		body string
		err  error
	}
	replies := make(chan reply, 2)
	for i := range 2 {
		go func() {
			resp, err := http.Post(fmt.Sprintf("%s/v1/fake?name=r%d", url, i), "image/png", strings.NewReader("x"))
			if err != nil {
				replies <- reply{err: err}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			replies <- reply{code: resp.StatusCode, body: string(b)}
		}()
	}
	<-g.entered
	<-g.entered
	cancel() // as SIGTERM would
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with requests in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	// New connections are refused while the in-flight requests finish.
	waitFor(t, "the listener to close", func() bool {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(g.release)
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v, want nil", err)
	}
	got := map[string]bool{}
	for range 2 {
		r := <-replies
		if r.err != nil || r.code != 200 {
			t.Fatalf("in-flight request: %v %d %s", r.err, r.code, r.body)
		}
		got[strings.TrimSpace(r.body)] = true
	}
	if !got[`{"name":"r0"}`] || !got[`{"name":"r1"}`] {
		t.Errorf("answers %v", got)
	}
}

func TestConcurrencyBound(t *testing.T) {
	var active, peak atomic.Int32
	var mu sync.Mutex
	p := PredictorFunc(func(context.Context, Input) (any, error) {
		n := active.Add(1)
		mu.Lock()
		peak.Store(max(peak.Load(), n))
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		active.Add(-1)
		return "ok", nil
	})
	s := New("fake", p, Options{Concurrency: 3, Queue: 100})
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 30 {
		wg.Go(func() {
			if do(t, s, "POST", "/v1/fake", "", strings.NewReader("x")).Code != 200 {
				bad.Add(1)
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d requests failed", bad.Load())
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency %d, want 3", p)
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"20MB", 20 << 20}, {"20mb", 20 << 20}, {"20MiB", 20 << 20}, {"20m", 20 << 20},
		{"512KB", 512 << 10}, {"1.5GB", 3 << 29}, {"100B", 100}, {" 2 MB ", 2 << 20},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
		if back, _ := ParseSize(FormatSize(got)); back != got {
			t.Errorf("ParseSize(FormatSize(%d) = %q) = %d", got, FormatSize(got), back)
		}
	}
	for _, bad := range []string{"", "MB", "-1MB", "0", "twenty", "1TB", "0.5"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = nil error", bad)
		}
	}
	for n, want := range map[int64]string{20 << 20: "20MB", 1536: "1.5KB", 100: "100B", 20000000: "20000000B", 1 << 30: "1GB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNoQueue(t *testing.T) {
	g := newGate()
	s := New("fake", g, Options{Concurrency: 1}) // Queue 0: nobody waits
	done := make(chan int)
	go func() { done <- do(t, s, "POST", "/v1/fake", "", strings.NewReader("x")).Code }()
	<-g.entered
	if rec := do(t, s, "POST", "/v1/fake", "", strings.NewReader("x")); rec.Code != 503 {
		t.Errorf("second request with no queue: code %d, want 503", rec.Code)
	}
	close(g.release)
	if c := <-done; c != 200 {
		t.Errorf("first request: code %d, want 200", c)
	}
}

func TestReadInputTextAndAudio(t *testing.T) {
	cases := []struct {
		body, wantBody, wantCT, wantName string
	}{
		{`{"text": "Win a FREE prize", "name": "m1"}`, "Win a FREE prize", "text/plain", "m1"},
		{`{"text": ""}`, "", "text/plain", ""},
		{`{"audio": "` + base64.StdEncoding.EncodeToString([]byte("RIFF....WAVE")) + `"}`, "RIFF....WAVE", "", ""},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/v1/x", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		in, err := readInput(r)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if string(in.Body) != c.wantBody || in.ContentType != c.wantCT || in.Name != c.wantName {
			t.Errorf("%s: got body %q type %q name %q, want %q %q %q", c.body, in.Body, in.ContentType, in.Name, c.wantBody, c.wantCT, c.wantName)
		}
	}
}

// releasePredictor counts Release calls; Predict takes delay.
type releasePredictor struct {
	released atomic.Int64
	delay    time.Duration
}

func (p *releasePredictor) Predict(context.Context, Input) (any, error) {
	time.Sleep(p.delay)
	return map[string]int{"ok": 1}, nil
}

func (p *releasePredictor) Release() { p.released.Add(1) }

// TestReleaseWhenIdle: a server that has had no request for IdleRelease
// calls its predictor's Release once (and not again while it stays idle),
// never while a request runs, and again after the next request.
func TestReleaseWhenIdle(t *testing.T) {
	p := &releasePredictor{delay: 600 * time.Millisecond}
	s := New("fake", p, Options{IdleRelease: 150 * time.Millisecond})
	addr := startServer(t, s)
	waitFor(t, "the release after start", func() bool { return p.released.Load() == 1 })
	time.Sleep(400 * time.Millisecond)
	if n := p.released.Load(); n != 1 {
		t.Fatalf("idle without requests: %d releases, want still 1", n)
	}
	resp, err := http.Post("http://"+addr+"/v1/fake", "image/png", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := p.released.Load(); n != 1 {
		t.Fatalf("during a 600ms prediction: %d releases, want none beyond the first", n)
	}
	waitFor(t, "the release after the request", func() bool { return p.released.Load() == 2 })
}
