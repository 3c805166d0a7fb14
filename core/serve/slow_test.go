package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startServer serves s on a free loopback port until the test ends and
// returns its host:port.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// stalledUpload connects to addr and sends a POST whose headers declare
// declared body bytes, then only sent of them: an upload stalled mid-body.
func stalledUpload(t *testing.T, addr string, declared, sent int) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /v1/fake HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n%s", declared, strings.Repeat("a", sent))
	return c
}

// readReply reads one HTTP response from c and returns its code and the
// "error" of its JSON body ("" when the body is not a JSON error).
func readReply(c net.Conn, within time.Duration) (int, string, error) {
	c.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "", err
	}
	var e map[string]string
	if resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &e) != nil {
		return resp.StatusCode, "", fmt.Errorf("body %q is not JSON", b)
	}
	return resp.StatusCode, e["error"], nil
}

func health(t *testing.T, addr string) Health {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestStalledUploadHoldsNoPlace is issue 24's slow client: an upload stalled
// mid-body does not take the only place, so a real request is answered at
// once, and the stalled one gets a 408 saying what happened.
func TestStalledUploadHoldsNoPlace(t *testing.T) {
	s := New("fake", decodePredictor, Options{Concurrency: 1, ReadTimeout: 700 * time.Millisecond})
	addr := startServer(t, s)
	start := time.Now()
	slow := stalledUpload(t, addr, 1000, 100)
	defer slow.Close()
	waitFor(t, "the stalled body to be reading", func() bool { return health(t, addr).Reading == 1 })

	resp, err := http.Post("http://"+addr+"/v1/fake?name=real.png", "image/png", bytes.NewReader(testPNG(t, 4, 3)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("real request beside a stalled upload: %d %s, want 200", resp.StatusCode, b)
	}
	if d := time.Since(start); d > 600*time.Millisecond {
		t.Errorf("real request answered after %s, want before the stalled body's read timeout", d)
	}

	code, msg, err := readReply(slow, 5*time.Second)
	if err != nil {
		t.Fatalf("stalled upload: %v", err)
	}
	want := "request body not received within 700ms (got 100B of 1000B; the server's --read-timeout)"
	if code != http.StatusRequestTimeout || !strings.Contains(msg, want) {
		t.Errorf("stalled upload: %d %q, want 408 containing %q", code, msg, want)
	}
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Errorf("408 after %s, before the read timeout", d)
	}
	if h := health(t, addr); h.Reading != 0 || h.Running != 0 || h.Waiting != 0 {
		t.Errorf("after the 408: %+v, want nothing reading, running or waiting", h)
	}
}

// brokenBody returns some bytes, then err.
type brokenBody struct {
	data []byte
	err  error
}

func (b *brokenBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	return 0, b.err
}

// TestBrokenBodyMessages: a body the transport cannot deliver gets a message
// that says what happened, never the socket's own.
func TestBrokenBodyMessages(t *testing.T) {
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	tests := []struct {
		name, ct string
		err      error
		want     int
		wantErr  string
	}{
		{"timeout raw", "image/png", timeout, 408, "request body not received within 20s (got 5B; the server's --read-timeout)"},
		{"timeout json", "application/json", timeout, 408, "request body not received within 20s (got 5B;"},
		{"client gone", "image/png", io.ErrUnexpectedEOF, 400, "request body broken off after 5B: the client closed the connection"},
		{"client gone multipart", "multipart/form-data; boundary=x", io.ErrUnexpectedEOF, 400, "broken off after 5B: the client closed the connection"},
		{"bad chunking", "image/png", fmt.Errorf("http: malformed chunked encoding"), 400, "broken off after 5B: the body is not valid HTTP framing (malformed chunked encoding)"},
	}
	s := New("fake", decodePredictor, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, "POST", "/v1/fake", tt.ct, &brokenBody{[]byte(`{"ima`), tt.err})
			if rec.Code != tt.want {
				t.Fatalf("code %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
			e := errorOf(t, rec)
			if !strings.Contains(e, tt.wantErr) || strings.Contains(e, "tcp") || strings.Contains(e, "i/o timeout") {
				t.Errorf("error %q, want it to contain %q and no socket message", e, tt.wantErr)
			}
			if n := len(s.tickets); n != 0 {
				t.Errorf("%d tickets held by a broken body", n)
			}
		})
	}
}

// TestSoakSlowAndMalformedClients mixes stalled uploads and malformed clients
// into real ones on a --concurrency 2 --queue 2 server (loopback only, bounded
// counts, a few seconds): every real request is answered 200, every stalled
// upload a 408.
func TestSoakSlowAndMalformedClients(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	const (
		realClients = 2 // with the one not-an-image client: at most 3 of the 4 places
		soakFor     = 2 * time.Second
		slowClients = 8 // twice the places
	)
	pred := PredictorFunc(func(ctx context.Context, in Input) (any, error) {
		time.Sleep(2 * time.Millisecond)
		return decodePredictor(ctx, in)
	})
	s := New("fake", pred, Options{Concurrency: 2, Queue: 2, MaxBody: 64 << 10, ReadTimeout: 400 * time.Millisecond, Timeout: 5 * time.Second})
	addr := startServer(t, s)
	url := "http://" + addr + "/v1/fake"
	img := testPNG(t, 16, 9)
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()

	var (
		wg                      sync.WaitGroup
		realBad, slowN, slowBad atomic.Int32
		malformedN              atomic.Int32
		mu                      sync.Mutex
		failures                []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	done := make(chan struct{}) // the real clients are done: the others stop
	for i := range slowClients {
		wg.Go(func() {
			for ctx.Err() == nil {
				select {
				case <-done:
					return
				default:
				}
				c := stalledUpload(t, addr, 2000, 10*i)
				code, msg, err := readReply(c, 5*time.Second)
				c.Close()
				slowN.Add(1)
				if err != nil || code != 408 || !strings.Contains(msg, "not received within 400ms") {
					slowBad.Add(1)
					fail("stalled upload: %d %q %v", code, msg, err)
				}
			}
		})
	}
	client := &http.Client{Timeout: 10 * time.Second}
	malformed := []func() error{
		func() error { // not HTTP at all
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return err
			}
			defer c.Close()
			io.WriteString(c, "GARBAGE \x00\x01\r\n\r\n")
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			io.Copy(io.Discard, c)
			return nil
		},
		func() error { // hangs up mid-body
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return err
			}
			io.WriteString(c, "POST /v1/fake HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\nabc")
			return c.Close()
		},
		func() error { // broken chunked encoding
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return err
			}
			defer c.Close()
			io.WriteString(c, "POST /v1/fake HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n")
			code, msg, err := readReply(c, 5*time.Second)
			if err != nil || code != 400 || !strings.Contains(msg, "not valid HTTP framing") {
				return fmt.Errorf("broken chunks: %d %q %v", code, msg, err)
			}
			return nil
		},
		func() error { return post(client, url, "application/json", []byte(`{"image": `), 400, "JSON body") },
		func() error {
			return post(client, url, "image/png", bytes.Repeat([]byte("a"), 65<<10), 413, "larger than 64KB")
		},
		func() error { return post(client, url, "multipart/form-data", img, 400, "boundary") },
		func() error { return post(client, url, "image/png", []byte("not an image"), 400, "decode image") },
	}
	for i, m := range malformed {
		wg.Go(func() {
			for ctx.Err() == nil {
				select {
				case <-done:
					return
				default:
				}
				if err := m(); err != nil {
					fail("malformed client %d: %v", i, err)
				}
				malformedN.Add(1)
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	// The stalled uploads and malformed clients get going before the real ones.
	waitFor(t, "the stalled uploads to be reading", func() bool { return health(t, addr).Reading >= slowClients })
	var realWG sync.WaitGroup
	var realN atomic.Int32
	t0 := time.Now()
	for i := range realClients {
		realWG.Go(func() {
			for j := 0; j < 2000 && time.Since(t0) < soakFor; j++ {
				realN.Add(1)
				if err := post(client, fmt.Sprintf("%s?name=r%d-%d.png", url, i, j), "image/png", img, 200, ""); err != nil {
					realBad.Add(1)
					fail("real request %d-%d: %v", i, j, err)
				}
			}
		})
	}
	realWG.Wait()
	close(done)
	wg.Wait()
	// A connection the client dialled but never used would hold up the
	// server's shutdown for 5 s (net/http counts it as new, not idle).
	client.CloseIdleConnections()
	if ctx.Err() != nil {
		t.Errorf("soak did not finish within 20 s")
	}
	t.Logf("%d real requests, %d stalled uploads, %d malformed requests", realN.Load(), slowN.Load(), malformedN.Load())
	for _, f := range failures {
		t.Error(f)
	}
	if realBad.Load() != 0 || slowBad.Load() != 0 {
		t.Errorf("%d of %d real requests not answered 200; %d of %d stalled uploads not answered 408",
			realBad.Load(), realN.Load(), slowBad.Load(), slowN.Load())
	}
	if slowN.Load() < 3*slowClients {
		t.Errorf("only %d stalled uploads answered, want at least %d", slowN.Load(), 3*slowClients)
	}
}

// post sends body to url and checks the code and, for an error, its message.
func post(c *http.Client, url, ct string, body []byte, want int, wantErr string) error {
	resp, err := c.Post(url, ct, bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("code %d (%s), want %d", resp.StatusCode, bytes.TrimSpace(b), want)
	}
	if wantErr != "" && !strings.Contains(string(b), wantErr) {
		return fmt.Errorf("body %s, want it to contain %q", b, wantErr)
	}
	return nil
}

// TestShutdownGraceOver: a request still running when the grace period ends
// is cut off, and Serve says how many did not finish.
func TestShutdownGraceOver(t *testing.T) {
	g := newGate()
	defer close(g.release)
	s := New("fake", g, Options{Concurrency: 1, ShutdownGrace: 200 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	replied := make(chan error, 1)
	go func() {
		resp, err := http.Post("http://"+ln.Addr().String()+"/v1/fake", "image/png", strings.NewReader("x"))
		if err == nil {
			resp.Body.Close()
		}
		replied <- err
	}()
	<-g.entered
	start := time.Now()
	cancel()
	err = <-served
	want := "shutdown: 1 of the 1 requests in flight did not finish within the grace period of 200ms; their connections were closed"
	if err == nil || err.Error() != want {
		t.Errorf("Serve = %v, want %q", err, want)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("Serve returned %s after the cancel, want just after the 200ms grace", d)
	}
	if err := <-replied; err == nil {
		t.Errorf("the cut-off request got an answer")
	}
}

// TestBodiesBounded is issue 24's last server item: the bodies a server holds
// at once are bounded in bytes. Uploads stalled mid-body hold their bytes
// (all of a declared length, what has come of a chunked one, in steps of
// holdStep); a body that does not fit beside them gets a 503 at once, saying
// why; one that fits is answered; once the stalled ones time out their bytes
// are free again.
func TestBodiesBounded(t *testing.T) {
	const kb = 1 << 10
	s := New("fake", decodePredictor, Options{MaxBody: 200 * kb, MaxBodies: 300 * kb, Concurrency: 2, Queue: 2, ReadTimeout: time.Second})
	addr := startServer(t, s)
	img := testPNG(t, 4, 3)
	post := func(size int) (int, string) {
		t.Helper()
		body := append(append([]byte(nil), img...), make([]byte, max(size-len(img), 0))...)
		resp, err := http.Post("http://"+addr+"/v1/fake", "image/png", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e["error"]
	}
	heldIs := func(what string, n int64) {
		t.Helper()
		waitFor(t, what, func() bool { return health(t, addr).BodyBytes == n })
	}
	slow := stalledUpload(t, addr, 150*kb, 100) // holds its 150 KB declared
	defer slow.Close()
	heldIs("the stalled body to be held", 150*kb)
	if code, msg := post(160 * kb); code != http.StatusServiceUnavailable || !strings.Contains(msg, "total 150KB of at most 300KB (the server's --max-bodies)") {
		t.Errorf("160 KB beside 150 KB held of 300 KB: %d %q, want 503 naming --max-bodies", code, msg)
	}
	if code, msg := post(0); code != http.StatusOK {
		t.Errorf("a small body beside 150 KB held: %d %q, want 200", code, msg)
	}

	// A chunked upload holds what has come, a step at a time.
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/fake HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n%s\r\n", strings.Repeat("a", 100))
	heldIs("the chunked body to be held", 150*kb+holdStep)
	if code, msg := post(100 * kb); code != http.StatusServiceUnavailable || !strings.Contains(msg, "--max-bodies") {
		t.Errorf("100 KB beside 214 KB held: %d %q, want 503", code, msg)
	}
	if code, msg := post(0); code != http.StatusOK {
		t.Errorf("a small body beside 214 KB held: %d %q, want 200", code, msg)
	}

	for _, conn := range []net.Conn{slow, c} {
		if code, _, err := readReply(conn, 5*time.Second); err != nil || code != http.StatusRequestTimeout {
			t.Errorf("stalled upload: %d %v, want 408", code, err)
		}
	}
	heldIs("the held bytes to be given back", 0)
	if code, msg := post(200 * kb); code != http.StatusOK {
		t.Errorf("200 KB with nothing held: %d %q, want 200", code, msg)
	}
}
