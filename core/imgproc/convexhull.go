package imgproc

import (
	"math"
	"sort"
)

// hullPt is one input point of convexHull: integer inputs keep exact integer arithmetic
// (OpenCV's CV_32S path), float inputs use float32 (the CV_32F path).
type hullPt struct {
	x, y   float32 // float path
	ix, iy int64   // integer path
	idx    int     // input index: OpenCV's tie-break is the point's address
}

func (p *hullPt) same(q *hullPt, isInt bool) bool {
	if isInt {
		return p.ix == q.ix && p.iy == q.iy
	}
	return p.x == q.x && p.y == q.y
}

func sign64(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// sklansky is one quarter of OpenCV's Sklansky scan over the x-sorted points
// arr[start..end] (either direction); it fills stack with indices into arr and returns
// their count.
func sklansky(arr []*hullPt, start, end int, stack []int, nsign, sign2 int, isInt bool) int {
	incr := 1
	if end <= start {
		incr = -1
	}
	pprev, pcur, pnext := start, start+incr, start+2*incr
	stacksize := 3
	if start == end || arr[start].same(arr[end], isInt) {
		stack[0] = start
		return 1
	}
	stack[0], stack[1], stack[2] = pprev, pcur, pnext
	end += incr
	for pnext != end {
		if arr[pcur].same(arr[pnext], isInt) {
			pnext += incr
			stack[stacksize-1] = pnext
			continue
		}
		var bySign, convex int
		var aZero bool
		if isInt {
			cury, nexty := arr[pcur].iy, arr[pnext].iy
			by := nexty - cury
			bySign = sign64(float64(by))
			if bySign != nsign {
				ax, ay := arr[pcur].ix-arr[pprev].ix, cury-arr[pprev].iy
				bx := arr[pnext].ix - arr[pcur].ix
				convex = sign64(float64(ay*bx - ax*by))
				aZero = ax == 0 && ay == 0
			}
		} else {
			cury, nexty := arr[pcur].y, arr[pnext].y
			by := nexty - cury
			bySign = sign64(float64(by))
			if bySign != nsign {
				ax, ay := arr[pcur].x-arr[pprev].x, cury-arr[pprev].y
				bx := arr[pnext].x - arr[pcur].x
				ax, ay = normalize2(ax, ay)
				bx, by = normalize2(bx, by)
				convex = sign64(f64mul(float64(ay), float64(bx)) - f64mul(float64(ax), float64(by)))
				aZero = ax == 0 && ay == 0
			}
		}
		if bySign == nsign {
			pnext += incr
			stack[stacksize-1] = pnext
			continue
		}
		if convex == sign2 && !aZero {
			pprev = pcur
			pcur = pnext
			pnext += incr
			stack[stacksize] = pnext
			stacksize++
		} else if pprev == start {
			pcur = pnext
			stack[1] = pcur
			pnext += incr
			stack[2] = pnext
		} else {
			stack[stacksize-2] = pnext
			pcur = pprev
			pprev = stack[stacksize-4]
			stacksize--
		}
	}
	return stacksize - 1
}

// normalize2 is cv::normalize for a float 2-vector: scale by 1/‖v‖ computed in double.
func normalize2(x, y float32) (float32, float32) {
	nv := math.Sqrt(f64mul(float64(x), float64(x)) + f64mul(float64(y), float64(y)))
	if nv == 0 {
		return 0, 0
	}
	s := 1 / nv
	return float32(float64(x) * s), float32(float64(y) * s)
}

// convexHull returns the indices of pts on their convex hull, in the order
// cv2.convexHull(pts, clockwise) lists them.
func convexHull(pts []hullPt, isInt, clockwise bool) []int {
	total := len(pts)
	if total == 0 {
		return nil
	}
	arr := make([]*hullPt, total)
	for i := range pts {
		arr[i] = &pts[i]
	}
	sort.Slice(arr, func(i, j int) bool {
		p, q := arr[i], arr[j]
		if isInt {
			if p.ix != q.ix {
				return p.ix < q.ix
			}
			if p.iy != q.iy {
				return p.iy < q.iy
			}
		} else {
			if p.x != q.x {
				return p.x < q.x
			}
			if p.y != q.y {
				return p.y < q.y
			}
		}
		return p.idx < q.idx
	})
	less := func(a, b *hullPt) bool { // a.y < b.y
		if isInt {
			return a.iy < b.iy
		}
		return a.y < b.y
	}
	miny, maxy := 0, 0
	for i := 1; i < total; i++ {
		if less(arr[i], arr[miny]) {
			miny = i
		}
		if less(arr[maxy], arr[i]) {
			maxy = i
		}
	}
	hull := make([]int, 0, total)
	if arr[0].same(arr[total-1], isInt) {
		return append(hull, arr[0].idx)
	}
	stack := make([]int, total+2)
	// upper half
	tl := stack
	tlCount := sklansky(arr, 0, maxy, tl, -1, 1, isInt)
	tr := stack[tlCount:]
	trCount := sklansky(arr, total-1, maxy, tr, -1, -1, isInt)
	if !clockwise {
		tl, tr = tr, tl
		tlCount, trCount = trCount, tlCount
	}
	for i := 0; i < tlCount-1; i++ {
		hull = append(hull, arr[tl[i]].idx)
	}
	for i := trCount - 1; i > 0; i-- {
		hull = append(hull, arr[tr[i]].idx)
	}
	stopIdx := -1
	if trCount > 2 {
		stopIdx = tr[1]
	} else if tlCount > 2 {
		stopIdx = tl[tlCount-2]
	}
	// lower half
	bl := stack
	blCount := sklansky(arr, 0, miny, bl, 1, -1, isInt)
	br := stack[blCount:]
	brCount := sklansky(arr, total-1, miny, br, 1, 1, isInt)
	if clockwise {
		bl, br = br, bl
		blCount, brCount = brCount, blCount
	}
	if stopIdx >= 0 {
		checkIdx := -1
		if blCount > 2 {
			checkIdx = bl[1]
		} else if blCount+brCount > 2 {
			checkIdx = br[2-blCount]
		}
		if checkIdx == stopIdx || (checkIdx >= 0 && arr[checkIdx].same(arr[stopIdx], isInt)) {
			// all points on one line: the lower part mirrors the upper one
			blCount = min(blCount, 2)
			brCount = min(brCount, 2)
		}
	}
	for i := 0; i < blCount-1; i++ {
		hull = append(hull, arr[bl[i]].idx)
	}
	for i := brCount - 1; i > 0; i-- {
		hull = append(hull, arr[br[i]].idx)
	}
	return cyclicShiftHull(hull)
}

// cyclicShiftHull rotates the hull so its indices ascend or descend when a cyclic shift
// can make them do so, as OpenCV does after building the hull.
func cyclicShiftHull(h []int) []int {
	n := len(h)
	if n < 3 {
		return h
	}
	minI, maxI, lt := 0, 0, 0
	for i := 1; i < n; i++ {
		idx := h[i]
		if h[i-1] < idx {
			lt++
		}
		if lt > 1 && lt <= i-2 {
			break
		}
		if idx < h[minI] {
			minI = i
		}
		if idx > h[maxI] {
			maxI = i
		}
	}
	mm := maxI - minI
	if mm < 0 {
		mm = -mm
	}
	if !((mm == 1 || mm == n-1) && (lt <= 1 || lt >= n-2)) {
		return h
	}
	ascending := (maxI+1)%n == minI
	i0 := maxI
	if ascending {
		i0 = minI
	}
	if i0 == 0 {
		return h
	}
	out := make([]int, n)
	j := i0
	for i := 0; i < n; i++ {
		cur := h[j]
		out[i] = cur
		nj := j + 1
		if nj >= n {
			nj = 0
		}
		if i < n-1 && ascending != (cur < h[nj]) {
			return h
		}
		j = nj
	}
	return out
}
