package synth

import (
	"math"
	"math/rand/v2"

	"paddle/core/data"
)

// PageOptions configure RenderPage.
type PageOptions struct {
	Width, Height int // page size in pixels (default 640×640)
	MaxLines      int // lines per page: 1..MaxLines (default 8)
	// WordGap widens the gaps between a line's words by a uniform random
	// 0..WordGap space widths (the same for all gaps of a line), so a
	// detector learns that a line holds across wide word spacing. 0 keeps
	// the font's spacing.
	WordGap float64
}

// RenderPage renders several lines at random, non-overlapping places on one
// page and returns the image with each line's text quadrilateral (clockwise
// from the top-left corner of the text, after rotation and perspective).
func RenderPage(t *Texts, fonts []*Font, o PageOptions, lo LineOptions, r *rand.Rand) (*data.Image, []DetBox, error) {
	w, h := o.Width, o.Height
	if w <= 0 {
		w = 640
	}
	if h <= 0 {
		h = 640
	}
	maxLines := o.MaxLines
	if maxLines <= 0 {
		maxLines = 8
	}
	a := lo.Augment
	pix, fg := backdrop(w, h, a, r)
	type rect struct{ x0, y0, x1, y1 int }
	var placed []rect
	var boxes []DetBox
	n := 1 + r.IntN(maxLines)
	for range n {
		text, f, err := pickText(t, fonts, r)
		if err != nil {
			return nil, nil, err
		}
		extra := 0.0
		if o.WordGap > 0 {
			extra = o.WordGap * r.Float64()
		}
		m, err := renderMaskSpaced(text, f, lo.size(r), extra, r)
		if err != nil {
			return nil, nil, err
		}
		m = distort(m, a, r)
		if m.w > w || m.h > h {
			continue
		}
		for range 30 {
			ox, oy := r.IntN(w-m.w+1), r.IntN(h-m.h+1)
			c := rect{ox, oy, ox + m.w, oy + m.h}
			free := true
			for _, p := range placed {
				if c.x0 < p.x1 && p.x0 < c.x1 && c.y0 < p.y1 && p.y0 < c.y1 {
					free = false
					break
				}
			}
			if !free {
				continue
			}
			placed = append(placed, c)
			col := fg
			for i := range col {
				col[i] = min(max(col[i]+20*(2*r.Float64()-1), 0), 255)
			}
			composite(pix, w, h, m, ox, oy, col)
			b := DetBox{Transcription: text, Points: make([][2]int, 4)}
			for i, p := range m.box {
				b.Points[i] = [2]int{clampInt(int(math.Round(p.X))+ox, 0, w-1), clampInt(int(math.Round(p.Y))+oy, 0, h-1)}
			}
			boxes = append(boxes, b)
			break
		}
	}
	img, err := finish(pix, w, h, a, r)
	return img, boxes, err
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }
