package main

import (
	"slices"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/cli/root"
)

// complete runs cobra's hidden `__complete` command, as the shell scripts of
// `paddle completion bash|zsh|fish` do, and returns the offered words and
// the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Version: "test"}
	if code := root.Execute(newCmd(f), f, append([]string{"__complete"}, args...)); code != 0 {
		t.Fatalf("__complete %v: exit %d", args, code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	words := lines[:len(lines)-1]
	for i, w := range words {
		words[i], _, _ = strings.Cut(w, "\t") // a word's description follows a tab
	}
	return words, lines[len(lines)-1]
}

func TestCompletion(t *testing.T) {
	tests := []struct {
		args      []string
		want      []string // all of these offered
		notWant   string   // and not this
		directive string
	}{
		// -c: the kit's embedded configs (files too: directive 0, the default).
		{[]string{"clas", "train", "-c", ""}, []string{"clas/lenet_mnist.yaml", "clas/resnet_mnist.yaml"}, "det/", ":0"},
		{[]string{"det", "eval", "--config", "det/"}, []string{"det/picodet_xs_synth.yaml"}, "_base_", ":0"},
		{[]string{"config", "show", "-c", "ocr/"}, nil, "clas/", ":0"},
		// --format: what the command supports.
		{[]string{"ocr", "predict", "--format", ""}, []string{"text", "jsonl", "json", "paddleocr"}, "csv", ":4"},
		{[]string{"det", "predict", "--format", "j"}, []string{"jsonl", "json"}, "text", ":4"},
		// model and data set names.
		{[]string{"model", "pull", ""}, []string{"ppocrv4"}, "", ":4"},
		{[]string{"model", "path", "pp"}, []string{"ppocrv4"}, "", ":4"},
		{[]string{"dataset", "info", ""}, []string{"brown", "det-synth"}, "", ":4"},
		{[]string{"dataset", "build", "bro"}, []string{"brown"}, "det-synth", ":4"},
		// paddle serve: the other servable kits after the first.
		{[]string{"serve", "ocr", ""}, []string{"det", "seg", "clas", "helix", "nlp", "speech"}, "ocr", ":4"},
	}
	for _, tt := range tests {
		words, dir := complete(t, tt.args...)
		for _, w := range tt.want {
			if !slices.Contains(words, w) {
				t.Errorf("%v: %q not offered (got %q)", tt.args, w, words)
			}
		}
		for _, w := range words {
			if tt.notWant != "" && strings.Contains(w, tt.notWant) {
				t.Errorf("%v: offered %q", tt.args, w)
			}
		}
		if dir != tt.directive {
			t.Errorf("%v: directive %s, want %s", tt.args, dir, tt.directive)
		}
	}
}

// TestSharedVerbHelp reads every kit's shared verbs' help as a new user
// would: a real description, examples with a config the kit ships, the
// output formats and (predict) the record, and no placeholders.
func TestSharedVerbHelp(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Version: "test"}
	root := newCmd(f)
	for _, kit := range []string{"clas", "det", "seg", "nlp", "speech", "helix", "ocr"} {
		for _, verb := range []string{"train", "eval", "predict", "export"} {
			cmd, _, err := root.Find([]string{kit, verb})
			if err != nil || cmd.Name() != verb {
				continue // the kit has no such verb
			}
			help := cmd.Short + "\n" + cmd.Long + "\n" + cmd.Example
			for _, bad := range []string{"<model>", "a " + kit + " model", "Train a ocr"} {
				if strings.Contains(help, bad) {
					t.Errorf("%s %s --help holds %q:\n%s", kit, verb, bad, help)
				}
			}
			if cmd.Long == "" || cmd.Long == cmd.Short {
				t.Errorf("%s %s --help has no description of its own", kit, verb)
			}
			if fs := cmdutil.Formats(cmd); len(fs) > 0 && !strings.Contains(cmd.Long, "--format") {
				t.Errorf("%s %s --help does not list its formats %v", kit, verb, fs)
			}
			if verb == "predict" && !strings.Contains(cmd.Long, `{"`) {
				t.Errorf("%s predict --help shows no record", kit)
			}
			// Every -c in the examples names a config the binary ships.
			for _, line := range strings.Split(cmd.Example, "\n") {
				fields := strings.Fields(line)
				for i, w := range fields {
					if w == "-c" && i+1 < len(fields) && !slices.Contains(cmdutil.ConfigNames(""), fields[i+1]) {
						t.Errorf("%s %s example names %s, which is not shipped", kit, verb, fields[i+1])
					}
				}
			}
		}
	}
}
