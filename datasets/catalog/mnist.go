package catalog

import (
	"paddle/datasets"
	"paddle/kits/clas"
)

func mnist() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "mnist", Kits: []string{"clas"},
		Description: "MNIST handwritten digits, 28x28 grey, 10 classes (LeCun & Cortes)",
		Sources:     []datasets.Source{{Kind: "go", Package: clas.MNISTModule, Licence: "Apache-2.0 (module)"}},
		Licence:     "CC BY-SA 3.0", Size: "11.6 MB (four IDX .gz files in the Go module cache)",
		Splits:   []datasets.Split{{Name: "train", Size: "60,000 images"}, {Name: "test", Size: "10,000 images"}},
		Layout:   "images/<split>/<class>/<n>.png, train_list.txt, test_list.txt, label_list.txt (PaddleClas)",
		Alias:    "paddle clas dataset mnist --output DIR",
		GoModule: clas.MNISTModule,
		Locate:   func() (string, error) { return clas.FindMNIST("") },
		Needs:    []string{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"},
		Checksums: []datasets.Checksum{
			{Path: "train-images-idx3-ubyte.gz", SHA256: "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"},
			{Path: "train-labels-idx1-ubyte.gz", SHA256: "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"},
			{Path: "t10k-images-idx3-ubyte.gz", SHA256: "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"},
			{Path: "t10k-labels-idx1-ubyte.gz", SHA256: "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"},
		},
		Build: func(env datasets.Env, out string) error { return clas.WriteDataset(env, "mnist", "", out) },
	}
}
