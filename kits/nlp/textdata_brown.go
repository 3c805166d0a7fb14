package nlp

import (
	"fmt"
	"path/filepath"
	"strings"

	"paddle/datasets"
)

// Brown genre classification: each corpus file (c<genre><NN>, see
// brown.go) is cut into passages of whole sentences of at least
// brownPassageWords tokens (the file's last, shorter rest joins the
// passage before it), tags stripped, tokens joined by spaces; the label
// is the file's genre under NLTK's category name. Training and held-out
// passages come from BrownFiles' file split, so no file is in both.

// BrownGenres maps the genre letter of a file name to NLTK's category.
var BrownGenres = map[byte]string{
	'a': "news", 'b': "editorial", 'c': "reviews", 'd': "religion", 'e': "hobbies",
	'f': "lore", 'g': "belles_lettres", 'h': "government", 'j': "learned", 'k': "fiction",
	'l': "mystery", 'm': "science_fiction", 'n': "adventure", 'p': "romance", 'r': "humor",
}

// brownGenreLabels are the categories in genre-letter order.
var brownGenreLabels = []string{"news", "editorial", "reviews", "religion", "hobbies", "lore", "belles_lettres",
	"government", "learned", "fiction", "mystery", "science_fiction", "adventure", "romance", "humor"}

// brownPassageWords is the shortest passage, in tokens.
const brownPassageWords = 100

// BrownGenreSplit reads the corpus in dir as genre-labelled passages of
// the training and held-out files.
func BrownGenreSplit(dir string) (train, dev []Example, err error) {
	trainFiles, devFiles, err := BrownFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	labels, _ := NewLabelMap(brownGenreLabels)
	read := func(files []string) ([]Example, error) {
		var out []Example
		for _, f := range files {
			c, ok := labels.Index(BrownGenres[filepath.Base(f)[1]])
			if !ok {
				return nil, fmt.Errorf("brown genre: no genre for file %s", f)
			}
			sents, err := ReadBrownFile(f)
			if err != nil {
				return nil, err
			}
			for _, p := range brownPassages(sents) {
				out = append(out, Example{Text: p, Label: c})
			}
		}
		return out, nil
	}
	if train, err = read(trainFiles); err != nil {
		return nil, nil, err
	}
	dev, err = read(devFiles)
	return train, dev, err
}

// brownPassages groups sentences into passages of at least
// brownPassageWords tokens.
func brownPassages(sents []TagSentence) []string {
	var out []string
	var cur []string
	for _, s := range sents {
		cur = append(cur, s.Tokens...)
		if len(cur) >= brownPassageWords {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	if len(cur) > 0 {
		if len(out) == 0 {
			return []string{strings.Join(cur, " ")}
		}
		out[len(out)-1] += " " + strings.Join(cur, " ")
	}
	return out
}

func brownGenreRun(env datasets.Env, opts *DatasetOptions) error {
	src := opts.Source
	if src == "" {
		src = defaultBrownDir()
	}
	train, dev, err := BrownGenreSplit(src)
	if err != nil {
		return err
	}
	return writeSplits(env, opts, brownGenreLabels, []string{"train.tsv", "dev.tsv"}, train, dev)
}
