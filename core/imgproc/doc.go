// Package imgproc holds the pure-Go image and geometry primitives that PaddleOCR's
// inference pipeline takes from OpenCV 4.6, pyclipper (Clipper 6.4.2) and shapely,
// reproduced with the same arithmetic so that boxes and crops match bit for bit.
//
// Where things are:
//
//	mat.go          Mat8 (uint8 HWC), MatF (float32 plane), Point, IPoint, ToPoints, Rot90CCW, Rotate180
//	contours.go     FindContours: cv2.findContours(RETR_LIST, CHAIN_APPROX_SIMPLE)
//	minarearect.go  RotatedRect, MinAreaRect, BoxPoints, GetMiniBoxes (cv2.minAreaRect, cv2.boxPoints)
//	convexhull.go   convex hull in the order cv2.convexHull builds it
//	fillpoly.go     FillPoly (cv2.fillPoly, LINE_8, shift 0), BoxScoreFast, BoxScoreSlow
//	morph.go        Dilate2x2 (cv2.dilate with the 2×2 kernel of use_dilation)
//	offset.go       Unclip, UnclipDistance, PolygonArea/Length (shapely), OffsetRound (pyclipper JT_ROUND)
//	resize.go       ResizeLinear (cv2.resize INTER_LINEAR, 8U fixed point)
//	warp.go         GetPerspectiveTransform, WarpPerspective (INTER_CUBIC, BORDER_REPLICATE)
//	boxes.go        OrderPointsClockwise, OrderPointsByX, ClipBox, KeepBox, SortedBoxes, CropSize,
//	                GetRotateCropImage (PaddleOCR's box helpers)
//
// Float arithmetic follows the references step by step (float32 where OpenCV uses float,
// products rounded before sums so no fused multiply-add changes a result).
//
// Reference values come from scripts/ref/imgproc_ref.py (Debian bookworm OpenCV 4.6.0,
// pyclipper 1.2.1, shapely 1.8.5) and live in testdata/.
package imgproc
