package data

import "encoding/binary"

// jpegOrientation returns the EXIF Orientation tag (1..8) of a JPEG file, or
// 1 when there is none or the EXIF block is malformed.
func jpegOrientation(data []byte) int {
	p := 2 // after SOI
	for p+4 <= len(data) {
		if data[p] != 0xff {
			return 1
		}
		marker := data[p+1]
		if marker == 0xd8 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker == 0xff {
			p += 2 // stand-alone markers (or fill bytes) carry no length
			if marker == 0xff {
				p--
			}
			continue
		}
		if marker == 0xda || marker == 0xd9 { // start of scan / end of image: no EXIF before it
			return 1
		}
		n := int(binary.BigEndian.Uint16(data[p+2:]))
		if n < 2 || p+2+n > len(data) {
			return 1
		}
		seg := data[p+4 : p+2+n]
		if marker == 0xe1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		p += 2 + n
	}
	return 1
}

// tiffOrientation reads tag 0x0112 from IFD0 of a TIFF-structured EXIF block.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	if bo.Uint16(t[2:]) != 42 {
		return 1
	}
	ifd := int(bo.Uint32(t[4:]))
	if ifd < 8 || ifd+2 > len(t) {
		return 1
	}
	count := int(bo.Uint16(t[ifd:]))
	for i := range count {
		e := ifd + 2 + 12*i
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 && bo.Uint16(t[e+2:]) == 3 { // Orientation, SHORT
			if o := int(bo.Uint16(t[e+8:])); o >= 1 && o <= 8 {
				return o
			}
			return 1
		}
	}
	return 1
}

// Orient applies an EXIF orientation (1..8) to m, turning the stored
// pixels into the picture as meant to be seen, the way OpenCV's imread does.
func Orient(m *Image, orientation int) *Image {
	switch orientation {
	case 2:
		return FlipH(m)
	case 3:
		return FlipH(FlipV(m))
	case 4:
		return FlipV(m)
	case 5:
		return Transpose(m)
	case 6: // rotate 90° clockwise
		return FlipH(Transpose(m))
	case 7:
		return FlipH(FlipV(Transpose(m)))
	case 8: // rotate 90° counter-clockwise
		return FlipV(Transpose(m))
	}
	return m
}

// Transpose swaps rows and columns: pixel (y, x) moves to (x, y).
func Transpose(m *Image) *Image {
	out := NewImage(m.W, m.H, m.C)
	c := m.C
	for y := range m.H {
		for x := range m.W {
			copy(out.Pix[(x*m.H+y)*c:(x*m.H+y+1)*c], m.Pix[(y*m.W+x)*c:])
		}
	}
	return out
}
