package ocr

import (
	"context"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/data"
	"paddle/core/imgproc"
	"paddle/core/serve"
)

// serveFlags are the predict flags that choose and tune the models; `paddle serve
// ocr` takes them with the same meaning and defaults.
var serveFlags = []string{"det", "cls", "profile", "batch", "offline", "det-model", "rec-model", "cls-model", "rec-dict", "space-mode", "lang", "precision"}

// Serve is the kit's kit.Kit.Serve: it gives `paddle serve ocr` predict's model
// flags and returns the loader of the one System all requests share.
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	// The flags are predict's own definitions (names, defaults, help), not copies.
	pred := NewCmdPredict(f, nil)
	fl := cmd.Flags()
	for _, name := range serveFlags {
		fl.AddFlag(pred.Flags().Lookup(name))
	}
	return func(ctx context.Context) (serve.Predictor, error) {
		det, _ := fl.GetBool("det")
		cls, _ := fl.GetBool("cls")
		offline, _ := fl.GetBool("offline")
		batch, _ := fl.GetInt("batch")
		profile, _ := fl.GetString("profile")
		var src [4]string
		for i, name := range []string{"det-model", "rec-model", "cls-model", "rec-dict"} {
			src[i], _ = fl.GetString(name)
		}
		langFlag, _ := fl.GetString("lang")
		lang, err := ParseLang(langFlag)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--lang: %v", err)
		}
		precFlag, _ := fl.GetString("precision")
		precision, err := ParsePrecision(precFlag)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--precision: %v", err)
		}
		spaceMode, _ := fl.GetString("space-mode")
		if !fl.Changed("space-mode") {
			spaceMode = DefaultSpaceMode(lang)
		}
		mode, err := ParseSpaceMode(spaceMode)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--space-mode: %v", err)
		}
		prof, err := ProfileByName(profile)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--profile: %v", err)
		}
		if batch < 1 {
			return nil, cmdutil.FlagErrorf("--batch must be at least 1")
		}
		prof.RecBatch, prof.ClsBatch = batch, batch
		explicitRec := src[1] != "" || src[3] != ""
		load := func(ctx context.Context, lang string) (*System, error) {
			sys, err := LoadSystem(ctx, Sources{
				Det: src[0], Rec: src[1], Cls: src[2], Dict: src[3], Lang: lang,
				UseDet: det, UseCls: cls, Offline: offline, Threads: f.Settings.Threads,
				Precision: precision, Progress: f.IOStreams.Progress,
			}, prof)
			if err != nil {
				return nil, err
			}
			m := mode
			if !fl.Changed("space-mode") {
				if m, err = ParseSpaceMode(DefaultSpaceMode(lang)); err != nil {
					return nil, err
				}
			}
			sys.Decode = DecoderFor(m, sys.RecSteps)
			return sys, nil
		}
		sys, err := load(ctx, lang)
		if err != nil {
			return nil, err
		}
		p := &Predictor{System: sys, Det: det, Lang: lang}
		if !explicitRec { // ?lang= picks the store's recognisers only
			p.Load = load
		}
		return p, nil
	}
}

// Predictor serves a System over HTTP (core/serve): each request is one image,
// answered with predict's JSON object for it (Output). It is safe for concurrent
// use when the System's models are (core/runtime's are).
type Predictor struct {
	System *System
	Det    bool // false: each image is one text line (predict's --det=false)
	// Lang is System's language. A request may ask for another with
	// ?lang=en|ch: Load builds that language's System on first use (kept for
	// later requests); nil Load (a server given --rec-model or --rec-dict)
	// refuses ?lang= for any other language.
	Lang string
	Load func(ctx context.Context, lang string) (*System, error)

	mu     sync.Mutex
	others map[string]*System
}

// system returns the System for the request's ?lang= (System itself when
// absent or equal to Lang). An unknown language, or one this server cannot
// load, is the client's error.
func (p *Predictor) system(ctx context.Context, in serve.Input) (*System, error) {
	want := in.Params.Get("lang")
	if want == "" {
		return p.System, nil
	}
	lang, err := ParseLang(want)
	if err != nil {
		return nil, serve.BadInput(fmt.Errorf("lang: %w", err))
	}
	if lang == p.Lang || (p.Lang == "" && lang == LangCh) {
		return p.System, nil
	}
	if p.Load == nil {
		return nil, serve.BadInput(fmt.Errorf("lang: this server reads %s only (started with --rec-model or --rec-dict)", p.langName()))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if sys, ok := p.others[lang]; ok {
		return sys, nil
	}
	sys, err := p.Load(ctx, lang)
	if err != nil {
		return nil, fmt.Errorf("loading the %s recogniser: %w", lang, err)
	}
	if p.others == nil {
		p.others = map[string]*System{}
	}
	p.others[lang] = sys
	return sys, nil
}

func (p *Predictor) langName() string {
	if p.Lang == "" {
		return LangCh
	}
	return p.Lang
}

// Predict decodes the image in in.Body (as BGR, like predict) and recognises it;
// Output.Image is in.Name. An unreadable image, or one of more pixels than
// `paddle serve --max-pixels` (checked from its header), is a serve.BadInput.
func (p *Predictor) Predict(ctx context.Context, in serve.Input) (any, error) {
	sys, err := p.system(ctx, in)
	if err != nil {
		return nil, err
	}
	m, err := data.Decode(in.Body, data.BGR)
	if err != nil {
		return nil, serve.BadInput(fmt.Errorf("image: %w", err))
	}
	pg := page{name: in.Name, img: imgproc.Mat8{H: m.H, W: m.W, C: m.C, Pix: m.Pix}}
	return recognisePage(sys, pg, p.Det, nil, "")
}

// Describe tells /openapi.json the input and record.
func (p *Predictor) Describe() (string, any) { return serve.InputImage, Output{} }

// Release drops what the System's models keep between calls (core/runtime's
// idle buffers and plans); `paddle serve` calls it when idle (serve.Releaser).
func (p *Predictor) Release() {
	systems := []*System{p.System}
	p.mu.Lock()
	for _, s := range p.others {
		systems = append(systems, s)
	}
	p.mu.Unlock()
	for _, sys := range systems {
		for _, m := range []Model{sys.Det, sys.Rec, sys.Cls} {
			if r, ok := m.(serve.Releaser); ok {
				r.Release()
			}
		}
	}
}
