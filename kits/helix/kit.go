// Package helix is the molecule kit (PaddleHelix's compound-property job):
// `paddle helix featurize` (descriptors, Morgan fingerprints, scaffolds from
// core/chem) and graph networks (GIN, GCN, MPNN with mean/sum/max or
// attention readout) plus a Morgan-fingerprint MLP baseline trained on
// MoleculeNet-style CSV, SMILES+label and SD files with random, scaffold
// and stratified splits: `paddle helix train|eval|export|predict`
// (docs/helix.md).
//
// Where things are:
//
//	kit.go        the kit and its commands
//	config.go     the config sections (the schema)
//	dataset.go    CSV / SMI / SDF readers
//	split.go      random, scaffold and stratified splits
//	graph.go      PaddleHelix-style atom/bond features, disjoint-union batches
//	models.go     GIN, GCN, MPNN, readouts, the fingerprint MLP
//	runner.go     train / eval over core/workflow
//	predict.go    predict from a checkpoint: SMILES from files or stdin, one line per molecule
//	predictcmd.go `paddle helix predict` (--smiles, files, stdin)
//	serve.go      `paddle serve helix` (the kit's Serve hook)
//	export.go     export (dense graph form → model.onnx + inference.yaml) and predict --model
//	featurize.go  `paddle helix featurize`
package helix

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the helix kit.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: &kit.Kit{
			Name:          "helix",
			Short:         "Molecules (PaddleHelix): SMILES parsing, descriptors, Morgan fingerprints, scaffolds",
			Schema:        Schema(),
			Build:         build,
			PredictRecord: PredictRecord,
		},
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{newCmdPredict(f, k, nil), newCmdFeaturize(f, nil)}
		},
		Serve: Serve, // paddle serve helix
	}
}
