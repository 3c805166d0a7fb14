package serve

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// latencyBuckets are the upper bounds (seconds) of the latency histogram:
// from a small classifier's milliseconds to a long recording's tens of seconds.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// statusClientGone is the code counted for a request answered with nothing
// because its client went away first (nginx's 499).
const statusClientGone = 499

// metrics counts each kit's predict requests for GET /metrics, in
// Prometheus' text exposition format (version 0.0.4).
type metrics struct {
	kits []Kit
	mu   sync.Mutex
	per  []kitMetrics
}

type kitMetrics struct {
	codes    map[int]uint64 // answered requests by status code
	errors   uint64         // answered with a status of 400 or more
	inFlight int64
	buckets  []uint64 // cumulative counts are made when written
	sum      float64  // seconds
	count    uint64
}

func newMetrics(kits []Kit) *metrics {
	m := &metrics{kits: kits, per: make([]kitMetrics, len(kits))}
	for i := range m.per {
		m.per[i] = kitMetrics{codes: map[int]uint64{}, buckets: make([]uint64, len(latencyBuckets))}
	}
	return m
}

// instrument wraps kit i's predict handler: it counts the request in flight
// while it runs, then its status code, error and latency.
func (m *metrics) instrument(i int, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.mu.Lock()
		m.per[i].inFlight++
		m.mu.Unlock()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		defer func() {
			code := sw.code
			if !sw.wroteHeader {
				code = statusClientGone
			}
			m.observe(i, code, time.Since(start))
		}()
		h.ServeHTTP(sw, r)
	})
}

func (m *metrics) observe(i, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := &m.per[i]
	k.inFlight--
	k.codes[code]++
	if code >= 400 {
		k.errors++
	}
	s := d.Seconds()
	if j, _ := slices.BinarySearch(latencyBuckets, s); j < len(latencyBuckets) {
		k.buckets[j]++
	}
	k.sum += s
	k.count++
}

// write writes every metric in the text format: HELP and TYPE lines, then
// one sample per kit (and code, and bucket).
func (m *metrics) write(w io.Writer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := bufio.NewWriter(w)
	head := func(name, typ, help string) {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	head("paddle_serve_requests_total", "counter", "Predict requests answered, by kit and HTTP status code.")
	for i, k := range m.per {
		codes := make([]int, 0, len(k.codes))
		for c := range k.codes {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		for _, c := range codes {
			fmt.Fprintf(b, "paddle_serve_requests_total{kit=%q,code=\"%d\"} %d\n", m.kits[i].Name, c, k.codes[c])
		}
	}
	head("paddle_serve_errors_total", "counter", "Predict requests answered with a status of 400 or more, by kit.")
	for i, k := range m.per {
		fmt.Fprintf(b, "paddle_serve_errors_total{kit=%q} %d\n", m.kits[i].Name, k.errors)
	}
	head("paddle_serve_request_duration_seconds", "histogram", "Time from a predict request's arrival to its answer, by kit.")
	for i, k := range m.per {
		var cum uint64
		for j, le := range latencyBuckets {
			cum += k.buckets[j]
			fmt.Fprintf(b, "paddle_serve_request_duration_seconds_bucket{kit=%q,le=%q} %d\n", m.kits[i].Name, formatFloat(le), cum)
		}
		fmt.Fprintf(b, "paddle_serve_request_duration_seconds_bucket{kit=%q,le=\"+Inf\"} %d\n", m.kits[i].Name, k.count)
		fmt.Fprintf(b, "paddle_serve_request_duration_seconds_sum{kit=%q} %s\n", m.kits[i].Name, formatFloat(k.sum))
		fmt.Fprintf(b, "paddle_serve_request_duration_seconds_count{kit=%q} %d\n", m.kits[i].Name, k.count)
	}
	head("paddle_serve_requests_in_flight", "gauge", "Predict requests received and not yet answered, by kit.")
	for i, k := range m.per {
		fmt.Fprintf(b, "paddle_serve_requests_in_flight{kit=%q} %d\n", m.kits[i].Name, k.inFlight)
	}
	head("paddle_serve_model_load_seconds", "gauge", "Time the kit's model took to load at start-up.")
	for i := range m.per {
		fmt.Fprintf(b, "paddle_serve_model_load_seconds{kit=%q} %s\n", m.kits[i].Name, formatFloat(m.kits[i].LoadTime.Seconds()))
	}
	return b.Flush()
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.code, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (read deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
