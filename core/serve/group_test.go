package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// echoPredictor answers which kit got the request.
func echoPredictor(kit string) Predictor {
	return PredictorFunc(func(_ context.Context, in Input) (any, error) {
		if string(in.Body) == "bad" {
			return nil, BadInput(errorString("unreadable"))
		}
		return map[string]string{"kit": kit, "body": string(in.Body)}, nil
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestGroupRoutesEachKit(t *testing.T) {
	s, err := NewGroup(Options{Concurrency: 1, Queue: 2},
		Kit{Name: "ocr", Predictor: echoPredictor("ocr")},
		Kit{Name: "det", Predictor: echoPredictor("det"), LoadTime: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ocr", "det"} {
		rec := do(t, s, "POST", "/v1/"+k, "text/plain", strings.NewReader("x"))
		var got map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 || got["kit"] != k {
			t.Errorf("POST /v1/%s: %d %s", k, rec.Code, rec.Body)
		}
	}
	rec := do(t, s, "POST", "/v1/seg", "", strings.NewReader("x"))
	if e := errorOf(t, rec); rec.Code != 404 || !strings.Contains(e, "POST /v1/ocr, POST /v1/det") {
		t.Errorf("unknown kit: %d %q", rec.Code, e)
	}
	rec = do(t, s, "GET", "/healthz", "", nil)
	var g struct {
		Status string   `json:"status"`
		Kits   []Health `json:"kits"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil || rec.Code != 200 {
		t.Fatalf("healthz: %d %s", rec.Code, rec.Body)
	}
	if g.Status != "ok" || len(g.Kits) != 2 || g.Kits[0].Kit != "ocr" || g.Kits[1].Kit != "det" || g.Kits[1].Queue != 2 {
		t.Errorf("healthz = %+v", g)
	}
}

func TestGroupErrors(t *testing.T) {
	p := echoPredictor("x")
	for _, tt := range []struct {
		kits []Kit
		want string
	}{
		{nil, "no kit"},
		{[]Kit{{Name: "ocr", Predictor: p}, {Name: "ocr", Predictor: p}}, "kit ocr given twice"},
		{[]Kit{{Name: "Bad/Name", Predictor: p}}, `kit name "Bad/Name"`},
		{[]Kit{{Name: "ocr"}}, "kit ocr has no predictor"},
		{[]Kit{{Name: "ocr", Predictor: p, Input: "video"}}, `input "video"`},
	} {
		_, err := NewGroup(Options{}, tt.kits...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewGroup(%v): err %v, want %q", tt.kits, err, tt.want)
		}
	}
}

// metricValue returns the sample of the exposition line that starts with
// name{labels}, failing when there is none.
func metricValue(t *testing.T, text, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("no series %s in\n%s", series, text)
	return 0
}

func TestMetrics(t *testing.T) {
	g := newGate()
	s, err := NewGroup(Options{Concurrency: 2, Queue: 2},
		Kit{Name: "a", Predictor: echoPredictor("a"), LoadTime: 1500 * time.Millisecond},
		Kit{Name: "b", Predictor: g})
	if err != nil {
		t.Fatal(err)
	}
	do(t, s, "POST", "/v1/a", "", strings.NewReader("x"))
	do(t, s, "POST", "/v1/a", "", strings.NewReader("x"))
	do(t, s, "POST", "/v1/a", "", strings.NewReader("bad"))
	do(t, s, "GET", "/v1/a", "", nil) // 405
	// One request of b in flight while the metrics are read.
	done := make(chan struct{})
	go func() { do(t, s, "POST", "/v1/b", "", strings.NewReader("x")); close(done) }()
	<-g.entered
	rec := do(t, s, "GET", "/metrics", "", nil)
	close(g.release)
	<-done
	text := rec.Body.String()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	for series, want := range map[string]float64{
		`paddle_serve_requests_total{kit="a",code="200"}`:                  2,
		`paddle_serve_requests_total{kit="a",code="400"}`:                  1,
		`paddle_serve_requests_total{kit="a",code="405"}`:                  1,
		`paddle_serve_errors_total{kit="a"}`:                               2,
		`paddle_serve_errors_total{kit="b"}`:                               0,
		`paddle_serve_request_duration_seconds_count{kit="a"}`:             4,
		`paddle_serve_request_duration_seconds_bucket{kit="a",le="+Inf"}`:  4,
		`paddle_serve_request_duration_seconds_bucket{kit="a",le="60"}`:    4,
		`paddle_serve_requests_in_flight{kit="a"}`:                         0,
		`paddle_serve_requests_in_flight{kit="b"}`:                         1,
		`paddle_serve_model_load_seconds{kit="a"}`:                         1.5,
		`paddle_serve_model_load_seconds{kit="b"}`:                         0,
		`paddle_serve_request_duration_seconds_count{kit="b"}`:             0,
		`paddle_serve_request_duration_seconds_bucket{kit="b",le="+Inf"}`:  0,
		`paddle_serve_request_duration_seconds_bucket{kit="a",le="0.005"}`: -1, // present; its count depends on the machine
	} {
		got := metricValue(t, text, series)
		if want >= 0 && got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	// Buckets are cumulative: never decreasing, ending at the count.
	prev := -1.0
	for _, m := range regexp.MustCompile(`(?m)^paddle_serve_request_duration_seconds_bucket\{kit="a",le="[^"]+"\} (\d+)$`).FindAllStringSubmatch(text, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		if v < prev {
			t.Errorf("bucket counts decrease: %v after %v", v, prev)
		}
		prev = v
	}
	if prev != 4 {
		t.Errorf("last bucket %v, want 4", prev)
	}
	// Every sample's metric has its TYPE line, and every line is a comment or a sample.
	sample := regexp.MustCompile(`^([a-z_]+)(\{[^}]*\})? [0-9.e+-]+$`)
	typed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			typed[strings.Fields(f)[0]] = true
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		m := sample.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("not a sample line: %q", line)
			continue
		}
		name := regexp.MustCompile(`_(bucket|sum|count)$`).ReplaceAllString(m[1], "")
		if !typed[name] && !typed[m[1]] {
			t.Errorf("%s has no TYPE line before it", m[1])
		}
	}
}

type testRecord struct {
	Image   string            `json:"image"`
	Boxes   []testBox         `json:"boxes"`
	Size    [2]int            `json:"size"`
	Counts  map[string]int    `json:"counts"`
	Note    string            `json:"note,omitempty"`
	Ptr     *float64          `json:"ptr"`
	skipped int               // unexported: left out
	Extra   map[string]string `json:"-"`
}

type testBox struct {
	Score  float64  `json:"score"`
	Points [][2]int `json:"points"`
}

func TestOpenAPI(t *testing.T) {
	s, err := NewGroup(Options{},
		Kit{Name: "det", Predictor: echoPredictor("det"), Record: testRecord{}, RecordDoc: "one image's boxes"},
		Kit{Name: "nlp", Predictor: echoPredictor("nlp"), Input: InputText})
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, s, "GET", "/openapi.json", "", nil)
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != 200 {
		t.Fatalf("openapi.json: %d %v", rec.Code, err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v", doc["openapi"])
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/v1/det", "/v1/nlp", "/healthz", "/openapi.json", "/metrics", "/"} {
		if paths[p] == nil {
			t.Errorf("no path %s", p)
		}
	}
	post := paths["/v1/det"].(map[string]any)["post"].(map[string]any)
	schema := post["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	want := map[string]any{
		"type":        "object",
		"description": "one image's boxes",
		"required":    []any{"image", "boxes", "size", "counts", "ptr"},
		"properties": map[string]any{
			"image": map[string]any{"type": "string"},
			"boxes": map[string]any{"type": []any{"array", "null"}, "items": map[string]any{
				"type": "object", "required": []any{"score", "points"},
				"properties": map[string]any{
					"score":  map[string]any{"type": "number"},
					"points": map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "minItems": 2.0, "maxItems": 2.0}},
				}}},
			"size":   map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "minItems": 2.0, "maxItems": 2.0},
			"counts": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}},
			"note":   map[string]any{"type": "string"},
			"ptr":    map[string]any{"anyOf": []any{map[string]any{"type": "number"}, map[string]any{"type": "null"}}},
		},
	}
	if !reflect.DeepEqual(schema, want) {
		got, _ := json.MarshalIndent(schema, "", " ")
		t.Errorf("det record schema:\n%s", got)
	}
	nlpReq := paths["/v1/nlp"].(map[string]any)["post"].(map[string]any)["requestBody"].(map[string]any)["content"].(map[string]any)
	if nlpReq["text/plain"] == nil || nlpReq["image/*"] != nil {
		t.Errorf("nlp request content: %v", nlpReq)
	}
	detReq := paths["/v1/det"].(map[string]any)["post"].(map[string]any)["requestBody"].(map[string]any)["content"].(map[string]any)
	for _, ct := range []string{"image/*", "multipart/form-data", "application/json"} {
		if detReq[ct] == nil {
			t.Errorf("det request has no %s", ct)
		}
	}
	kits := doc["x-paddle-kits"].([]any)
	if len(kits) != 2 || kits[1].(map[string]any)["input"] != "text" {
		t.Errorf("x-paddle-kits = %v", kits)
	}
}

func TestPageOffline(t *testing.T) {
	s := New("ocr", echoPredictor("ocr"), Options{})
	rec := do(t, s, "GET", "/", "", nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", rec.Code, rec.Header())
	}
	// Every file the page names is served from the binary, and nothing
	// names another host.
	ref := regexp.MustCompile(`(?:src|href)="([^"]+)"|fetch\(([^)]+)\)|"(assets/[^"]+)"`)
	for _, name := range []string{"page/index.html", "page/app.js", "page/style.css"} {
		b, err := fs.ReadFile(pageFS, name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("//")) && regexp.MustCompile(`(?:src|href|url)\s*[=(]\s*["']?(https?:)?//`).Match(b) {
			t.Errorf("%s loads something from another host", name)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			u := m[1] + m[3]
			if u == "" || strings.Contains(u, "${") || !strings.HasPrefix(u, "assets/") {
				continue
			}
			if r := do(t, s, "GET", "/"+u, "", nil); r.Code != 200 {
				t.Errorf("%s names %s: GET gives %d", name, u, r.Code)
			}
		}
	}
	for _, u := range []string{"/assets/app.js", "/assets/style.css", "/assets/samples/image.png", "/assets/samples/text.txt", "/assets/samples/smiles.txt"} {
		if r := do(t, s, "GET", u, "", nil); r.Code != 200 || r.Body.Len() == 0 {
			t.Errorf("GET %s: %d", u, r.Code)
		}
	}
}
