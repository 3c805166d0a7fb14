package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// Kit is one kit a server answers on POST /v1/<Name>.
type Kit struct {
	Name      string    // route name: "ocr"
	Predictor Predictor // the one loaded model
	// Input is the kit's modality: "image" (the default), "audio", "text" or
	// "smiles" — what the page offers to send and /openapi.json describes.
	Input string
	// Record is a value of the record type Predict returns (det.Prediction{}),
	// from which /openapi.json derives the record's JSON Schema; nil: any object.
	Record any
	// RecordDoc describes the record in words (kit.Kit.PredictRecord).
	RecordDoc string
	// LoadTime is how long loading the model took (/metrics).
	LoadTime time.Duration
}

// Describer is a Predictor that tells its modality and record type; the
// command line copies them into Kit.Input and Kit.Record.
type Describer interface {
	Describe() (input string, record any)
}

// The modalities of Kit.Input.
const (
	InputImage  = "image"
	InputAudio  = "audio"
	InputText   = "text"
	InputSMILES = "smiles"
)

// Releaser is a Predictor that keeps memory between calls for speed (a
// loaded model's buffers and plans, core/runtime's Predictor.Release): the
// server calls Release when it has been idle for Options.IdleRelease. It
// must be safe to call while Predict runs.
type Releaser interface {
	Release()
}

// releaseWhenIdle calls Release on the kits' Releasers and returns the freed
// memory to the operating system once no predict request has arrived or
// been in flight for after, and again only after the next request; it
// returns when ctx ends.
func (st *site) releaseWhenIdle(ctx context.Context, after time.Duration) {
	tick := time.NewTicker(max(after/4, time.Millisecond))
	defer tick.Stop()
	seen, quiet, released := int64(0), time.Now(), false
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			arrived, busy := int64(0), false
			for _, s := range st.servers {
				arrived += s.arrived.Load()
				busy = busy || s.inFlight.Load() > 0 || len(s.slots) > 0
			}
			if busy || arrived != seen {
				seen, quiet, released = arrived, now, false
				continue
			}
			if released || now.Sub(quiet) < after {
				continue
			}
			for _, k := range st.kits {
				if r, ok := k.Predictor.(Releaser); ok {
					r.Release()
				}
			}
			debug.FreeOSMemory()
			released = true
			slog.Debug("idle: released the models' cached buffers", "idle", now.Sub(quiet).Round(time.Millisecond).String())
		}
	}
}

// site is what a server answers around the kits' predict routes: the
// health of every kit, the page, the OpenAPI document and the metrics.
type site struct {
	kits    []Kit
	servers []*Server // one per kit, in kits' order: each its own admission
	metrics *metrics
	openapi []byte
}

var kitName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// NewGroup returns one server for several kits: each answers POST
// /v1/<name> with its own Concurrency, Queue and Timeout (opts applies to
// each kit separately, as if each had its own server, except MaxBodies,
// which bounds the bodies of all kits together), and the server
// answers GET /healthz for all of them, / (a page to try the kits in a
// browser), /openapi.json and /metrics. Names must be distinct.
func NewGroup(opts Options, kits ...Kit) (*Server, error) {
	if len(kits) == 0 {
		return nil, errors.New("serve: no kit to serve")
	}
	o := opts.withDefaults()
	st := &site{kits: slices.Clone(kits)}
	bodies := &bodyBudget{max: o.MaxBodies}
	for i := range st.kits {
		k := &st.kits[i]
		if !kitName.MatchString(k.Name) {
			return nil, fmt.Errorf("serve: kit name %q: want lower-case letters, digits, - or _", k.Name)
		}
		if k.Predictor == nil {
			return nil, fmt.Errorf("serve: kit %s has no predictor", k.Name)
		}
		if slices.ContainsFunc(st.kits[:i], func(o Kit) bool { return o.Name == k.Name }) {
			return nil, fmt.Errorf("serve: kit %s given twice", k.Name)
		}
		if d, ok := k.Predictor.(Describer); ok {
			in, rec := d.Describe()
			if k.Input == "" {
				k.Input = in
			}
			if k.Record == nil {
				k.Record = rec
			}
		}
		switch k.Input {
		case "":
			k.Input = InputImage
		case InputImage, InputAudio, InputText, InputSMILES:
		default:
			return nil, fmt.Errorf("serve: kit %s: input %q: want image, audio, text or smiles", k.Name, k.Input)
		}
		st.servers = append(st.servers, newKit(k.Name, k.Predictor, o, bodies))
	}
	st.metrics = newMetrics(st.kits)
	doc, err := json.MarshalIndent(openAPI(st.kits), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("serve: openapi: %w", err)
	}
	st.openapi = doc

	front := st.servers[0]
	front.site = st
	mux := front.mux
	for i, ks := range st.servers {
		mux.Handle("/v1/"+ks.kit, st.metrics.instrument(i, http.HandlerFunc(ks.handlePredict)))
	}
	mux.HandleFunc("/healthz", st.handleHealth)
	mux.HandleFunc("/openapi.json", st.handleOpenAPI)
	mux.HandleFunc("/metrics", st.handleMetrics)
	mux.Handle("/assets/", pageAssets())
	mux.HandleFunc("/", st.handlePage)
	return front, nil
}

// routes lists the known routes, for 404s and 405s.
func (st *site) routes() string {
	var r []string
	for _, k := range st.kits {
		r = append(r, "POST /v1/"+k.Name)
	}
	return strings.Join(append(r, "GET /", "GET /healthz", "GET /openapi.json", "GET /metrics"), ", ")
}

// GroupHealth is the body of GET /healthz of a server with several kits:
// each kit's Health.
type GroupHealth struct {
	Status string            `json:"status"`
	Kits   []json.RawMessage `json:"kits"`
}

// handleHealth answers the kit's Health for one kit, GroupHealth for several.
func (st *site) handleHealth(w http.ResponseWriter, r *http.Request) {
	if len(st.servers) == 1 || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		st.servers[0].handleHealth(w, r)
		return
	}
	g := GroupHealth{Status: "ok"}
	for _, ks := range st.servers {
		var b bufferWriter
		ks.handleHealth(&b, r)
		g.Kits = append(g.Kits, json.RawMessage(bytes.TrimSpace(b.buf.Bytes())))
	}
	writeJSON(w, http.StatusOK, g)
}

func (st *site) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	if !allowGet(w, r, "/openapi.json") {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(st.openapi)
}

func (st *site) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if !allowGet(w, r, "/metrics") {
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_ = st.metrics.write(w)
}

// allowGet answers 405 to anything but GET and HEAD.
func allowGet(w http.ResponseWriter, r *http.Request, route string) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeError(w, http.StatusMethodNotAllowed, "use GET "+route)
	return false
}

// bufferWriter is an http.ResponseWriter that keeps the body.
type bufferWriter struct {
	h   http.Header
	buf bytes.Buffer
}

func (b *bufferWriter) Header() http.Header {
	if b.h == nil {
		b.h = http.Header{}
	}
	return b.h
}
func (b *bufferWriter) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *bufferWriter) WriteHeader(int)             {}
