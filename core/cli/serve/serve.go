// Package serve implements `paddle serve <kit>`: it loads a kit's predictor
// once and answers POST /v1/<kit> over HTTP with core/serve until SIGINT or
// SIGTERM, then finishes the requests in flight and exits 0 (1 when some did
// not finish within the grace period).
package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"paddle/core/cli/cmdutil"
	"paddle/core/serve"
)

// Options are the inputs of `paddle serve <kit>`.
type Options struct {
	Factory     *cmdutil.Factory
	Kit         string
	Addr        string // host:port to listen on
	MaxBody     int64
	MaxBodies   int64 // bytes of request bodies held at once
	Concurrency int
	Queue       int
	Timeout     time.Duration
	ReadTimeout time.Duration
	// Load builds the kit's predictor (from kit.Kit.Serve) once flags are parsed.
	Load func(ctx context.Context) (serve.Predictor, error)
	// RecordDoc describes the kit's record (kit.Kit.PredictRecord), for /openapi.json.
	RecordDoc string
	// More are the other kits served on the same port (`paddle serve ocr det`).
	More []KitLoad

	ready func(addr net.Addr) // tests: called when the server accepts requests
}

// KitLoad is one more kit of a server of several: its name, record and loader.
type KitLoad struct {
	Name      string
	RecordDoc string
	Load      func(ctx context.Context) (serve.Predictor, error)
}

// NewCmdServe returns `paddle serve` with one subcommand per kit that sets
// kit.Kit.Serve.
func NewCmdServe(f *cmdutil.Factory, kits []*cmdutil.Kit) *cobra.Command {
	return newCmdServe(f, kits, nil)
}

// newCmdServe is NewCmdServe with runF replacing the run step (tests).
func newCmdServe(f *cmdutil.Factory, kits []*cmdutil.Kit, runF func(*Options) error) *cobra.Command {
	var names []string
	for _, k := range kits {
		if k.Serve != nil {
			names = append(names, k.Name)
		}
	}
	cmd := &cobra.Command{
		Use:   "serve <kit>",
		Short: "Serve a kit's predictions over HTTP (POST /v1/<kit>) from one loaded model",
		Long: "serve loads a kit's model once and answers POST /v1/<kit> with the same JSON object\n" +
			"as `paddle <kit> predict --format jsonl` gives for one input. Send the image as the\n" +
			"raw body, as multipart/form-data (field \"image\", or the first file), or as JSON\n" +
			"{\"image\": \"<base64>\"}. GET /healthz answers {\"status\": \"ok\", ...}.\n" +
			"A request's body is received whole first, holding no place, so slow uploads\n" +
			"cannot shut others out. Errors are JSON {\"error\": \"...\"}: 400 bad input,\n" +
			"408 body not received within --read-timeout, 413 body over --max-body,\n" +
			"503 (with Retry-After) when --concurrency requests run and --queue more wait,\n" +
			"or when the bodies held at once would exceed --max-bodies,\n" +
			"504 after --timeout. SIGINT or SIGTERM stop accepting and let what is in flight\n" +
			"finish (at most --timeout + 5s), then say how it went.\n\n" +
			"Every server also answers GET / (a page to try the model in a browser: drop an image,\n" +
			"audio file, text or SMILES and see the result drawn; /?demo=1 sends a shipped sample),\n" +
			"GET /openapi.json (OpenAPI 3.1: each endpoint's request and record) and GET /metrics\n" +
			"(Prometheus text: requests by kit and code, errors, latency histogram, in flight,\n" +
			"model load time).\n\n" +
			severalKits + "\n\n" +
			"Servable kits: " + strings.Join(names, ", "),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.FlagErrorf("kit %q cannot be served (servable: %s)", args[0], strings.Join(names, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, k := range kits {
		if k.Serve != nil {
			cmd.AddCommand(newCmdServeKit(f, k, kits, runF))
		}
	}
	return cmd
}

// severalKits documents one server for several kits.
const severalKits = "One server can answer several kits: `paddle serve ocr det --det.model DIR` loads both\n" +
	"and answers POST /v1/ocr and POST /v1/det on one port. The first kit takes its flags\n" +
	"as usual; every other kit's flags are written with its name in front, --<kit>.<flag>\n" +
	"(`paddle serve det --help` lists det's flags: --model becomes --det.model); -c and -o\n" +
	"apply to the first kit only (the others read the config saved with their model). The limits\n" +
	"(--concurrency, --queue, --timeout) apply to each kit on its own."

// DefaultConcurrency is the --concurrency default: the cores, at most 4
// (every request's kernels already use --threads goroutines).
func DefaultConcurrency() int { return min(runtime.NumCPU(), 4) }

func newCmdServeKit(f *cmdutil.Factory, k *cmdutil.Kit, kits []*cmdutil.Kit, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f, Kit: k.Name, MaxBody: serve.DefaultMaxBody, MaxBodies: serve.DefaultMaxBodies, RecordDoc: k.PredictRecord}
	var maxPixels func() error
	var others []string
	more := map[string]KitLoad{}
	var otherFactories []*cmdutil.Factory // the other kits' view of f
	cmd := &cobra.Command{
		Use:   k.Name + " [KIT...] [--addr HOST:PORT]",
		Short: "Serve " + k.Name + " predictions on POST /v1/" + k.Name,
		Long: "Serve " + k.Name + " predictions on POST /v1/" + k.Name + " from one loaded model, with the page at /,\n" +
			"/openapi.json, /metrics and /healthz (see `paddle serve --help`).\n\n" + severalKits,
		Example: fmt.Sprintf("  paddle serve %[1]s --addr 127.0.0.1:8080\n"+
			"  curl --data-binary @img.png -H 'Content-Type: image/png' http://127.0.0.1:8080/v1/%[1]s\n"+
			"  curl -F image=@img.png http://127.0.0.1:8080/v1/%[1]s\n"+
			"  open http://127.0.0.1:8080/ in a browser to try it", k.Name),
		Args: func(cmd *cobra.Command, args []string) error {
			seen := map[string]bool{k.Name: true}
			for _, a := range args {
				if _, ok := more[a]; !ok && a != k.Name {
					return cmdutil.FlagErrorf("kit %q cannot be served (servable: %s)", a, strings.Join(others, ", "))
				}
				if seen[a] {
					return cmdutil.FlagErrorf("kit %q given twice", a)
				}
				seen[a] = true
			}
			// A --<kit>.<flag> of a kit not served is a mistake, not a no-op.
			var err error
			cmd.Flags().Visit(func(fl *pflag.Flag) {
				if kit, _, ok := strings.Cut(fl.Name, "."); ok && !seen[kit] && err == nil {
					err = cmdutil.FlagErrorf("--%s is a flag of kit %s, which is not served (add it: paddle serve %s %s)", fl.Name, kit, k.Name, kit)
				}
			})
			return err
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var c []cobra.Completion
			for _, o := range others {
				if !slices.Contains(args, o) {
					c = append(c, o)
				}
			}
			return c, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// The other kits share the process settings but not -c and -o,
			// which describe the first kit's model.
			for _, fo := range otherFactories {
				*fo = *f
				fo.Settings.Config, fo.Settings.Overrides = "", nil
			}
			opts.More = nil
			for _, a := range args {
				opts.More = append(opts.More, more[a])
			}
			if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
				return cmdutil.FlagErrorf("--addr %q: want host:port, e.g. 127.0.0.1:8080", opts.Addr)
			}
			if opts.Concurrency < 1 {
				return cmdutil.FlagErrorf("--concurrency must be at least 1")
			}
			if opts.Queue < 0 {
				return cmdutil.FlagErrorf("--queue must not be negative")
			}
			if opts.Timeout <= 0 {
				return cmdutil.FlagErrorf("--timeout must be positive")
			}
			if opts.ReadTimeout <= 0 {
				return cmdutil.FlagErrorf("--read-timeout must be positive")
			}
			if opts.MaxBodies < opts.MaxBody {
				return cmdutil.FlagErrorf("--max-bodies (%s) must be at least --max-body (%s)", serve.FormatSize(opts.MaxBodies), serve.FormatSize(opts.MaxBody))
			}
			if err := maxPixels(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	fl.Var((*sizeValue)(&opts.MaxBody), "max-body", "largest request body (KB, MB, GB are powers of 1024); larger ones get 413")
	fl.Var((*sizeValue)(&opts.MaxBodies), "max-bodies", "request bodies held at once (being received, waiting or predicted), all kits together; a body that does not fit gets 503")
	fl.IntVar(&opts.Concurrency, "concurrency", DefaultConcurrency(), "requests predicted at the same time, on one loaded model")
	fl.IntVar(&opts.Queue, "queue", 64, "requests that may wait for a free slot; more get 503")
	fl.DurationVar(&opts.Timeout, "timeout", serve.DefaultTimeout, "answer within this time of receiving the body, queueing included, or get 504")
	fl.DurationVar(&opts.ReadTimeout, "read-timeout", serve.DefaultReadTimeout, "receive the whole request body within this time, or get 408")
	maxPixels = cmdutil.MaxPixelsFlag(cmd, serve.DefaultMaxPixels)
	// The kit's own model flags go on the same command; its loader runs after parsing.
	opts.Load = k.Serve(f, cmd)
	// Every other servable kit's flags go on it too, named --<kit>.<flag> and
	// hidden from the help (each kit's own command lists them).
	for _, o := range kits {
		if o.Serve == nil || o.Name == k.Name {
			continue
		}
		others = append(others, o.Name)
		scratch := &cobra.Command{Use: o.Name}
		fo := &cmdutil.Factory{}
		otherFactories = append(otherFactories, fo)
		load := o.Serve(fo, scratch)
		scratch.Flags().VisitAll(func(fl *pflag.Flag) {
			c := *fl
			c.Name, c.Shorthand, c.Hidden = o.Name+"."+fl.Name, "", true
			cmd.Flags().AddFlag(&c)
		})
		more[o.Name] = KitLoad{Name: o.Name, RecordDoc: o.PredictRecord, Load: load}
	}
	return cmd
}

// serveRun listens, loads the model, serves until SIGINT/SIGTERM (or ctx ends)
// and shuts down gracefully.
func serveRun(ctx context.Context, opts *Options) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmdutil.LeanGC(opts.Concurrency)
	// Listen before loading, so a busy port fails at once, not after the model load.
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	defer ln.Close()
	start := time.Now()
	var kits []serve.Kit
	for i, l := range append([]KitLoad{{Name: opts.Kit, RecordDoc: opts.RecordDoc, Load: opts.Load}}, opts.More...) {
		t0 := time.Now()
		pred, err := l.Load(ctx)
		if err != nil {
			if i > 0 {
				return fmt.Errorf("kit %s (its flags are --%s.<flag>): %w", l.Name, l.Name, err)
			}
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		kits = append(kits, serve.Kit{Name: l.Name, Predictor: pred, Input: cmdutil.InputOf(l.RecordDoc),
			RecordDoc: l.RecordDoc, LoadTime: time.Since(t0)})
	}
	srv, err := serve.NewGroup(serve.Options{
		MaxBody: opts.MaxBody, MaxBodies: opts.MaxBodies, Concurrency: opts.Concurrency, Queue: opts.Queue, Timeout: opts.Timeout,
		ReadTimeout: opts.ReadTimeout,
	}, kits...)
	if err != nil {
		return err
	}
	var routes []string
	for _, k := range kits {
		routes = append(routes, "POST /v1/"+k.Name)
	}
	slog.Info(fmt.Sprintf("serving on http://%s/ (%s, GET /healthz /openapi.json /metrics); Ctrl-C stops", ln.Addr(), strings.Join(routes, ", ")),
		"load_ms", time.Since(start).Milliseconds(), "concurrency", opts.Concurrency, "queue", opts.Queue,
		"max_body", serve.FormatSize(opts.MaxBody), "max_bodies", serve.FormatSize(opts.MaxBodies), "timeout", opts.Timeout.String(), "read_timeout", srv.Options().ReadTimeout.String())
	if opts.ready != nil {
		opts.ready(ln.Addr())
	}
	// Serve says how the shutdown went.
	return srv.Serve(ctx, ln)
}

// sizeValue is a byte count flag written like "20MB".
type sizeValue int64

func (v *sizeValue) String() string { return serve.FormatSize(int64(*v)) }

func (v *sizeValue) Set(s string) error {
	n, err := serve.ParseSize(s)
	if err != nil {
		return err
	}
	*v = sizeValue(n)
	return nil
}

func (v *sizeValue) Type() string { return "size" }
