// Package kits lists the task kits compiled into paddle. A kit appears here
// when it has real code; each returns its kit.Kit from one constructor.
package kits

import (
	"paddle/core/cli/cmdutil"
	"paddle/kits/clas"
	"paddle/kits/det"
	"paddle/kits/helix"
	"paddle/kits/nlp"
	"paddle/kits/ocr"
	"paddle/kits/seg"
	"paddle/kits/speech"
)

// All returns every kit, in the order `paddle --help` shows them.
func All() []*cmdutil.Kit {
	return []*cmdutil.Kit{ocr.Kit(), clas.Kit(), det.Kit(), seg.Kit(), nlp.Kit(), speech.Kit(), helix.Kit()}
}
