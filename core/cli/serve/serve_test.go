package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/kit"
	"paddle/core/serve"
)

// echo is a fake kit predictor: it answers the input's name and size.
var echo = serve.PredictorFunc(func(_ context.Context, in serve.Input) (any, error) {
	return map[string]any{"name": in.Name, "bytes": len(in.Body)}, nil
})

// fakeKit is servable and adds a --model flag whose value its loader reports.
func fakeKit(loaded *string) *cmdutil.Kit {
	return &cmdutil.Kit{Kit: &kit.Kit{Name: "fake"}, Serve: func(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
		model := cmd.Flags().String("model", "default.onnx", "model file")
		return func(context.Context) (serve.Predictor, error) {
			*loaded = *model
			if *model == "broken.onnx" {
				return nil, errors.New("broken.onnx: not an ONNX model")
			}
			return echo, nil
		}
	}}
}

func TestNewCmdServe(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    Options
		wantErr string
	}{
		{"defaults", []string{"fake"}, Options{Kit: "fake", Addr: "127.0.0.1:8080", MaxBody: 20 << 20, MaxBodies: 128 << 20, Concurrency: DefaultConcurrency(), Queue: 64, Timeout: 30 * time.Second, ReadTimeout: 20 * time.Second}, ""},
		{"all flags", []string{"fake", "--addr", ":9000", "--max-body", "1.5MB", "--max-bodies", "3MB", "--concurrency", "8", "--queue", "0", "--timeout", "2s", "--read-timeout", "3s"},
			Options{Kit: "fake", Addr: ":9000", MaxBody: 3 << 19, MaxBodies: 3 << 20, Concurrency: 8, Queue: 0, Timeout: 2 * time.Second, ReadTimeout: 3 * time.Second}, ""},
		{"bad size", []string{"fake", "--max-body", "lots"}, Options{}, `size "lots"`},
		{"bodies below one body", []string{"fake", "--max-body", "2MB", "--max-bodies", "1MB"}, Options{}, "--max-bodies (1MB) must be at least --max-body (2MB)"},
		{"bad addr", []string{"fake", "--addr", "8080"}, Options{}, `--addr "8080": want host:port`},
		{"zero concurrency", []string{"fake", "--concurrency", "0"}, Options{}, "--concurrency must be at least 1"},
		{"negative queue", []string{"fake", "--queue", "-1"}, Options{}, "--queue must not be negative"},
		{"zero timeout", []string{"fake", "--timeout", "0s"}, Options{}, "--timeout must be positive"},
		{"zero read timeout", []string{"fake", "--read-timeout", "0s"}, Options{}, "--read-timeout must be positive"},
		{"unservable kit", []string{"clas"}, Options{}, `kit "clas" cannot be served (servable: fake)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := &cmdutil.Factory{IOStreams: ios}
			var loaded string
			var got *Options
			cmd := newCmdServe(f, []*cmdutil.Kit{fakeKit(&loaded), {Kit: &kit.Kit{Name: "clas"}}}, func(o *Options) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Load == nil {
				t.Fatal("Load not set from kit.Serve")
			}
			w := tt.want
			if got.Kit != w.Kit || got.Addr != w.Addr || got.MaxBody != w.MaxBody || got.MaxBodies != w.MaxBodies || got.Concurrency != w.Concurrency ||
				got.Queue != w.Queue || got.Timeout != w.Timeout {
				t.Errorf("options = %+v, want %+v", *got, w)
			}
		})
	}
}

func TestServeHelpListsKits(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var loaded string
	cmd := NewCmdServe(&cmdutil.Factory{IOStreams: ios}, []*cmdutil.Kit{fakeKit(&loaded), {Kit: &kit.Kit{Name: "clas"}}})
	var out strings.Builder
	cmd.SetOut(&out)
	cmd.SetArgs([]string{})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Servable kits: fake\n") || strings.Contains(out.String(), "clas") {
		t.Errorf("help:\n%s", out.String())
	}
	sub, _, err := cmd.Find([]string{"fake"})
	if err != nil || sub.Flags().Lookup("model") == nil || sub.Flags().Lookup("max-body").DefValue != "20MB" {
		t.Errorf("serve fake: the kit's --model flag or --max-body 20MB default is missing")
	}
}

// TestServeRun starts the real command on a free loopback port, asks it one
// question, and stops it as a signal would.
func TestServeRun(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	var loaded string
	var opts *Options
	cmd := newCmdServe(f, []*cmdutil.Kit{fakeKit(&loaded)}, func(o *Options) error { opts = o; return nil })
	cmd.SetArgs([]string{"fake", "--addr", "127.0.0.1:0", "--model", "mine.onnx", "--concurrency", "2"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	addrs := make(chan net.Addr, 1)
	opts.ready = func(a net.Addr) { addrs <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("serveRun returned early: %v", err)
	}
	if loaded != "mine.onnx" {
		t.Errorf("kit loaded %q, want the --model value mine.onnx", loaded)
	}
	resp, err := http.Post("http://"+addr.String()+"/v1/fake?name=x.png", "image/png", strings.NewReader("12345"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"bytes":5,"name":"x.png"}` {
		t.Errorf("POST /v1/fake: %d %s", resp.StatusCode, b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveRun after shutdown = %v, want nil", err)
	}
}

func TestServeRunErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	var loaded string
	load := fakeKit(&loaded).Serve
	tests := []struct {
		name, addr, model, wantErr string
	}{
		{"port in use", busy.Addr().String(), "default.onnx", "--addr: listen tcp " + busy.Addr().String()},
		{"model fails to load", "127.0.0.1:0", "broken.onnx", "broken.onnx: not an ONNX model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := &cobra.Command{}
			l := load(nil, cmd)
			if err := cmd.Flags().Set("model", tt.model); err != nil {
				t.Fatal(err)
			}
			err := serveRun(context.Background(), &Options{Kit: "fake", Addr: tt.addr, Concurrency: 1, Timeout: time.Second, Load: l})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestServeSIGTERMFinishesInFlight sends the process a real SIGTERM while a
// request is being predicted: the request is answered, serveRun returns nil
// and the log says what happened.
func TestServeSIGTERMFinishesInFlight(t *testing.T) {
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil)))
	defer slog.SetDefault(prev)

	entered, release := make(chan struct{}), make(chan struct{})
	slow := serve.PredictorFunc(func(_ context.Context, in serve.Input) (any, error) {
		close(entered)
		<-release
		return map[string]any{"bytes": len(in.Body)}, nil
	})
	addrs := make(chan net.Addr, 1)
	opts := &Options{Kit: "fake", Addr: "127.0.0.1:0", Concurrency: 1, Timeout: 5 * time.Second,
		Load:  func(context.Context) (serve.Predictor, error) { return slow, nil },
		ready: func(a net.Addr) { addrs <- a }}
	done := make(chan error, 1)
	go func() { done <- serveRun(context.Background(), opts) }()
	addr := <-addrs
	type reply struct {
		code int
		body string
		err  error
	}
	replies := make(chan reply, 1)
	go func() {
		resp, err := http.Post("http://"+addr.String()+"/v1/fake", "image/png", strings.NewReader("12345"))
		if err != nil {
			replies <- reply{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		replies <- reply{resp.StatusCode, strings.TrimSpace(string(b)), nil}
	}()
	<-entered
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("serveRun returned %v with a request in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if r := <-replies; r.err != nil || r.code != 200 || r.body != `{"bytes":5}` {
		t.Errorf("in-flight request: %+v, want 200 {\"bytes\":5}", r)
	}
	if err := <-done; err != nil {
		t.Errorf("serveRun = %v, want nil", err)
	}
	for _, want := range []string{"stopping (terminated signal received): no new requests; finishing 1 in flight, waiting at most 10s",
		"stopped: the 1 requests in flight were answered"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// namedKit is fakeKit under another name, recording into loaded.
func namedKit(name string, loaded *string) *cmdutil.Kit {
	k := fakeKit(loaded)
	k.Kit = &kit.Kit{Name: name, PredictRecord: `  {"text": string, "label": string}`}
	return k
}

// TestServeSeveralKits serves two kits on one port: the second kit's flags
// are --<kit>.<flag>, each kit answers its own route, and the page's
// openapi.json and the metrics name both.
func TestServeSeveralKits(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	var loadedA, loadedB string
	kits := []*cmdutil.Kit{fakeKit(&loadedA), namedKit("other", &loadedB), {Kit: &kit.Kit{Name: "clas"}}}
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"fake", "nope"}, `kit "nope" cannot be served (servable: other)`},
		{[]string{"fake", "other", "other"}, `kit "other" given twice`},
		{[]string{"fake", "--other.model", "b.onnx"}, "--other.model is a flag of kit other, which is not served (add it: paddle serve fake other)"},
	} {
		cmd := newCmdServe(f, kits, func(*Options) error { return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: err %v, want %q", tt.args, err, tt.wantErr)
		}
	}

	var opts *Options
	cmd := newCmdServe(f, kits, func(o *Options) error { opts = o; return nil })
	cmd.SetArgs([]string{"fake", "other", "--addr", "127.0.0.1:0", "--model", "a.onnx", "--other.model", "b.onnx"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if len(opts.More) != 1 || opts.More[0].Name != "other" {
		t.Fatalf("More = %+v", opts.More)
	}
	addrs := make(chan net.Addr, 1)
	opts.ready = func(a net.Addr) { addrs <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("serveRun returned early: %v", err)
	}
	if loadedA != "a.onnx" || loadedB != "b.onnx" {
		t.Errorf("loaded %q and %q, want a.onnx and b.onnx", loadedA, loadedB)
	}
	get := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+addr.String()+path, strings.NewReader("123"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, p := range []string{"/v1/fake", "/v1/other"} {
		if code, body := get("POST", p); code != 200 || !strings.Contains(body, `"bytes":3`) {
			t.Errorf("POST %s: %d %s", p, code, body)
		}
	}
	if code, body := get("GET", "/openapi.json"); code != 200 || !strings.Contains(body, `"/v1/other"`) || !strings.Contains(body, `"input": "text"`) {
		t.Errorf("openapi.json: %d %s", code, body)
	}
	if code, body := get("GET", "/metrics"); code != 200 || !strings.Contains(body, `paddle_serve_model_load_seconds{kit="other"}`) ||
		!strings.Contains(body, `paddle_serve_requests_total{kit="fake",code="200"} 1`) {
		t.Errorf("metrics: %d %s", code, body)
	}
	if code, body := get("GET", "/"); code != 200 || !strings.Contains(body, "<title>paddle serve</title>") {
		t.Errorf("page: %d %s", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveRun after shutdown = %v", err)
	}
}

func TestInputOf(t *testing.T) {
	for rec, want := range map[string]string{
		`  {"image": string, "results": []}`:                    "image",
		"  classifier:   {\"text\": string, \"label\": string}": "text",
		`  keyword spotter:  {"audio": string}`:                 "audio",
		`  {"smiles": string, "canonical": string}`:             "smiles",
		"": "",
	} {
		if got := cmdutil.InputOf(rec); got != want {
			t.Errorf("InputOf(%q) = %q, want %q", rec, got, want)
		}
	}
}

// syncWriter serializes writes from the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// -c and -o describe the first kit's model: the other kits' loaders do
// not see them, and do see the other settings.
func TestServeSeveralKitsSettings(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	var seen []cmdutil.Settings
	spy := func(name string) *cmdutil.Kit {
		return &cmdutil.Kit{Kit: &kit.Kit{Name: name}, Serve: func(f *cmdutil.Factory, _ *cobra.Command) func(context.Context) (serve.Predictor, error) {
			return func(context.Context) (serve.Predictor, error) {
				seen = append(seen, f.Settings)
				return echo, nil
			}
		}}
	}
	var opts *Options
	cmd := newCmdServe(f, []*cmdutil.Kit{spy("a"), spy("b")}, func(o *Options) error { opts = o; return nil })
	cmd.SetArgs([]string{"a", "b"})
	f.Settings = cmdutil.Settings{Config: "a.yaml", Overrides: []string{"k=v"}, Threads: 3}
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, l := range append([]KitLoad{{Load: opts.Load}}, opts.More...) {
		if _, err := l.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 2 || seen[0].Config != "a.yaml" || len(seen[0].Overrides) != 1 ||
		seen[1].Config != "" || seen[1].Overrides != nil || seen[1].Threads != 3 {
		t.Errorf("settings seen by the loaders: %+v", seen)
	}
}
