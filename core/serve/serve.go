// Package serve is the one HTTP server of `paddle serve <kit>`: it exposes a
// kit's Predictor as POST /v1/<kit> (an image as the raw body, as
// multipart/form-data or as JSON with base64) and GET /healthz, on one loaded
// model shared by concurrent requests.
//
// A request is admitted when fewer than Concurrency+Queue requests are
// waiting or running (503 with Retry-After otherwise), runs when one of
// Concurrency slots is free, and gets a 504 when it has not finished within
// Timeout. Bodies over MaxBody get a 413, inputs the kit cannot read a 400,
// and every error is JSON: {"error": "..."}. Serve shuts down gracefully:
// in-flight requests finish before it returns.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
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
	MaxBody     int64         // largest request body in bytes (default 20 MB)
	Concurrency int           // requests predicted at the same time (default 1)
	Queue       int           // requests that may wait for a slot beyond that (0: none wait)
	Timeout     time.Duration // from arrival to answer, queueing included (default 30 s)
	// ShutdownGrace bounds how long Serve waits for in-flight requests after
	// its context ends (default Timeout + 5 s).
	ShutdownGrace time.Duration
}

// Default limits.
const (
	DefaultMaxBody = 20 << 20
	DefaultTimeout = 30 * time.Second
	// DefaultMaxPixels is the served --max-pixels: 40 megapixels (6300×6300),
	// lower than predict's, since several requests decode at once.
	DefaultMaxPixels = 40_000_000
)

func (o Options) withDefaults() Options {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	o.Queue = max(o.Queue, 0)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = o.Timeout + 5*time.Second
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

	tickets chan struct{} // admitted requests: waiting or running
	slots   chan struct{} // running predictions
	running sync.WaitGroup
}

// New returns the server of kit (the route is POST /v1/<kit>) over p, with
// the routes every server has (group.go): /healthz, /, /openapi.json, /metrics.
func New(kit string, p Predictor, opts Options) *Server {
	s, _ := NewGroup(opts, Kit{Name: kit, Predictor: p}) // one named kit: no error
	return s
}

// newKit returns one kit's admission and predict handler, without routes.
func newKit(kit string, p Predictor, o Options) *Server {
	return &Server{
		kit: kit, pred: p, opts: o, mux: http.NewServeMux(),
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
		Concurrency: s.opts.Concurrency, Queue: s.opts.Queue})
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
	if r.ContentLength > s.opts.MaxBody {
		s.tooLarge(w)
		return
	}
	// Admission first, so a full server refuses before reading the body.
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

	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
	in, err := readInput(r)
	if err != nil {
		if isTooLarge(err) {
			s.tooLarge(w)
		} else {
			writeError(w, http.StatusBadRequest, err.Error())
		}
		return
	}

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
	done := make(chan result, 1)
	s.running.Add(1)
	go func() {
		defer func() {
			<-s.slots
			<-s.tickets
			s.running.Done()
		}()
		v, err := s.predict(ctx, in)
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
// it stops accepting, lets in-flight requests finish (within ShutdownGrace)
// and returns nil. It returns an error only when serving fails.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.opts.Timeout + 10*time.Second,
		WriteTimeout:      2*s.opts.Timeout + 10*time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc // http.ErrServerClosed
	// Predictions whose requests timed out may still run; let them end too.
	idle := make(chan struct{})
	go func() { s.running.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-sctx.Done():
	}
	if err != nil {
		return fmt.Errorf("shutdown: in-flight requests did not finish within %s: %w", s.opts.ShutdownGrace, err)
	}
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
