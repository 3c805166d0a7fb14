package catalog_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/datasetcmd"
	"paddle/core/cli/iostreams"
	"paddle/core/cli/root"
	"paddle/core/cli/synthcmd"
	"paddle/datasets/catalog"
	"paddle/kits"
	"paddle/kits/det"
	"paddle/kits/seg"
	"paddle/scripts"
)

// run runs `paddle args...` in-process as cmd/paddle does (every kit and
// `paddle dataset` over the catalog) and returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Version: "test"}
	cmd := root.NewCmdRoot(f, kits.All()...)
	cmd.AddCommand(datasetcmd.NewCmdDataset(f, catalog.All()))
	code = root.Execute(cmd, f, args)
	return code, out.String(), errOut.String()
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestEntries checks that every data set says where it comes from, under
// which licence, how big it is, which splits it has, and how it is pulled
// and built, and that its fetch scripts are in the binary.
func TestEntries(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range catalog.All() {
		if d.Name == "" || seen[d.Name] {
			t.Fatalf("data set %q: empty or repeated name", d.Name)
		}
		seen[d.Name] = true
		switch {
		case len(d.Kits) == 0, d.Description == "", d.Licence == "", d.Size == "", d.Layout == "", d.Alias == "":
			t.Errorf("%s: kits, description, licence, size, layout and alias are all required: %+v", d.Name, d)
		case len(d.Sources) == 0:
			t.Errorf("%s: no source package", d.Name)
		case len(d.Splits) == 0:
			t.Errorf("%s: no splits", d.Name)
		case len(d.Needs) == 0:
			t.Errorf("%s: no needed files (a build could not tell that the set is not pulled)", d.Name)
		case len(d.Fetch) == 0 && d.GoModule == "":
			t.Errorf("%s: neither fetch scripts nor a Go module to pull", d.Name)
		case (d.Build == nil) != (d.Alias == "-"):
			t.Errorf("%s: a set with a build names its kit verb (and only such a set): alias %q", d.Name, d.Alias)
		}
		for _, s := range d.Sources {
			if (s.Kind != "deb" && s.Kind != "npm" && s.Kind != "go") || s.Package == "" || s.Licence == "" {
				t.Errorf("%s: source %+v: want kind deb|npm|go, a package and a licence", d.Name, s)
			}
		}
		for _, sp := range d.Splits {
			if sp.Name == "" || sp.Size == "" {
				t.Errorf("%s: split %+v: want a name and a size", d.Name, sp)
			}
		}
		for _, c := range d.Checksums {
			if !sha256Hex.MatchString(c.SHA256) || c.Path == "" {
				t.Errorf("%s: checksum %+v: want a path and 64 hex digits", d.Name, c)
			}
		}
		for _, s := range d.Fetch {
			if _, err := scripts.Fetch(s); err != nil {
				t.Errorf("%s: %v", d.Name, err)
			}
		}
	}
}

// TestUnknownName checks that an unknown name lists the known ones.
func TestUnknownName(t *testing.T) {
	_, err := catalog.All().Lookup("cifar10")
	if err == nil || !strings.Contains(err.Error(), "known: ") || !strings.Contains(err.Error(), "mnist") {
		t.Fatalf("err = %v, want one listing the known names", err)
	}
	code, _, stderr := run(t, "dataset", "build", "cifar10", "--output", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "digits") {
		t.Fatalf("exit %d, stderr %q: want a failure listing the known names", code, stderr)
	}
}

// TestBuildNotPulled checks that a build over an empty cache names the pull to run.
func TestBuildNotPulled(t *testing.T) {
	t.Setenv("PADDLE_CACHE", t.TempDir())
	code, _, stderr := run(t, "dataset", "build", "spam", "--output", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "paddle dataset pull spam") {
		t.Fatalf("exit %d, stderr %q: want a failure naming `paddle dataset pull spam`", code, stderr)
	}
}

// TestListInfo runs list (text and json) and info for every data set.
func TestListInfo(t *testing.T) {
	code, out, stderr := run(t, "dataset", "list")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	code, js, stderr := run(t, "dataset", "list", "--format", "json")
	if code != 0 {
		t.Fatalf("list --format json: exit %d: %s", code, stderr)
	}
	for _, d := range catalog.All() {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(d.Name) + ` `).MatchString(out) {
			t.Errorf("list does not show %s:\n%s", d.Name, out)
		}
		if !strings.Contains(js, `"name": "`+d.Name+`"`) {
			t.Errorf("list --format json does not show %s", d.Name)
		}
		code, info, stderr := run(t, "dataset", "info", d.Name)
		if code != 0 {
			t.Fatalf("info %s: exit %d: %s", d.Name, code, stderr)
		}
		for _, want := range []string{"source:", d.Sources[0].Package, "licence:", d.Licence, "split:", "pull:"} {
			if !strings.Contains(info, want) {
				t.Errorf("info %s lacks %q:\n%s", d.Name, want, info)
			}
		}
	}
}

// TestChecksums checks the pulled files of every pulled set against the catalog.
func TestChecksums(t *testing.T) {
	for _, d := range catalog.All() {
		if len(d.Missing()) > 0 {
			t.Logf("%s: not pulled, skipped", d.Name)
			continue
		}
		if err := d.Verify(); err != nil {
			t.Error(err)
		}
	}
}

// TestBuildEqualsAlias builds the small sets that setup fetched with
// `paddle dataset build NAME` and with the kit verb the catalog names as
// its alias, and compares the two trees file by file. (digits, 3,594 PNG
// files, takes half a minute on a busy machine and is left out; its build
// and `paddle clas dataset` run the same clas.WriteDataset.)
func TestBuildEqualsAlias(t *testing.T) {
	for _, name := range []string{"brown-genre", "fortunes", "spam", "tuxpaint-sound", "tuxpaint-langid", "realwords", "asr-real"} {
		t.Run(name, func(t *testing.T) {
			d, err := catalog.All().Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if miss := d.Missing(); len(miss) > 0 {
				t.Skipf("not pulled (scripts/setup.sh): %v", miss)
			}
			a, b := filepath.Join(t.TempDir(), "new"), filepath.Join(t.TempDir(), "alias")
			if code, _, stderr := run(t, "dataset", "build", name, "--output", a); code != 0 {
				t.Fatalf("dataset build: exit %d: %s", code, stderr)
			}
			args := strings.Fields(strings.Replace(d.Alias, "DIR", b, 1))[1:] // drop "paddle"
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("%s: exit %d: %s", d.Alias, code, stderr)
			}
			sameTree(t, a, b)
		})
	}
}

// sameTree fails unless a and b hold the same files with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			m[rel], err = os.ReadFile(p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 {
		t.Fatalf("%s: no files written", a)
	}
	for rel, x := range fa {
		y, ok := fb[rel]
		switch {
		case !ok:
			t.Errorf("%s: only in the dataset build", rel)
		case !bytes.Equal(x, y):
			t.Errorf("%s: differs between the dataset build and the alias", rel)
		}
	}
	for rel := range fb {
		if _, ok := fa[rel]; !ok {
			t.Errorf("%s: only in the alias's output", rel)
		}
	}
}

// TestSynthDefaults checks that det-synth and seg-synth build with the
// flag defaults of `paddle det synth` and `paddle seg synth`.
func TestSynthDefaults(t *testing.T) {
	for _, c := range []struct {
		kit  string
		spec synthcmd.Spec
	}{{"det", det.SynthSpec()}, {"seg", seg.SynthSpec()}} {
		o := synthcmd.Defaults(c.spec, "")
		cmd := synthcmd.New(nil, c.spec, nil)
		for flag, want := range map[string]string{"train": strconv.Itoa(o.Train), "eval": strconv.Itoa(o.Eval), "size": strconv.Itoa(o.Size),
			"min-objects": strconv.Itoa(o.MinObjects), "max-objects": strconv.Itoa(o.MaxObjects), "seed": "0", "stamps": o.Stamps, "backgrounds": o.Backgrounds} {
			if got := cmd.Flags().Lookup(flag).DefValue; got != want {
				t.Errorf("%s synth --%s default %q, the data set builds with %q", c.kit, flag, got, want)
			}
		}
	}
}
