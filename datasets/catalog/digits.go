package catalog

import (
	"paddle/datasets"
	"paddle/kits/clas"
)

func digits() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "digits", Kits: []string{"clas"},
		Description: "sklearn's 8x8 handwritten digits (UCI optdigits test set), 10 classes",
		Sources:     []datasets.Source{deb("python3-sklearn", "BSD-3-Clause")},
		Licence:     "BSD-3-Clause", Size: "57 kB (digits.csv.gz only)",
		Splits: []datasets.Split{{Name: "train", Size: "1,500 images"}, {Name: "test", Size: "297 images"}},
		Layout: "images/<split>/<class>/<n>.png, train_list.txt, test_list.txt, label_list.txt (PaddleClas)",
		Alias:  "paddle clas dataset digits --output DIR",
		Fetch:  []string{"fetch_digits.sh"}, Dir: "data/sklearn",
		Needs: []string{"digits.csv.gz"},
		Checksums: []datasets.Checksum{
			{Path: "digits.csv.gz", SHA256: "46abec6b12486ad9e51943373abcf22bbea1b5a51a1619b361570d8893f1464a"},
		},
		Build: func(env datasets.Env, out string) error { return clas.WriteDataset(env, "digits", "", out) },
	}
}
