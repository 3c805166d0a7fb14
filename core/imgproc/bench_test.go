package imgproc

import "testing"

// blobMap is a 960×960 binary map with a few hundred text-line-like rectangles.
func blobMap() []uint8 {
	const n = 960
	bin := make([]uint8, n*n)
	noise := lcgBytes(42, 400*4)
	for i := 0; i < 400; i++ {
		x0, y0 := int(noise[4*i])*3, int(noise[4*i+1])*3
		w, h := 10+int(noise[4*i+2]), 4+int(noise[4*i+3])%20
		for y := y0; y < min(y0+h, n); y++ {
			for x := x0; x < min(x0+w, n); x++ {
				bin[y*n+x] = 1
			}
		}
	}
	return bin
}

func BenchmarkFindContours960(b *testing.B) {
	bin := blobMap()
	b.ReportAllocs()
	for b.Loop() {
		FindContours(bin, 960, 960)
	}
}

func BenchmarkResizeLinear1080to960(b *testing.B) {
	src := lcgImage(1, 1080, 1920, 3)
	b.ReportAllocs()
	for b.Loop() {
		ResizeLinear(src, 960, 544)
	}
}

func BenchmarkWarpCrop(b *testing.B) {
	src := lcgImage(1, 200, 400, 3)
	pts := [4]Point{{10, 20}, {330, 40}, {328, 90}, {8, 70}}
	b.ReportAllocs()
	for b.Loop() {
		GetRotateCropImage(src, pts)
	}
}
