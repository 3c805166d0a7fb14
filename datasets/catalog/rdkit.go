package catalog

import "paddle/datasets"

func rdkit() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "rdkit", Kits: []string{"helix"},
		Description: "RDKit's real molecule sets: CHEMBL2321810 (1,017 measured activities), BZR, NCI first_5K, WEHI; read in place",
		Sources:     []datasets.Source{deb("rdkit-data", "BSD-3-Clause")},
		Licence:     "BSD-3-Clause", Size: "1.4 MB (six files)",
		Splits: []datasets.Split{{Name: "all", Size: "split by the helix configs (scaffold split)"}},
		Layout: "none: read in place (data/rdkit-data/usr/share/RDKit/...)",
		Alias:  "-",
		Fetch:  []string{"fetch_rdkit.sh"}, Dir: "data/rdkit-data/usr/share/RDKit",
		Needs: []string{"Contrib/FreeWilson/data/CHEMBL2321810.smi", "Contrib/FreeWilson/data/CHEMBL2321810_act.csv", "Projects/DbCLI/testData/bzr.sdf", "Data/NCI/first_5K.smi"},
		Checksums: []datasets.Checksum{
			{Path: "Contrib/FreeWilson/data/CHEMBL2321810.smi", SHA256: "3feff3aa19f16c7a3aa8695acddd442d1fb3d582485bb7fe8754e7b36dc1894f"},
		},
	}
}
