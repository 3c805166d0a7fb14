// Package synth renders OCR training data: text-line images with PaddleOCR
// recognition labels (`img_path\ttext`) and pages of several lines with
// detection labels (`img_path\t[{"transcription": ..., "points": [[x, y] ×4]}]`).
// Text comes from a corpus or a character set, fonts from files, folders, the
// system or the Go fonts built into the binary; augmentations cover size,
// colour, background texture and noise, blur, rotation, perspective and JPEG
// artefacts. Output is deterministic for a seed, whatever the number of workers.
//
// Where things are:
//
//	font.go    LoadFonts: files, folders, .ttc collections, "go", "system"
//	texts.go   Texts: corpus windows or random strings over a charset
//	render.go  RenderLine and the augmentations
//	page.go    RenderPage: several lines on a page, with their quadrilaterals
//	synth.go   Generate: parallel rendering to images + a label file
//	cmd.go     `paddle ocr synth`
package synth

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"paddle/core/data"
)

// Options configure Generate.
type Options struct {
	Out     string  // output folder: label file + images/
	Count   int     // number of images
	Texts   *Texts  // what to write
	Fonts   []*Font // faces to draw with (a sample uses one that has all its glyphs)
	Seed    uint64  // sample i is rendered from rand PCG(Seed, i)
	Workers int     // goroutines (0: 1)
	Format  string  // "jpg" (default) or "png"
	Line    LineOptions
	// Det renders pages of several lines with detection labels instead of lines.
	Det  bool
	Page PageOptions
	// LabelFile is the label file's name inside Out (default rec_gt.txt, or det_gt.txt with Det).
	LabelFile string
	// Progress, if set, is called after each image (from several goroutines).
	Progress func(done int)
}

// Generate renders o.Count images into o.Out/images and writes the label
// file o.Out/o.LabelFile, lines in sample order. It returns the label file's path.
func Generate(ctx context.Context, o Options) (string, error) {
	if o.Count <= 0 {
		return "", fmt.Errorf("count %d must be positive", o.Count)
	}
	if len(o.Fonts) == 0 || o.Texts == nil {
		return "", fmt.Errorf("need fonts and a text source")
	}
	ext := strings.TrimPrefix(strings.ToLower(o.Format), ".")
	switch ext {
	case "", "jpeg":
		ext = "jpg"
	case "jpg", "png":
	default:
		return "", fmt.Errorf("image format %q (known: jpg, png)", o.Format)
	}
	if o.LabelFile == "" {
		o.LabelFile = "rec_gt.txt"
		if o.Det {
			o.LabelFile = "det_gt.txt"
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, "images"), 0o755); err != nil {
		return "", err
	}
	labels := make([]string, o.Count)
	errs := make([]error, o.Count)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(o.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				labels[i], errs[i] = one(o, i, ext)
				if o.Progress != nil {
					o.Progress(1)
				}
			}
		}()
	}
	for i := range o.Count {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	for i, err := range errs {
		if err != nil {
			return "", fmt.Errorf("sample %d: %w", i, err)
		}
	}
	path := filepath.Join(o.Out, o.LabelFile)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	for _, l := range labels {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// one renders and saves sample i and returns its label line.
func one(o Options, i int, ext string) (string, error) {
	r := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	rel := fmt.Sprintf("images/%06d.%s", i, ext)
	var img *data.Image
	var label string
	if o.Det {
		page, boxes, err := RenderPage(o.Texts, o.Fonts, o.Page, o.Line, r)
		if err != nil {
			return "", err
		}
		b, err := MarshalDetLabel(boxes)
		if err != nil {
			return "", err
		}
		img, label = page, string(b)
	} else {
		text, f, err := pickText(o.Texts, o.Fonts, r)
		if err != nil {
			return "", err
		}
		if img, err = RenderLine(text, f, o.Line, r); err != nil {
			return "", err
		}
		label = text
	}
	if err := save(filepath.Join(o.Out, rel), img, ext); err != nil {
		return "", err
	}
	return rel + "\t" + label, nil
}

// pickText draws a text and a font that has all of its glyphs.
func pickText(t *Texts, fonts []*Font, r *rand.Rand) (string, *Font, error) {
	for range 20 {
		text := t.Pick(r)
		start := r.IntN(len(fonts))
		for k := range fonts {
			if f := fonts[(start+k)%len(fonts)]; f.HasAll(text) {
				return text, f, nil
			}
		}
	}
	return "", nil, fmt.Errorf("no font has the glyphs of the texts drawn (fonts: %s)", fontNames(fonts))
}

func fontNames(fs []*Font) string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Name)
	}
	return strings.Join(n, ", ")
}

func save(path string, img *data.Image, ext string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if ext == "png" {
		err = png.Encode(f, img.ToStd())
	} else {
		err = jpeg.Encode(f, img.ToStd(), &jpeg.Options{Quality: 95})
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// DetBox is one text region of a detection label, as PaddleOCR writes it.
type DetBox struct {
	Transcription string   `json:"transcription"`
	Points        [][2]int `json:"points"`
}

// MarshalDetLabel encodes boxes as PaddleOCR's det label JSON, spaced as
// Python's json.dumps writes it, non-ASCII kept as is.
func MarshalDetLabel(boxes []DetBox) ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, b := range boxes {
		if i > 0 {
			sb.WriteString(", ")
		}
		var tb strings.Builder
		enc := json.NewEncoder(&tb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(b.Transcription); err != nil {
			return nil, err
		}
		sb.WriteString(`{"transcription": `)
		sb.WriteString(strings.TrimRight(tb.String(), "\n"))
		sb.WriteString(`, "points": [`)
		for j, p := range b.Points {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "[%d, %d]", p[0], p[1])
		}
		sb.WriteString("]}")
	}
	sb.WriteByte(']')
	return []byte(sb.String()), nil
}
