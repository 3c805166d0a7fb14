package vorbis

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Info is the identification header (Vorbis I spec §4.2.2) plus comments.
type Info struct {
	NumChannels int      // channel count (1 to 255)
	Rate        int      // samples per second per channel
	Blocksize   [2]int   // short and long block sizes
	BitrateNom  int      // nominal bit rate in bits/s, 0 if not set
	Vendor      string   // encoder, e.g. "Xiph.Org libVorbis I 20101101 (Schaufenugget)"
	Comments    []string // "KEY=value" user comments
}

type floor1 struct {
	partClass   []int
	classDims   []int
	classSub    []int
	classMaster []int
	subBooks    [][]int // [class][1<<sub]: book or -1
	mult        int
	xs          []int // post X positions, in header order
	order       []int // post indices sorted by X
	low, high   []int // low and high neighbours of post i ≥ 2
}

type residue struct {
	kind       int
	begin, end int
	partSize   int
	classes    int
	classBook  int
	books      [][8]int // [class][pass]: book or -1
}

type mapping struct {
	mag, ang []int // coupling steps
	mux      []int // channel → submap
	floors   []int // submap → floor
	residues []int // submap → residue
}

type mode struct {
	long    bool
	mapping int
}

// maxBookValues bounds entries × dimensions over all codebooks of a
// stream. A crafted header could ask for gigabytes in a few bytes; real
// streams hold far less (at most 63,654 over 7,858 Tux Paint files, from
// libvorbis 2004–2010 encoders; one book at most 6,561 × 8).
const maxBookValues = 1 << 21

// setup is everything the three headers define.
type setup struct {
	Info
	books    []*codebook
	floors   []*floor1
	residues []*residue
	mappings []*mapping
	modes    []mode
}

func checkHeader(p []byte, typ byte) error {
	if len(p) < 7 || p[0] != typ || string(p[1:7]) != "vorbis" {
		return fmt.Errorf("not a vorbis header of type %d", typ)
	}
	return nil
}

// readIdent reads the identification header (§4.2.2).
func (s *setup) readIdent(p []byte) error {
	if err := checkHeader(p, 1); err != nil {
		return err
	}
	if len(p) < 30 {
		return fmt.Errorf("identification header is %d bytes, want 30", len(p))
	}
	le := binary.LittleEndian
	if v := le.Uint32(p[7:]); v != 0 {
		return fmt.Errorf("vorbis version %d, want 0", v)
	}
	s.NumChannels = int(p[11])
	s.Rate = int(le.Uint32(p[12:]))
	s.BitrateNom = int(int32(le.Uint32(p[20:])))
	s.Blocksize = [2]int{1 << (p[28] & 15), 1 << (p[28] >> 4)}
	switch {
	case s.NumChannels == 0:
		return fmt.Errorf("0 channels")
	case s.Rate == 0 || s.Rate > 1<<24:
		return fmt.Errorf("sample rate %d", s.Rate)
	case s.Blocksize[0] < 64 || s.Blocksize[1] > 8192 || s.Blocksize[0] > s.Blocksize[1]:
		return fmt.Errorf("block sizes %d and %d (want 64 ≤ short ≤ long ≤ 8192)", s.Blocksize[0], s.Blocksize[1])
	case p[29]&1 == 0:
		return fmt.Errorf("identification header framing bit unset")
	}
	return nil
}

// readComment reads the comment header (§5); damaged comments are ignored.
func (s *setup) readComment(p []byte) error {
	if err := checkHeader(p, 3); err != nil {
		return err
	}
	b := bytes.NewReader(p[7:])
	str := func() (string, bool) {
		var n uint32
		if binary.Read(b, binary.LittleEndian, &n) != nil || int64(n) > int64(b.Len()) {
			return "", false
		}
		buf := make([]byte, n)
		b.Read(buf)
		return string(buf), true
	}
	v, ok := str()
	if !ok {
		return nil
	}
	s.Vendor = v
	var n uint32
	if binary.Read(b, binary.LittleEndian, &n) != nil {
		return nil
	}
	for range min(int(n), b.Len()/4) {
		c, ok := str()
		if !ok {
			break
		}
		s.Comments = append(s.Comments, c)
	}
	return nil
}

// readSetup reads the setup header (§4.2.4).
func (s *setup) readSetup(p []byte) error {
	if err := checkHeader(p, 5); err != nil {
		return err
	}
	r := newBitReader(p[7:])
	nb := int(r.read(8)) + 1
	budget := maxBookValues
	for i := range nb {
		cb, err := readCodebook(r, budget)
		if err != nil {
			return fmt.Errorf("codebook %d of %d: %w", i, nb, err)
		}
		budget -= cb.entries * cb.dims
		s.books = append(s.books, cb)
	}
	// Time domain transforms: placeholders that must be zero.
	nt := int(r.read(6)) + 1
	for i := range nt {
		if v := r.read(16); v != 0 {
			return fmt.Errorf("time domain transform %d is %d, want 0", i, v)
		}
	}
	nf := int(r.read(6)) + 1
	for i := range nf {
		typ := r.read(16)
		if typ != 1 {
			if typ == 0 {
				return fmt.Errorf("floor %d: floor type 0 (LSP) is not supported, only floor type 1 (every encoder since 2002 uses it)", i)
			}
			return fmt.Errorf("floor %d: floor type %d, want 1", i, typ)
		}
		f, err := s.readFloor1(r)
		if err != nil {
			return fmt.Errorf("floor %d: %w", i, err)
		}
		s.floors = append(s.floors, f)
	}
	nr := int(r.read(6)) + 1
	for i := range nr {
		res, err := s.readResidue(r)
		if err != nil {
			return fmt.Errorf("residue %d: %w", i, err)
		}
		s.residues = append(s.residues, res)
	}
	nm := int(r.read(6)) + 1
	for i := range nm {
		m, err := s.readMapping(r)
		if err != nil {
			return fmt.Errorf("mapping %d: %w", i, err)
		}
		s.mappings = append(s.mappings, m)
	}
	nmodes := int(r.read(6)) + 1
	for i := range nmodes {
		long := r.bit()
		win, tr, m := r.read(16), r.read(16), int(r.read(8))
		if win != 0 || tr != 0 || m >= len(s.mappings) {
			return fmt.Errorf("mode %d: window %d, transform %d, mapping %d of %d", i, win, tr, m, len(s.mappings))
		}
		s.modes = append(s.modes, mode{long: long, mapping: m})
	}
	if !r.bit() || r.eop {
		return fmt.Errorf("setup header: %w or framing bit unset", errEOP)
	}
	return nil
}

func (s *setup) book(i int, what string) error {
	if i < 0 || i >= len(s.books) {
		return fmt.Errorf("%s book %d of %d", what, i, len(s.books))
	}
	return nil
}

func (s *setup) readFloor1(r *bitReader) (*floor1, error) {
	f := &floor1{}
	parts := int(r.read(5))
	maxClass := -1
	for range parts {
		c := int(r.read(4))
		f.partClass = append(f.partClass, c)
		maxClass = max(maxClass, c)
	}
	for c := 0; c <= maxClass; c++ {
		dims := int(r.read(3)) + 1
		sub := int(r.read(2))
		master := -1
		if sub > 0 {
			master = int(r.read(8))
			if err := s.book(master, "master"); err != nil {
				return nil, err
			}
		}
		books := make([]int, 1<<sub)
		for j := range books {
			books[j] = int(r.read(8)) - 1
			if books[j] >= 0 {
				if err := s.book(books[j], "subclass"); err != nil {
					return nil, err
				}
			}
		}
		f.classDims = append(f.classDims, dims)
		f.classSub = append(f.classSub, sub)
		f.classMaster = append(f.classMaster, master)
		f.subBooks = append(f.subBooks, books)
	}
	f.mult = int(r.read(2)) + 1
	rangeBits := int(r.read(4))
	f.xs = []int{0, 1 << rangeBits}
	for _, c := range f.partClass {
		for range f.classDims[c] {
			f.xs = append(f.xs, int(r.read(rangeBits)))
		}
	}
	if r.eop {
		return nil, errEOP
	}
	if len(f.xs) > 65 {
		return nil, fmt.Errorf("%d posts, at most 65", len(f.xs))
	}
	seen := map[int]bool{}
	for _, x := range f.xs {
		if seen[x] {
			return nil, fmt.Errorf("post position %d repeated", x)
		}
		seen[x] = true
	}
	f.prepare()
	return f, nil
}

// prepare sorts the posts and finds each one's neighbours (§9.2.4, 9.2.5).
func (f *floor1) prepare() {
	n := len(f.xs)
	f.order = make([]int, n)
	for i := range f.order {
		f.order[i] = i
	}
	for i := 1; i < n; i++ { // insertion sort: at most 65 posts
		for j := i; j > 0 && f.xs[f.order[j]] < f.xs[f.order[j-1]]; j-- {
			f.order[j], f.order[j-1] = f.order[j-1], f.order[j]
		}
	}
	f.low, f.high = make([]int, n), make([]int, n)
	for i := 2; i < n; i++ {
		lo, hi := 0, 1
		for j := range i {
			x := f.xs[j]
			if x < f.xs[i] && x > f.xs[lo] {
				lo = j
			}
			if x > f.xs[i] && x < f.xs[hi] {
				hi = j
			}
		}
		f.low[i], f.high[i] = lo, hi
	}
}

func (s *setup) readResidue(r *bitReader) (*residue, error) {
	res := &residue{kind: int(r.read(16))}
	if res.kind > 2 {
		return nil, fmt.Errorf("residue type %d, want 0, 1 or 2", res.kind)
	}
	res.begin, res.end = int(r.read(24)), int(r.read(24))
	res.partSize = int(r.read(24)) + 1
	res.classes = int(r.read(6)) + 1
	res.classBook = int(r.read(8))
	if err := s.book(res.classBook, "classification"); err != nil {
		return nil, err
	}
	cascade := make([]int, res.classes)
	for i := range cascade {
		low := int(r.read(3))
		high := 0
		if r.bit() {
			high = int(r.read(5))
		}
		cascade[i] = high<<3 | low
	}
	res.books = make([][8]int, res.classes)
	for i := range cascade {
		for j := range 8 {
			res.books[i][j] = -1
			if cascade[i]&(1<<j) != 0 {
				b := int(r.read(8))
				if err := s.book(b, "residue"); err != nil {
					return nil, err
				}
				if s.books[b].vq == nil {
					return nil, fmt.Errorf("residue book %d has no vector lookup table", b)
				}
				res.books[i][j] = b
			}
		}
	}
	if r.eop {
		return nil, errEOP
	}
	return res, nil
}

func (s *setup) readMapping(r *bitReader) (*mapping, error) {
	if typ := r.read(16); typ != 0 {
		return nil, fmt.Errorf("mapping type %d, want 0", typ)
	}
	m := &mapping{}
	submaps := 1
	if r.bit() {
		submaps = int(r.read(4)) + 1
	}
	if r.bit() {
		steps := int(r.read(8)) + 1
		bits := ilog(s.NumChannels - 1)
		for i := range steps {
			mag, ang := int(r.read(bits)), int(r.read(bits))
			if mag == ang || mag >= s.NumChannels || ang >= s.NumChannels {
				return nil, fmt.Errorf("coupling step %d: channels %d and %d of %d", i, mag, ang, s.NumChannels)
			}
			m.mag, m.ang = append(m.mag, mag), append(m.ang, ang)
		}
	}
	if v := r.read(2); v != 0 {
		return nil, fmt.Errorf("reserved bits %d, want 0", v)
	}
	m.mux = make([]int, s.NumChannels)
	if submaps > 1 {
		for c := range m.mux {
			m.mux[c] = int(r.read(4))
			if m.mux[c] >= submaps {
				return nil, fmt.Errorf("channel %d uses submap %d of %d", c, m.mux[c], submaps)
			}
		}
	}
	for i := range submaps {
		r.read(8) // time configuration placeholder
		fl, res := int(r.read(8)), int(r.read(8))
		if fl >= len(s.floors) || res >= len(s.residues) {
			return nil, fmt.Errorf("submap %d: floor %d of %d, residue %d of %d", i, fl, len(s.floors), res, len(s.residues))
		}
		m.floors, m.residues = append(m.floors, fl), append(m.residues, res)
	}
	if r.eop {
		return nil, errEOP
	}
	return m, nil
}
