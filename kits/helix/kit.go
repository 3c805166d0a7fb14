// Package helix is the molecule kit (PaddleHelix's compound-property job).
// So far it has the chemistry: `paddle helix featurize` parses SMILES with
// core/chem (RDKit-compatible sanitisation, checked against RDKit on the
// rdkit-data molecule sets) and prints descriptors (Crippen logP included),
// Morgan fingerprints and Bemis–Murcko scaffolds. Graph networks, training
// and property prediction are not here yet (docs/helix.md).
//
// Where things are:
//
//	kit.go        the kit and its commands
//	featurize.go  `paddle helix featurize`
package helix

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the helix kit.
func Kit() *kit.Kit {
	return &kit.Kit{
		Name:  "helix",
		Short: "Molecules (PaddleHelix): SMILES parsing, descriptors, Morgan fingerprints, scaffolds",
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{newCmdFeaturize(f, nil)}
		},
	}
}
