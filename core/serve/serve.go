// Package serve is the one HTTP server of `paddle serve <kit>`: it exposes a
// kit's Predictor as POST /v1/<kit> (an image as the raw body, as
// multipart/form-data or as JSON with base64) and GET /healthz, on one loaded
// model shared by concurrent requests.
//
// A request's body is read first, whole, within ReadTimeout (408 otherwise)
// and up to MaxBody bytes (413 otherwise), without taking any place: a client
// that uploads slowly or stalls mid-body holds only its own connection. The
// bodies held at once (being received, waiting or predicted) total at most
// MaxBodies bytes; a body that does not fit gets a 503 at once. Then
// the request is admitted when fewer than Concurrency+Queue requests are
// waiting or running (503 with Retry-After otherwise), runs when one of
// Concurrency slots is free, and gets a 504 when it has not finished within
// Timeout of its admission. Inputs the kit cannot read get a 400, and every
// error the handler writes is JSON: {"error": "..."}, saying what happened.
// Serve shuts down gracefully: in-flight requests finish, within
// ShutdownGrace, before it returns.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Predictor is what a kit serves: one loaded model answering Predict for one
// input. Predict is called from several goroutines at once and must be safe
// for concurrent use; its result is marshalled to JSON as the response. An
// error wrapped by BadInput is the client's (400); any other is a 500.
type Predictor interface {
	Predict(ctx context.Context, in Input) (any, error)
}

// PredictorFunc adapts a function to Predictor.
type PredictorFunc func(ctx context.Context, in Input) (any, error)

// Predict calls f(ctx, in).
func (f PredictorFunc) Predict(ctx context.Context, in Input) (any, error) { return f(ctx, in) }

// InputError is an error in the request's input (an unreadable image): a 400.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput marks err as the client's fault (400); nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{Err: err}
}

// Options bound what the server accepts. Zero values take the defaults, except
// Queue, whose zero means that no request waits.
type Options struct {
	MaxBody int64 // largest request body in bytes (default 20 MB)
	// MaxBodies bounds the bytes of request bodies held at once, being
	// received, waiting or predicted, all kits of a group together (default
	// DefaultMaxBodies, and never below MaxBody); a body that does not fit
	// gets a 503.
	MaxBodies   int64
	Concurrency int           // requests predicted at the same time (default 1)
	Queue       int           // requests that may wait for a slot beyond that (0: none wait)
	Timeout     time.Duration // from admission to answer, queueing included (default 30 s)
	// ReadTimeout bounds the time to receive a request's whole body (default
	// 20 s); a body not received by then gets a 408.
	ReadTimeout time.Duration
	// ShutdownGrace bounds how long Serve waits for in-flight requests after
	// its context ends (default Timeout + 5 s).
	ShutdownGrace time.Duration
	// IdleRelease is how long the server waits with no predict request
	// before it calls Release on the predictors that have it (Releaser) and
	// returns the freed memory to the operating system (default 30 s;
	// negative: never).
	IdleRelease time.Duration
}

// Default limits.
const (
	DefaultMaxBody = 20 << 20
	// DefaultMaxBodies bounds the request bodies held at once: six of the
	// largest, or hundreds of typical photos.
	DefaultMaxBodies = 128 << 20
	DefaultTimeout   = 30 * time.Second
	// DefaultReadTimeout bounds a body's upload: 20 MB at 1 MB/s.
	DefaultReadTimeout = 20 * time.Second
	// DefaultIdleRelease is Options.IdleRelease's default.
	DefaultIdleRelease = 30 * time.Second
	// headerTimeout bounds the time to receive a request's headers.
	headerTimeout = 10 * time.Second
	// DefaultMaxPixels is the served --max-pixels: 40 megapixels (6300×6300),
	// lower than predict's, since several requests decode at once.
	DefaultMaxPixels = 40_000_000
)

func (o Options) withDefaults() Options {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxBodies <= 0 {
		o.MaxBodies = DefaultMaxBodies
	}
	o.MaxBodies = max(o.MaxBodies, o.MaxBody)
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	o.Queue = max(o.Queue, 0)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = o.Timeout + 5*time.Second
	}
	if o.IdleRelease == 0 {
		o.IdleRelease = DefaultIdleRelease
	}
	return o
}

// Server serves one kit's Predictor. Build it with New; it is an http.Handler.
type Server struct {
	kit  string
	site *site // the routes around predict, on the server Serve runs (group.go)
	pred Predictor
	opts Options
	mux  *http.ServeMux

	tickets  chan struct{} // admitted requests: waiting or running
	slots    chan struct{} // running predictions
	bodies   *bodyBudget   // the bodies held, shared by a group's kits
	running  sync.WaitGroup
	reading  atomic.Int64 // requests whose body is being received
	inFlight atomic.Int64 // predict requests between arrival and answer
	arrived  atomic.Int64 // predict requests received so far
}

// New returns the server of kit (the route is POST /v1/<kit>) over p, with
// the routes every server has (group.go): /healthz, /, /openapi.json, /metrics.
func New(kit string, p Predictor, opts Options) *Server {
	s, _ := NewGroup(opts, Kit{Name: kit, Predictor: p}) // one named kit: no error
	return s
}

// newKit returns one kit's admission and predict handler, without routes.
func newKit(kit string, p Predictor, o Options, bodies *bodyBudget) *Server {
	return &Server{
		kit: kit, pred: p, opts: o, mux: http.NewServeMux(), bodies: bodies,
		tickets: make(chan struct{}, o.Concurrency+o.Queue),
		slots:   make(chan struct{}, o.Concurrency),
	}
}

// Options returns the server's limits with the defaults filled in.
func (s *Server) Options() Options { return s.opts }

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Health is the body of GET /healthz.
type Health struct {
	Status      string `json:"status"`
	Kit         string `json:"kit"`
	Running     int    `json:"running"`
	Waiting     int    `json:"waiting"`
	Reading     int    `json:"reading"`    // bodies being received; they hold no place
	BodyBytes   int64  `json:"body_bytes"` // bytes of request bodies held now, all kits together (at most --max-bodies)
	Concurrency int    `json:"concurrency"`
	Queue       int    `json:"queue"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "use GET /healthz")
		return
	}
	run := len(s.slots)
	wait := max(len(s.tickets)-run, 0)
	writeJSON(w, http.StatusOK, Health{Status: "ok", Kit: s.kit, Running: run, Waiting: wait,
		Reading: int(s.reading.Load()), BodyBytes: s.bodies.inUse(), Concurrency: s.opts.Concurrency, Queue: s.opts.Queue})
}

// result is one prediction's outcome, handed from the worker to the handler.
type result struct {
	v   any
	err error
}

func (s *Server) handlePredict(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("use POST /v1/%s with an image", s.kit))
		return
	}
	s.arrived.Add(1)
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	if r.ContentLength > s.opts.MaxBody {
		s.tooLarge(w)
		return
	}
	// The body's bytes count against MaxBodies until the answer (or the end
	// of its prediction): a declared length reserves them all at once.
	hold := &bodyHold{b: s.bodies}
	defer func() {
		if hold != nil {
			hold.release()
		}
	}()
	if r.ContentLength > 0 && !hold.grow(r.ContentLength) {
		s.bodiesFull(w)
		return
	}
	// The whole body first, within ReadTimeout, holding no place: a slow or
	// stalled upload keeps only its own connection busy.
	in, ok := s.readBody(w, r, hold)
	if !ok {
		return
	}
	select {
	case s.tickets <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("server busy: %d requests running and %d waiting; retry later", s.opts.Concurrency, s.opts.Queue))
		return
	}
	ticketHeld := true
	defer func() {
		if ticketHeld {
			<-s.tickets
		}
	}()
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.Timeout)
	defer cancel()

	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		s.timedOut(w, r, "waiting for a free slot")
		return
	}
	// The worker owns the slot and the ticket from here: a prediction that
	// outlives its request's timeout still holds them, so the number of running
	// predictions never exceeds Concurrency.
	ticketHeld = false
	h := hold
	hold = nil
	done := make(chan result, 1)
	s.running.Add(1)
	go func() {
		v, err := s.predict(ctx, in)
		// Free the place before answering, so a client that sends its next
		// request as soon as it has this answer finds the place free.
		h.release()
		<-s.slots
		<-s.tickets
		s.running.Done()
		done <- result{v, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		s.timedOut(w, r, "predicting")
		return
	}
	var ie *InputError
	switch {
	case errors.As(res.err, &ie):
		writeError(w, http.StatusBadRequest, res.err.Error())
	case res.err != nil:
		slog.Warn("predict failed", "kit", s.kit, "name", in.Name, "err", res.err)
		writeError(w, http.StatusInternalServerError, res.err.Error())
	default:
		writeJSON(w, http.StatusOK, res.v)
		slog.Debug("predicted", "kit", s.kit, "name", in.Name, "bytes", len(in.Body), "ms", time.Since(start).Milliseconds())
	}
}

// readBody receives r's whole body within ReadTimeout and up to MaxBody bytes
// and extracts its Input; a body of undeclared length grows hold as it
// arrives. On failure it has written the error (408, 413, 503 or 400, saying
// what happened) and returns false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, hold *bodyHold) (Input, bool) {
	s.reading.Add(1)
	defer s.reading.Add(-1)
	rc := http.NewResponseController(w)
	// ErrNotSupported (a test's recorder) leaves the body unbounded in time.
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.ReadTimeout))
	body := &countingBody{r: r.Body}
	if r.ContentLength < 0 {
		// MaxBytesReader reads at most MaxBody+1 bytes.
		body.hold, body.most = hold, s.opts.MaxBody+1
	}
	r.Body = http.MaxBytesReader(w, body, s.opts.MaxBody)
	in, err := readInput(r)
	if err == nil {
		// Read to the end (trailing bytes after JSON), so the server watches
		// the connection for a client that goes away while its request waits.
		_, err = io.Copy(io.Discard, r.Body)
	}
	// The deadline was for the body: the wait and prediction have their own.
	_ = rc.SetReadDeadline(time.Time{})
	switch {
	case err == nil:
		return in, true
	case isTooLarge(err):
		s.tooLarge(w)
	case errors.Is(body.err, errBodiesFull):
		s.bodiesFull(w)
	case body.err != nil && errors.Is(body.err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, fmt.Sprintf("request body not received within %s (got %s%s; the server's --read-timeout): send the whole body without pausing",
			s.opts.ReadTimeout, FormatSize(body.n), ofLength(r.ContentLength)))
	case body.err != nil:
		// The transport failed (the client hung up, a broken chunked
		// encoding): say so in words rather than with the socket's message.
		w.Header().Set("Connection", "close")
		what := "the client closed the connection"
		if !errors.Is(body.err, io.ErrUnexpectedEOF) && !errors.Is(body.err, syscall.ECONNRESET) {
			what = "the body is not valid HTTP framing (" + strings.TrimPrefix(body.err.Error(), "http: ") + ")"
		}
		slog.Debug("request body broken off", "kit", s.kit, "bytes", body.n, "err", body.err)
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body broken off after %s%s: %s", FormatSize(body.n), ofLength(r.ContentLength), what))
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
	return Input{}, false
}

// ofLength is " of <n>" for a declared Content-Length, else "".
func ofLength(n int64) string {
	if n < 0 {
		return ""
	}
	return " of " + FormatSize(n)
}

// countingBody counts the bytes read from a request body and keeps the
// transport's error (anything but io.EOF), which readInput wraps in its own.
// With a hold, it reserves the bytes before reading them (errBodiesFull
// when they do not fit).
type countingBody struct {
	r    io.ReadCloser
	n    int64
	err  error
	hold *bodyHold
	most int64 // the most hold grows to
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.hold != nil && len(p) > 0 {
		if b.n >= b.hold.n && !b.hold.grow(min(b.n+holdStep, max(b.most, b.n+1))) {
			// No room for more: a body that has ended needs none.
			var one [1]byte
			n, err := b.r.Read(one[:])
			if n == 0 {
				return b.note(0, err)
			}
			b.err = errBodiesFull
			return 0, b.err
		}
		p = p[:min(int64(len(p)), b.hold.n-b.n)]
	}
	return b.note(b.r.Read(p))
}

// note counts n bytes read and keeps err unless it is io.EOF.
func (b *countingBody) note(n int, err error) (int, error) {
	b.n += int64(n)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

func (b *countingBody) Close() error { return b.r.Close() }

// predict calls the kit, turning a panic into a 500 so one bad input cannot
// take the server down.
func (s *Server) predict(ctx context.Context, in Input) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("predict panicked", "kit", s.kit, "name", in.Name, "panic", r)
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return s.pred.Predict(ctx, in)
}

// bodiesFull answers a request whose body does not fit in MaxBodies.
func (s *Server) bodiesFull(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("server busy: the request bodies it holds total %s of at most %s (the server's --max-bodies); retry later",
		FormatSize(s.bodies.inUse()), FormatSize(s.opts.MaxBodies)))
}

func (s *Server) tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %s (the server's --max-body)", FormatSize(s.opts.MaxBody)))
}

func (s *Server) timedOut(w http.ResponseWriter, r *http.Request, what string) {
	if r.Context().Err() != nil {
		return // the client went away; nobody reads the answer
	}
	writeError(w, http.StatusGatewayTimeout, fmt.Sprintf("no answer within %s (timed out %s; the server's --timeout)", s.opts.Timeout, what))
}

// Serve answers requests on ln until ctx ends, then shuts down gracefully:
// it stops accepting, lets in-flight requests finish (within ShutdownGrace),
// logs what happened and returns nil. It returns an error when serving fails
// or when requests were still running at the end of the grace period (their
// connections are then closed).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: headerTimeout,
		// A whole request, for routes that do not read their body; predict
		// requests set their own body deadline.
		ReadTimeout:  headerTimeout + s.opts.ReadTimeout,
		WriteTimeout: headerTimeout + s.opts.ReadTimeout + 2*s.opts.Timeout,
		IdleTimeout:  60 * time.Second,
		ErrorLog:     slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if s.site != nil && s.opts.IdleRelease > 0 {
		rctx, stopRelease := context.WithCancel(ctx)
		defer stopRelease()
		go s.site.releaseWhenIdle(rctx, s.opts.IdleRelease)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	n := s.inFlight.Load()
	slog.Info(fmt.Sprintf("stopping (%v): no new requests; finishing %d in flight, waiting at most %s", context.Cause(ctx), n, s.opts.ShutdownGrace))
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	err := hs.Shutdown(sctx)
	// Predictions whose requests timed out may still run; let them end too.
	idle := make(chan struct{})
	go func() { s.running.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-sctx.Done():
	}
	if err != nil {
		left := s.inFlight.Load()
		hs.Close() // cut off what is left
		<-errc
		return fmt.Errorf("shutdown: %d of the %d requests in flight did not finish within the grace period of %s; their connections were closed", left, n, s.opts.ShutdownGrace)
	}
	<-errc // http.ErrServerClosed
	slog.Info(fmt.Sprintf("stopped: the %d requests in flight were answered", n))
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	// Encoded like predict's jsonl lines: no HTML escaping, one line.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		_ = enc.Encode(map[string]string{"error": "encode result: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
