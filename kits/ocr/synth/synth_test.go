package synth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"paddle/core/data"
)

func goFontsT(t *testing.T) []*Font {
	t.Helper()
	fs, err := LoadFonts("go")
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// dumpDir is where tests also write their output for a look, when SYNTH_DUMP is set.
func dumpDir(t *testing.T, name string) string {
	if d := os.Getenv("SYNTH_DUMP"); d != "" {
		return filepath.Join(d, name)
	}
	return t.TempDir()
}

func hashDir(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// The same seed gives byte-identical output whatever the number of workers;
// another seed gives other images. Labels are `images/NNNNNN.jpg\ttext`.
func TestGenerateDeterministicAcrossWorkers(t *testing.T) {
	texts, err := NewTexts(nil, "alnum", 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Count: 12, Texts: texts, Fonts: goFontsT(t), Seed: 5, Line: LineOptions{Augment: DefaultAugment()}}
	var hashes []string
	for i, w := range []int{1, 3} {
		o.Out, o.Workers = dumpDir(t, fmt.Sprint("det", i)), w
		path, err := Generate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, hashDir(t, o.Out))
		b, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 12 {
			t.Fatalf("%d label lines", len(lines))
		}
		for j, l := range lines {
			img, text, ok := strings.Cut(l, "\t")
			if !ok || img != fmt.Sprintf("images/%06d.jpg", j) || len(text) < 3 || len(text) > 10 {
				t.Fatalf("label line %q", l)
			}
			m, err := data.DecodeFile(filepath.Join(o.Out, img), data.RGB)
			if err != nil {
				t.Fatal(err)
			}
			if m.H < 28 || m.W < m.H {
				t.Errorf("%s is %d×%d: not a text line", img, m.W, m.H)
			}
		}
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("1 and 3 workers differ")
	}
	o.Seed, o.Out = 6, t.TempDir()
	if _, err := Generate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if hashDir(t, o.Out) == hashes[0] {
		t.Fatalf("seeds 5 and 6 gave the same data")
	}
}

// A clean render is dark text on white: ink only inside the text box, in
// every third of the width for a long string.
func TestRenderLineClean(t *testing.T) {
	f := goFontsT(t)[0]
	m, err := RenderLine("HELLO world 123", f, LineOptions{MinSize: 30, MaxSize: 30}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if m.H < 30 || m.H > 60 || m.W < 150 {
		t.Fatalf("size %d×%d", m.W, m.H)
	}
	var ink [3]int
	for y := range m.H {
		for x := range m.W {
			if m.At(y, x, 0) < 128 {
				ink[3*x/m.W]++
			}
		}
	}
	for i, n := range ink {
		if n < 50 {
			t.Errorf("third %d has %d ink pixels", i, n)
		}
	}
	if m.At(0, 0, 0) != 255 || m.At(m.H-1, m.W-1, 2) != 255 {
		t.Errorf("corners are not white")
	}
}

func TestTextsCorpusWindowsAndCharset(t *testing.T) {
	tx, err := NewTexts([]string{"The quick brown fox, jumps over the lazy dog!", "Élan vital 42"}, "alnum", 2, 12)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		s := tx.Pick(r)
		if n := len([]rune(s)); n < 2 || n > 12 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
			t.Fatalf("pick %q", s)
		}
		for _, c := range s {
			if c != ' ' && !strings.ContainsRune(Charsets["alnum"], c) {
				t.Fatalf("pick %q has %q outside the charset", s, c)
			}
		}
	}
	if _, err := NewTexts(nil, "", 1, 5); err == nil {
		t.Fatal("no corpus and no charset: want an error")
	}
}

func TestLoadFontsErrors(t *testing.T) {
	if _, err := LoadFonts("go:Nope"); err == nil || !strings.Contains(err.Error(), "GoMono") {
		t.Fatalf("err %v", err)
	}
	if _, err := LoadFonts(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no .ttf") {
		t.Fatalf("err %v", err)
	}
	fs, err := LoadFonts("go:GoMono,go:GoBold")
	if err != nil || len(fs) != 2 || fs[0].Name != "GoMono" {
		t.Fatalf("%v %v", fs, err)
	}
	if !fs[0].HasAll("abc 123") || fs[0].HasAll("漢字") {
		t.Fatal("HasAll")
	}
}

// Det pages: every box lies inside the page, boxes do not overlap, and the
// label JSON has PaddleOCR's keys.
func TestGenerateDetPages(t *testing.T) {
	texts, _ := NewTexts(nil, "alnum", 3, 12)
	o := Options{Out: dumpDir(t, "det"), Count: 4, Texts: texts, Fonts: goFontsT(t), Seed: 3, Det: true,
		Page: PageOptions{Width: 320, Height: 240, MaxLines: 6}, Line: LineOptions{MinSize: 16, MaxSize: 28, Augment: DefaultAugment()}}
	path, err := Generate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	total := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		_, js, _ := strings.Cut(l, "\t")
		if !strings.HasPrefix(js, `[{"transcription": `) && !strings.HasPrefix(js, `[{"transcription":`) {
			t.Fatalf("label %q", js)
		}
		var boxes []DetBox
		if err := json.Unmarshal([]byte(js), &boxes); err != nil {
			t.Fatal(err)
		}
		total += len(boxes)
		for _, bx := range boxes {
			if len(bx.Points) != 4 || bx.Transcription == "" {
				t.Fatalf("box %+v", bx)
			}
			for _, p := range bx.Points {
				if p[0] < 0 || p[0] >= 320 || p[1] < 0 || p[1] >= 240 {
					t.Fatalf("point %v outside the page", p)
				}
			}
		}
	}
	if total < 4 {
		t.Fatalf("only %d boxes on 4 pages", total)
	}
}

func TestMarshalDetLabelPythonStyle(t *testing.T) {
	b, err := MarshalDetLabel([]DetBox{{"a<b", [][2]int{{1, 2}, {3, 4}, {5, 6}, {7, 8}}}, {"漢", [][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"transcription": "a<b", "points": [[1, 2], [3, 4], [5, 6], [7, 8]]}, {"transcription": "漢", "points": [[0, 0], [1, 0], [1, 1], [0, 1]]}]`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if b, _ := MarshalDetLabel(nil); string(b) != "[]" {
		t.Fatalf("empty: %s", b)
	}
}

// A word gap of 2 space widths makes a two-gap line exactly 4 space widths
// wider (same margins: same seed), and a gap of 0 draws the line as before.
func TestRenderMaskWordGap(t *testing.T) {
	fs, err := LoadFonts("go:GoMono")
	if err != nil {
		t.Fatal(err)
	}
	f := fs[0]
	plain, err := renderMask("ab cd ef", f, 30, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	zero, err := renderMaskSpaced("ab cd ef", f, 30, 0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	wide, err := renderMaskSpaced("ab cd ef", f, 30, 2, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if zero.w != plain.w || string(zero.pix) != string(plain.pix) {
		t.Error("word gap 0 draws differently from renderMask")
	}
	space := 30 * 0.6 // GoMono advances are 0.6 em
	if d := float64(wide.w - plain.w); math.Abs(d-4*space) > 1 {
		t.Errorf("width grew by %v px, want %v (4 space widths)", d, 4*space)
	}
	if d := wide.box[1].X - plain.box[1].X; math.Abs(d-4*space) > 1 {
		t.Errorf("text box grew by %v px, want %v", d, 4*space)
	}
}

func TestDocLines(t *testing.T) {
	texts, err := NewTexts([]string{"The quick brown fox jumps over the lazy dog"}, "en", 1, 60)
	if err != nil {
		t.Fatal(err)
	}
	texts.Doc = 1
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for range 400 {
		s := texts.Pick(r)
		if n := len([]rune(s)); n < 1 || n > 60 || strings.TrimSpace(s) != s || strings.Contains(s, "  ") {
			t.Fatalf("line %q: length %d or spacing out of bounds", s, n)
		}
		for _, c := range s {
			if !strings.ContainsRune(Charsets["en"], c) {
				t.Fatalf("line %q: %q is outside the en charset", s, c)
			}
		}
		for kind, re := range map[string]*regexp.Regexp{
			"email": regexp.MustCompile(`[a-z0-9._-]+@[a-z]+\.[a-z.]+`),
			"date":  regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{2}/\d{2}/\d{4}`),
			"price": regexp.MustCompile(`\$\d[\d,]*\.\d{2}`),
			"url":   regexp.MustCompile(`https?://|www\.`),
			"time":  regexp.MustCompile(`\d{1,2}:\d{2}`),
			"upper": regexp.MustCompile(`\b[A-Z]{3,}\b`),
		} {
			if re.MatchString(s) {
				seen[kind] = true
			}
		}
	}
	if len(seen) != 6 {
		t.Errorf("kinds seen in 400 lines: %v", seen)
	}
	// deterministic for a seed
	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for range 20 {
		if x, y := texts.Pick(a), texts.Pick(b); x != y {
			t.Fatalf("%q != %q", x, y)
		}
	}
	if thousands(1234567) != "1,234,567" || thousands(999) != "999" || thousands(1000) != "1,000" {
		t.Error("thousands")
	}
}
