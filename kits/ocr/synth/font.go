package synth

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
)

// Font is one loaded face: a file (or one font of a .ttc collection) and its name.
type Font struct {
	Name string // file base name, with "#i" for the i-th font of a collection
	Font *opentype.Font
}

// HasAll reports whether the font has a glyph for every rune of s (spaces always pass).
func (f *Font) HasAll(s string) bool {
	var b sfnt.Buffer
	for _, r := range s {
		if r == ' ' {
			continue
		}
		if i, err := f.Font.GlyphIndex(&b, r); err != nil || i == 0 {
			return false
		}
	}
	return true
}

// goFonts are the Go fonts embedded in golang.org/x/image: usable with no font installed.
var goFonts = []struct {
	name string
	ttf  []byte
}{
	{"GoRegular", goregular.TTF}, {"GoBold", gobold.TTF}, {"GoItalic", goitalic.TTF},
	{"GoMedium", gomedium.TTF}, {"GoMono", gomono.TTF},
}

// SystemFontDirs are searched by the font spec "system".
var SystemFontDirs = []string{"/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "/System/Library/Fonts", `C:\Windows\Fonts`}

// LoadFonts loads the fonts that specs name, in order. A spec is a font file
// (.ttf, .otf, or a .ttc/.otc collection: every font in it), a folder
// (searched recursively, sorted), "go" (the embedded Go fonts), "go:NAME"
// (one of them: GoRegular, GoBold, GoItalic, GoMedium, GoMono) or "system"
// (SystemFontDirs). A spec may be a comma-separated list.
func LoadFonts(specs ...string) ([]*Font, error) {
	var out []*Font
	for _, spec := range specs {
		for _, s := range strings.Split(spec, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			fs, err := loadSpec(s)
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no fonts found in %q", strings.Join(specs, ","))
	}
	return out, nil
}

func loadSpec(s string) ([]*Font, error) {
	switch {
	case s == "go":
		var out []*Font
		for _, g := range goFonts {
			f, err := opentype.Parse(g.ttf)
			if err != nil {
				return nil, fmt.Errorf("font %s: %w", g.name, err)
			}
			out = append(out, &Font{Name: g.name, Font: f})
		}
		return out, nil
	case strings.HasPrefix(s, "go:"):
		for _, g := range goFonts {
			if g.name == s[3:] {
				f, err := opentype.Parse(g.ttf)
				if err != nil {
					return nil, fmt.Errorf("font %s: %w", g.name, err)
				}
				return []*Font{{Name: g.name, Font: f}}, nil
			}
		}
		known := make([]string, len(goFonts))
		for i, g := range goFonts {
			known[i] = g.name
		}
		return nil, fmt.Errorf("font %q: unknown Go font (known: %s)", s, strings.Join(known, ", "))
	case s == "system":
		var out []*Font
		for _, d := range SystemFontDirs {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				fs, err := loadDir(d)
				if err != nil {
					return nil, err
				}
				out = append(out, fs...)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("font spec \"system\": no fonts in %s", strings.Join(SystemFontDirs, ", "))
		}
		return out, nil
	}
	fi, err := os.Stat(s)
	if err != nil {
		return nil, fmt.Errorf("font %w", err)
	}
	if fi.IsDir() {
		fs, err := loadDir(s)
		if err == nil && len(fs) == 0 {
			err = fmt.Errorf("font folder %s: no .ttf/.otf/.ttc files", s)
		}
		return fs, err
	}
	return loadFile(s)
}

func isFontFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".ttf", ".otf", ".ttc", ".otc":
		return true
	}
	return false
}

func loadDir(dir string) ([]*Font, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isFontFile(p) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("font folder %s: %w", dir, err)
	}
	slices.Sort(paths)
	var out []*Font
	for _, p := range paths {
		fs, err := loadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// loadFile parses a font file; collections yield one Font per member.
func loadFile(p string) ([]*Font, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("font %w", err)
	}
	base := filepath.Base(p)
	switch strings.ToLower(filepath.Ext(p)) {
	case ".ttc", ".otc":
		n, err := collectionSize(b)
		if err != nil {
			return nil, fmt.Errorf("font %s: %w", p, err)
		}
		c, cerr := opentype.ParseCollection(b)
		var out []*Font
		for i := range n {
			var f *opentype.Font
			err := cerr
			if err == nil {
				f, err = c.Font(i)
			}
			if err != nil {
				// x/image/font/sfnt wants every table 4-byte aligned; some
				// collections (WenQuanYi's) are not: the face is copied out
				// with its tables aligned, byte for byte otherwise.
				face, aerr := alignedFace(b, i)
				if aerr != nil {
					return nil, fmt.Errorf("font %s #%d: %w (%w)", p, i, err, aerr)
				}
				if f, err = opentype.Parse(face); err != nil {
					return nil, fmt.Errorf("font %s #%d: %w", p, i, err)
				}
			}
			out = append(out, &Font{Name: fmt.Sprintf("%s#%d", base, i), Font: f})
		}
		return out, nil
	}
	f, err := opentype.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("font %s: %w", p, err)
	}
	return []*Font{{Name: base, Font: f}}, nil
}

// collectionSize returns the number of fonts of a TrueType/OpenType
// collection file's header ("ttcf").
func collectionSize(b []byte) (int, error) {
	if len(b) < 12 || string(b[:4]) != "ttcf" {
		return 0, fmt.Errorf("not a font collection (no ttcf header)")
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	if n < 1 || 12+4*n > len(b) {
		return 0, fmt.Errorf("font collection: %d fonts in a %d-byte file", n, len(b))
	}
	return n, nil
}

// alignedFace returns font i of collection b as a standalone sfnt file
// whose tables start on 4-byte boundaries (OpenType's rule, which
// x/image/font/sfnt enforces), their bytes and the table directory
// otherwise unchanged (checksums are not recomputed: sfnt ignores them).
func alignedFace(b []byte, i int) ([]byte, error) {
	n, err := collectionSize(b)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf("font collection: no font #%d (it has %d)", i, n)
	}
	be := binary.BigEndian
	off := int(be.Uint32(b[12+4*i:]))
	if off+12 > len(b) {
		return nil, fmt.Errorf("font collection: font #%d starts at %d, past the end", i, off)
	}
	tables := int(be.Uint16(b[off+4:]))
	dir := off + 12
	if dir+16*tables > len(b) {
		return nil, fmt.Errorf("font collection: font #%d's %d table records pass the end", i, tables)
	}
	out := append([]byte(nil), b[off:dir+16*tables]...)
	for t := range tables {
		rec := out[12+16*t:]
		o, l := int(be.Uint32(rec[8:])), int(be.Uint32(rec[12:]))
		if o < 0 || l < 0 || o+l > len(b) {
			return nil, fmt.Errorf("font collection: font #%d table %q at %d+%d passes the end", i, rec[:4], o, l)
		}
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		be.PutUint32(rec[8:], uint32(len(out)))
		out = append(out, b[o:o+l]...)
	}
	return out, nil
}
