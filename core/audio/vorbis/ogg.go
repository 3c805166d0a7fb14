package vorbis

import (
	"encoding/binary"
	"fmt"
)

// Ogg framing (RFC 3533): a file is a sequence of pages; each page carries
// lacing values that cut its body into packet segments. A segment of 255
// bytes continues the packet; a shorter one ends it, so a packet may span
// pages (the next page then has its "continued" flag set).

const (
	pageHeaderLen = 27
	flagContinued = 0x01
	flagBOS       = 0x02
	flagEOS       = 0x04
)

// packet is one Ogg packet of the chosen logical stream.
type packet struct {
	data    []byte
	offset  int64 // byte offset of the page where the packet starts
	granule int64 // granule position of the page where it ends, if it is the last packet ending there; else -1
	last    bool  // the packet ends on the stream's last page
}

// crcTable is CRC-32 with polynomial 0x04c11db7, MSB first, as Ogg uses it
// (not the reflected zlib variant).
var crcTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

func oggCRC(crc uint32, b []byte) uint32 {
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>24)^c]
	}
	return crc
}

// page is one parsed Ogg page.
type page struct {
	offset  int64
	flags   byte
	granule int64
	serial  uint32
	seq     uint32
	lacing  []byte
	body    []byte
}

// readPage parses the page at b[off:].
func readPage(b []byte, off int64) (*page, int64, error) {
	rest := b[off:]
	if len(rest) < pageHeaderLen {
		return nil, 0, fmt.Errorf("ogg page at byte %d: truncated header (%d of %d bytes)", off, len(rest), pageHeaderLen)
	}
	if string(rest[:4]) != "OggS" {
		return nil, 0, fmt.Errorf("ogg page at byte %d: no \"OggS\" capture pattern", off)
	}
	if rest[4] != 0 {
		return nil, 0, fmt.Errorf("ogg page at byte %d: stream structure version %d, want 0", off, rest[4])
	}
	nseg := int(rest[26])
	if len(rest) < pageHeaderLen+nseg {
		return nil, 0, fmt.Errorf("ogg page at byte %d: truncated segment table", off)
	}
	lacing := rest[pageHeaderLen : pageHeaderLen+nseg]
	size := 0
	for _, l := range lacing {
		size += int(l)
	}
	end := pageHeaderLen + nseg + size
	if len(rest) < end {
		return nil, 0, fmt.Errorf("ogg page at byte %d: truncated body (%d of %d bytes)", off, len(rest)-pageHeaderLen-nseg, size)
	}
	want := binary.LittleEndian.Uint32(rest[22:26])
	crc := oggCRC(0, rest[:22])
	crc = oggCRC(crc, []byte{0, 0, 0, 0})
	crc = oggCRC(crc, rest[26:end])
	if crc != want {
		return nil, 0, fmt.Errorf("ogg page at byte %d: crc mismatch (stored %08x, computed %08x)", off, want, crc)
	}
	p := &page{
		offset:  off,
		flags:   rest[5],
		granule: int64(binary.LittleEndian.Uint64(rest[6:14])),
		serial:  binary.LittleEndian.Uint32(rest[14:18]),
		seq:     binary.LittleEndian.Uint32(rest[18:22]),
		lacing:  lacing,
		body:    rest[pageHeaderLen+nseg : end],
	}
	return p, off + int64(end), nil
}

// readPackets splits an Ogg file into the packets of its first Vorbis
// logical stream. Pages of other multiplexed streams are skipped; a chained
// stream (a new one after the first ends) is ignored, and so is trailing
// garbage after the first stream's last page.
func readPackets(b []byte) ([]packet, error) {
	var (
		pkts    []packet
		cur     []byte
		curOff  int64 = -1
		serial  uint32
		chosen  bool
		lastSeq uint32
		off     int64
	)
	for off < int64(len(b)) {
		p, next, err := readPage(b, off)
		if err != nil {
			if chosen && len(pkts) > 3 {
				// A damaged tail: keep what was read, as players do.
				return pkts, &TruncatedError{Err: err}
			}
			return nil, err
		}
		off = next
		if !chosen {
			if p.flags&flagBOS == 0 {
				return nil, fmt.Errorf("ogg page at byte %d: stream does not begin with a beginning-of-stream page", p.offset)
			}
			if len(p.body) < 7 || string(p.body[1:7]) != "vorbis" || p.body[0] != 1 {
				continue // another codec's stream (e.g. Theora, Skeleton)
			}
			serial, chosen = p.serial, true
		} else if p.serial != serial {
			continue
		} else if p.seq != lastSeq+1 {
			return pkts, &TruncatedError{Err: fmt.Errorf("ogg page at byte %d: page sequence %d after %d (pages missing)", p.offset, p.seq, lastSeq)}
		}
		lastSeq = p.seq
		if p.flags&flagContinued == 0 && cur != nil {
			// The packet left open on the last page never ends: drop it,
			// as libvorbis does with such a hole.
			cur = nil
		}
		if p.flags&flagContinued != 0 && cur == nil && len(pkts) > 0 {
			// Continuation of a packet we never saw the start of: skip its tail.
			n := 0
			i := 0
			for ; i < len(p.lacing); i++ {
				n += int(p.lacing[i])
				if p.lacing[i] < 255 {
					i++
					break
				}
			}
			p.body, p.lacing = p.body[n:], p.lacing[i:]
		}
		pos := 0
		ended := -1
		for _, l := range p.lacing {
			if cur == nil {
				cur, curOff = []byte{}, p.offset
			}
			cur = append(cur, p.body[pos:pos+int(l)]...)
			pos += int(l)
			if l < 255 {
				pkts = append(pkts, packet{data: cur, offset: curOff, granule: -1})
				ended = len(pkts) - 1
				cur = nil
			}
		}
		if ended >= 0 {
			pkts[ended].granule = p.granule
		}
		if p.flags&flagEOS != 0 {
			if ended >= 0 {
				pkts[ended].last = true
			}
			return pkts, nil
		}
	}
	if !chosen {
		return nil, fmt.Errorf("ogg: no vorbis stream found")
	}
	if cur != nil {
		return pkts, &TruncatedError{Err: fmt.Errorf("ogg: packet from byte %d cut off at end of file", curOff)}
	}
	return pkts, nil
}

// TruncatedError reports a stream cut short or damaged after its headers;
// Decode returns it together with the audio decoded up to that point.
type TruncatedError struct{ Err error }

// Error says what was cut or damaged, and where.
func (e *TruncatedError) Error() string { return "truncated: " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *TruncatedError) Unwrap() error { return e.Err }
