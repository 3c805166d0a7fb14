// Package catalog lists paddle's named real data sets, one file each (see
// docs/datasets.md, "How to add a data set"). Each file declares one
// datasets.Dataset whose Build calls the same kit function as the kit verb
// it replaces (`paddle clas dataset`, `paddle speech cls-data`, …), so the
// verb and `paddle dataset build` write the same files.
package catalog

import "paddle/datasets"

// All returns every data set, in the order `paddle dataset list` shows them.
func All() datasets.Catalog {
	return datasets.Catalog{
		mnist(), digits(),
		detSynth(), segSynth(),
		spam(), fortunes(), brownGenre(), brown(),
		tuxpaintLangid(), tuxpaintSound(), asrReal(), realwords(), realwordsLetters(), asterisk(),
		rdkit(),
	}
}

func deb(pkg, licence string) datasets.Source {
	return datasets.Source{Kind: "deb", Package: pkg, Licence: licence}
}

func npm(pkg, licence string) datasets.Source {
	return datasets.Source{Kind: "npm", Package: pkg, Licence: licence}
}
