package helix

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/serve"
)

// TestServeAnswersPredictRecord trains a few steps, serves the checkpoint
// and checks that each request's answer is the record `helix predict`
// writes for the same SMILES, and that a SMILES that does not parse is the
// client's error.
func TestServeAnswersPredictRecord(t *testing.T) {
	needChEMBL(t)
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := paddle(t, "", "helix", "train", "-c", configPath("fp_mlp_chembl_reg.yaml"), "--output", out, "-o", "Global.max_steps=3"); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	ck := filepath.Join(out, "latest")
	code, stdout, errOut := paddle(t, "", "helix", "predict", "--weights", ck, "--format", "jsonl", "--smiles", "CCO", "--smiles", "c1ccccc1O")
	if code != 0 {
		t.Fatalf("predict exit %d:\n%s", code, errOut)
	}
	want := strings.Split(strings.TrimSpace(stdout), "\n")

	ios, _, _, _ := iostreams.Test()
	cmd := &cobra.Command{}
	load := Serve(&cmdutil.Factory{IOStreams: ios}, cmd)
	cmd.Flags().Set("weights", ck)
	p, err := load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"CCO", "c1ccccc1O\n"} {
		v, err := p.Predict(context.Background(), serve.Input{Body: []byte(s)})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(v)
		if string(got) != want[i] {
			t.Errorf("served %q:\n%s\nwant predict's\n%s", s, got, want[i])
		}
	}
	for _, bad := range []string{"C1CC(", "", "\xff"} {
		_, err = p.Predict(context.Background(), serve.Input{Body: []byte(bad)})
		var ie *serve.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%q: err %v, want a serve.BadInput", bad, err)
		}
	}
}
