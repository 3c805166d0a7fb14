package synthcmd

import (
	"errors"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
)

func TestNew(t *testing.T) {
	spec := Spec{Use: "synth", Train: 40, Eval: 5, Size: 128, MaxObjects: 3, Wrote: "(lists)"}
	tests := []struct {
		name    string
		args    []string
		wantErr string
		want    Options
	}{
		{"defaults", []string{"--output", "d"}, "", Options{Output: "d", Train: 40, Eval: 5, Size: 128, MinObjects: 1, MaxObjects: 3, Wrote: "(lists)"}},
		{"flags", []string{"--output", "d", "--train", "2", "--eval", "0", "--size", "32", "--seed", "7", "--min-objects", "0", "--max-objects", "1"},
			"", Options{Output: "d", Train: 2, Size: 32, Seed: 7, MaxObjects: 1, Wrote: "(lists)"}},
		{"no output", nil, "--output is required", Options{}},
		{"no images", []string{"--output", "d", "--train", "0", "--eval", "0"}, "--train and --eval must not be negative, and not both 0", Options{}},
		{"negative", []string{"--output", "d", "--eval", "-1"}, "--train and --eval must not be negative, and not both 0", Options{}},
		{"small", []string{"--output", "d", "--size", "31"}, "--size 31: want at least 32", Options{}},
		{"objects", []string{"--output", "d", "--min-objects", "4"}, "--min-objects 4 --max-objects 3: want 0 ≤ min ≤ max, max ≥ 1", Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *Options
			cmd := New(&cmdutil.Factory{IOStreams: ios}, spec, func(o *Options) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if err == nil || err.Error() != tt.wantErr || !errors.As(err, &fe) {
					t.Fatalf("error %v, want flag error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Factory, got.Stamps, got.Backgrounds = nil, "", ""
			if *got != tt.want {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}
