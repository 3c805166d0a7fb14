package zoo

import "paddle/core/ag"

// lcnetStageEnds are the indices in PPLCNet.Blocks just past each stage of
// lcnetBlocks: stages 2..5 end at strides 4, 8, 16 and 32 (with the stride-2 stem).
func lcnetStageEnds() []int {
	var ends []int
	n := 0
	for _, stage := range lcnetBlocks {
		n += len(stage)
		ends = append(ends, n)
	}
	return ends
}

// FeatureChannels returns the channels of the four maps Features returns.
func (m *PPLCNet) FeatureChannels() []int {
	ends := lcnetStageEnds()
	out := make([]int, 0, 4)
	for _, e := range ends[1:] {
		out = append(out, m.Blocks[e-1].PW.Conv.Weight.Shape()[0])
	}
	return out
}

// Features maps images x (N, C, H, W) to the outputs of the last four stages,
// at strides 4, 8, 16 and 32 (PaddleOCR's det_pp_lcnet outs: blocks3..blocks6),
// for detection necks such as DBFPN. The classifier head, if any, is not run.
func (m *PPLCNet) Features(x *ag.Var, training bool) []*ag.Var {
	ends := lcnetStageEnds()
	x = m.Stem.Forward(x, training)
	var outs []*ag.Var
	stage := 0
	for i, b := range m.Blocks {
		x = b.Forward(x, training)
		if i+1 == ends[stage] {
			if stage > 0 {
				outs = append(outs, x)
			}
			stage++
		}
	}
	return outs
}
