package vorbis

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxSamples bounds the samples (all channels together) Decode produces,
// so that a crafted file of a few kilobytes cannot ask for gigabytes
// (a Vorbis packet of a few bits can code thousands of silent samples).
// The default, 1<<30, is over an hour of 48 kHz 5.1 audio.
var MaxSamples int64 = 1 << 30

// Decoded is a decoded Vorbis stream.
type Decoded struct {
	Info
	Channels [][]float32 // Channels[c][i], nominally in [-1, 1]
}

// ReadFile decodes the Ogg Vorbis file at path.
func ReadFile(path string) (*Decoded, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := Decode(b)
	if err != nil {
		return d, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// ReadAll decodes an Ogg Vorbis stream from r.
func ReadAll(r io.Reader) (*Decoded, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Decode decodes the first Vorbis stream of an Ogg file held in b. Output
// is trimmed by granule positions as libvorbis does: at the end to the last
// page's, at the start when the first is less than the samples decoded. A
// stream cut short after its headers returns the audio decoded so far and a
// *TruncatedError.
func Decode(b []byte) (*Decoded, error) {
	pkts, perr := readPackets(b)
	if pkts == nil && perr != nil {
		return nil, perr
	}
	if len(pkts) < 3 {
		if perr != nil {
			return nil, perr
		}
		return nil, fmt.Errorf("ogg: %d packets, a vorbis stream needs 3 header packets", len(pkts))
	}
	var s setup
	if err := s.readIdent(pkts[0].data); err != nil {
		return nil, fmt.Errorf("identification header (byte %d): %w", pkts[0].offset, err)
	}
	if err := s.readComment(pkts[1].data); err != nil {
		return nil, fmt.Errorf("comment header (byte %d): %w", pkts[1].offset, err)
	}
	if err := s.readSetup(pkts[2].data); err != nil {
		return nil, fmt.Errorf("setup header (byte %d): %w", pkts[2].offset, err)
	}
	dec := newDecoder(&s)
	out := &Decoded{Info: s.Info, Channels: make([][]float32, s.NumChannels)}
	var total int64 // samples so far, or the granule position once one is known
	known := false
	for i, p := range pkts[3:] {
		if (total+int64(s.Blocksize[1]))*int64(s.NumChannels) > MaxSamples {
			return nil, fmt.Errorf("audio packet %d (byte %d): more than %d samples (vorbis.MaxSamples)", i, p.offset, MaxSamples)
		}
		n := int64(dec.decodePacket(p.data, out.Channels))
		total += n
		if p.granule < 0 {
			continue
		}
		// Granule positions as libvorbis reads them: the first one tells
		// how many leading samples a stream cut from a longer one lacks
		// (dropped from this packet's output), the end-of-stream one where
		// the last block's audio stops. Either way no more than this
		// packet's output is dropped; otherwise the bitstream is believed.
		if extra := min(total-p.granule, n); extra > 0 && (p.last || !known) {
			for c, ch := range out.Channels {
				if p.last {
					out.Channels[c] = ch[:int64(len(ch))-extra]
				} else {
					start := int64(len(ch)) - n
					out.Channels[c] = append(ch[:start], ch[start+extra:]...)
				}
			}
		}
		total, known = p.granule, true
	}
	if perr != nil {
		var te *TruncatedError
		if errors.As(perr, &te) {
			return out, perr
		}
		return nil, perr
	}
	return out, nil
}

// decoder holds the state carried between audio packets.
type decoder struct {
	s       *setup
	imdct   [2]*imdct
	slope   [2][]float32 // window slopes of length blocksize/2
	prev    [][]float32  // previous block, windowed (n samples per channel)
	prevN   int
	spec    [][]float32
	ys      []int
	step2   []bool
	floorOK []bool
	noRes   []bool
	block   []float32
}

func newDecoder(s *setup) *decoder {
	d := &decoder{s: s}
	for i, n := range s.Blocksize {
		d.imdct[i] = newIMDCT(n)
		d.slope[i] = windowSlope(n / 2)
	}
	ch := s.NumChannels
	d.prev = make([][]float32, ch)
	d.spec = make([][]float32, ch)
	d.floorOK = make([]bool, ch)
	d.noRes = make([]bool, ch)
	d.ys = make([]int, 65*ch)
	d.step2 = make([]bool, 65*ch)
	return d
}

// decodePacket decodes one audio packet, appends the finished samples to
// out and returns how many it appended per channel. Packets that are not
// audio or are damaged before their mode is known produce nothing.
func (d *decoder) decodePacket(p []byte, out [][]float32) int {
	s := d.s
	r := newBitReader(p)
	if r.bit() || r.eop {
		return 0 // not an audio packet
	}
	mi := int(r.read(ilog(len(s.modes) - 1)))
	if r.eop || mi >= len(s.modes) {
		return 0
	}
	md := s.modes[mi]
	bi := 0
	if md.long {
		bi = 1
	}
	n := s.Blocksize[bi]
	prevLong, nextLong := false, false
	if md.long {
		prevLong, nextLong = r.bit(), r.bit()
		if r.eop {
			return 0
		}
	}
	m := s.mappings[md.mapping]
	half := n / 2
	for c := range d.spec {
		if cap(d.spec[c]) < half {
			d.spec[c] = make([]float32, s.Blocksize[1]/2)
		}
		d.spec[c] = d.spec[c][:half]
		clear(d.spec[c])
	}
	// Floors.
	for c := range s.NumChannels {
		f := s.floors[m.floors[m.mux[c]]]
		d.floorOK[c] = f.decode(r, s.books, d.ys[c*65:c*65+len(f.xs)], d.step2[c*65:c*65+len(f.xs)])
		d.noRes[c] = !d.floorOK[c]
	}
	// Coupled channels are decoded together if either has energy.
	for i := range m.mag {
		a, b := m.mag[i], m.ang[i]
		if !d.noRes[a] || !d.noRes[b] {
			d.noRes[a], d.noRes[b] = false, false
		}
	}
	// Residues, submap by submap.
	for sm := range m.floors {
		var vs [][]float32
		var skip []bool
		for c := range s.NumChannels {
			if m.mux[c] == sm {
				vs = append(vs, d.spec[c])
				skip = append(skip, d.noRes[c])
			}
		}
		s.residues[m.residues[sm]].decode(r, s.books, vs, skip, half)
	}
	// Inverse coupling, last step first.
	for i := len(m.mag) - 1; i >= 0; i-- {
		mag, ang := d.spec[m.mag[i]], d.spec[m.ang[i]]
		for k := range half {
			M, A := mag[k], ang[k]
			var nm, na float32
			switch {
			case M > 0 && A > 0:
				nm, na = M, M-A
			case M > 0:
				nm, na = M+A, M
			case A > 0:
				nm, na = M, M+A
			default:
				nm, na = M-A, M
			}
			mag[k], ang[k] = nm, na
		}
	}
	// Floor curve × residue, inverse MDCT, window, overlap-add.
	if cap(d.block) < n {
		d.block = make([]float32, s.Blocksize[1])
	}
	produced := 0
	for c := range s.NumChannels {
		spec := d.spec[c]
		if d.floorOK[c] {
			f := s.floors[m.floors[m.mux[c]]]
			f.apply(d.ys[c*65:c*65+len(f.xs)], d.step2[c*65:c*65+len(f.xs)], spec)
		} else {
			clear(spec)
		}
		cur := make([]float32, n)
		d.imdct[bi].transform(spec, cur)
		d.applyWindow(cur, md.long, prevLong, nextLong)
		if d.prev[c] != nil {
			pn := d.prevN
			count := pn/4 + n/4
			for t := range count {
				var v float32
				if i := pn/2 + t; i < pn {
					v = d.prev[c][i]
				}
				if i := t - pn/4 + n/4; i >= 0 && i < n {
					v += cur[i]
				}
				out[c] = append(out[c], v)
			}
			produced = count
		}
		d.prev[c] = cur
	}
	d.prevN = n
	return produced
}

// applyWindow multiplies block y (n long) by its window (§4.3.1): the left
// slope is short when a long block follows a short one, the right slope
// when a short one follows, zero outside the slopes.
func (d *decoder) applyWindow(y []float32, long, prevLong, nextLong bool) {
	n := len(y)
	bs0 := d.s.Blocksize[0]
	leftN, rightN := n/2, n/2
	if long && !prevLong {
		leftN = bs0 / 2
	}
	if long && !nextLong {
		rightN = bs0 / 2
	}
	lStart := n/4 - leftN/2
	rStart := 3*n/4 - rightN/2
	lw := d.slopeFor(leftN)
	rw := d.slopeFor(rightN)
	for i := range lStart {
		y[i] = 0
	}
	for i := range leftN {
		y[lStart+i] *= lw[i]
	}
	for i := range rightN {
		y[rStart+i] *= rw[rightN-1-i]
	}
	for i := rStart + rightN; i < n; i++ {
		y[i] = 0
	}
}

func (d *decoder) slopeFor(n int) []float32 {
	if n == d.s.Blocksize[0]/2 {
		return d.slope[0]
	}
	return d.slope[1]
}
