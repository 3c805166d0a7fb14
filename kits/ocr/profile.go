package ocr

import (
	"fmt"
	"strings"
)

// Profile holds the constants of one PaddleOCR inference profile.
type Profile struct {
	Name string // "v2" or "v3"

	// Detection resize (DetResizeForTest.resize_image_type0).
	LimitSideLen int    // det_limit_side_len
	LimitType    string // "max" or "min"
	MaxSideLimit int    // PaddleX's max_side_limit; 0: none (2.x)

	// DB post-processing (DBPostProcess).
	Thresh        float32 // binarisation threshold, strict >
	BoxThresh     float64 // a box is dropped when BoxThresh > its score
	UnclipRatio   float64
	MaxCandidates int
	MinSize       float64 // short side of the mini box; MinSize+2 after unclipping

	// Angle classifier.
	ClsThresh float64 // a crop is turned when its label is "180" with score > ClsThresh
	ClsBatch  int

	// Recognition.
	RecBatch  int
	DropScore float64 // results keep score >= DropScore
}

// ProfileV2 is the PaddleOCR 2.x tools/infer (predict_system.py) default profile.
func ProfileV2() Profile {
	return Profile{
		Name: "v2", LimitSideLen: 960, LimitType: "max",
		Thresh: 0.3, BoxThresh: 0.6, UnclipRatio: 1.5, MaxCandidates: 1000, MinSize: 3,
		ClsThresh: 0.9, ClsBatch: 6, RecBatch: 6, DropScore: 0.5,
	}
}

// ProfileV3 is the PaddleOCR 3.x (PaddleX OCR pipeline) profile as far as this kit
// follows it: limit side 64 of type min, max side 4000, no score drop; everything else
// as in ProfileV2.
func ProfileV3() Profile {
	p := ProfileV2()
	p.Name, p.LimitSideLen, p.LimitType, p.MaxSideLimit, p.DropScore = "v3", 64, "min", 4000, 0
	return p
}

// profiles are the profiles ProfileByName knows, in the order its error
// lists them; "" is the first.
var profiles = []func() Profile{ProfileV2, ProfileV3}

// ProfileByName returns ProfileV2 for "v2" (or "") and ProfileV3 for "v3".
func ProfileByName(name string) (Profile, error) {
	known := make([]string, len(profiles))
	for i, f := range profiles {
		p := f()
		if p.Name == name || name == "" && i == 0 {
			return p, nil
		}
		known[i] = p.Name
	}
	return Profile{}, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(known, ", "))
}
