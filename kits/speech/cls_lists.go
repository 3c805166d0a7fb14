package speech

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"paddle/core/config"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Data lists for audio classification from the Tux Paint stamp sounds
// (Debian tuxpaint-stamps-default, scripts/fetch_tuxpaint_sounds.sh):
//
//   - langid: the spoken descriptions `<stamp>_desc_<lang>.ogg` (and
//     `<stamp>_desc.ogg`, English), labelled by language;
//   - sound: the sound effects `<stamp>.ogg`, labelled by the stamp's folder:
//     the second level under animals/ (animals/birds, animals/mammals, …), the
//     first level elsewhere (household, seasonal, …). symbols/math and
//     symbols/alphabets are left out: their "effects" are spoken digits and
//     letters, not sound events.
//
// Every clip of one stamp (its descriptions and its effect) goes to the same
// split, chosen by an FNV-1a hash of the stamp's path, so no word or sound is
// in two splits. Classes with fewer than MinClips clips are dropped.

// ClsDataOptions configure MakeClsLists.
type ClsDataOptions struct {
	Task        string // "langid" or "sound"
	Root        string // the stamps folder (…/usr/share/tuxpaint/stamps)
	Output      string // where train.list, val.list, test.list and labels.txt go
	ValPercent  int    // share of stamps in val (10)
	TestPercent int    // share of stamps in test (15)
	MinClips    int    // drop classes with fewer clips (langid 50, sound 10)
	// Folds > 0 writes one fold of a k-fold cross-validation instead: the
	// stamps whose hash is Fold mod Folds go to test.list, the rest to
	// train.list (val.list is empty).
	Folds, Fold int
}

// ClsDataSummary is what MakeClsLists wrote.
type ClsDataSummary struct {
	Task    string                    `json:"task"`
	Classes []string                  `json:"classes"`
	Counts  map[string]map[string]int `json:"counts"`  // split -> class -> clips
	Dropped map[string]int            `json:"dropped"` // class -> clips, below min_clips
}

// clsClip is one clip found under the root.
type clsClip struct {
	rel, stamp, class string
}

// stampHash is the FNV-1a hash of a stamp key.
func stampHash(stamp string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(stamp))
	return h.Sum64()
}

// ClsSplit returns the split ("train", "val", "test") of a stamp key.
func ClsSplit(stamp string, valPercent, testPercent int) string {
	switch b := int(stampHash(stamp) % 100); {
	case b < testPercent:
		return "test"
	case b < testPercent+valPercent:
		return "val"
	}
	return "train"
}

// classifyClip returns the stamp key and class of a file for task, or ok
// false when the file is not part of the task.
func classifyClip(task, rel string) (stamp, class string, ok bool) {
	dir, name := filepath.Dir(rel), filepath.Base(rel)
	for strings.HasSuffix(name, ".ogg") { // one file is "…_desc_da.ogg.ogg"
		name = strings.TrimSuffix(name, ".ogg")
	}
	parts := strings.Split(filepath.ToSlash(dir), "/")
	desc := strings.Index(name, "_desc")
	switch task {
	case "langid":
		if desc < 0 {
			return "", "", false
		}
		lang := strings.TrimPrefix(name[desc+len("_desc"):], "_")
		if lang == "" {
			lang = "en" // the untranslated description
		}
		return filepath.ToSlash(filepath.Join(dir, name[:desc])), lang, true
	case "sound":
		if desc >= 0 || parts[0] == "." || (parts[0] == "symbols" && len(parts) > 1 && (parts[1] == "math" || parts[1] == "alphabets")) {
			return "", "", false
		}
		class = parts[0]
		if class == "animals" && len(parts) > 1 {
			class = parts[0] + "/" + parts[1]
		}
		return filepath.ToSlash(filepath.Join(dir, name)), class, true
	}
	return "", "", false
}

// clsListTasks are the classification tasks MakeClsLists writes lists for.
var clsListTasks = config.NameSet("langid", "sound")

// MakeClsLists walks o.Root and writes the lists of o.Task.
func MakeClsLists(o ClsDataOptions) (*ClsDataSummary, error) {
	if _, ok := clsListTasks.Get(o.Task); !ok {
		return nil, fmt.Errorf("unknown task %q (known: %s)", o.Task, clsListTasks.Known())
	}
	if o.Folds < 0 || o.Folds == 1 || o.Fold < 0 || (o.Folds > 0 && o.Fold >= o.Folds) {
		return nil, fmt.Errorf("fold %d of %d: want 0 ≤ fold < folds, folds ≥ 2 (or 0: no folds)", o.Fold, o.Folds)
	}
	if o.ValPercent < 0 || o.TestPercent < 0 || o.ValPercent+o.TestPercent >= 100 {
		return nil, fmt.Errorf("val and test percentages %d and %d must be ≥ 0 and leave some training data", o.ValPercent, o.TestPercent)
	}
	var clips []clsClip
	err := filepath.WalkDir(o.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".ogg") {
			return nil
		}
		rel, err := filepath.Rel(o.Root, p)
		if err != nil {
			return err
		}
		if stamp, class, ok := classifyClip(o.Task, rel); ok {
			clips = append(clips, clsClip{rel: filepath.ToSlash(rel), stamp: stamp, class: class})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tuxpaint stamps: %w\nhint: scripts/fetch_tuxpaint_sounds.sh fetches them", err)
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("%s: no %s clips (.ogg) found\nhint: scripts/fetch_tuxpaint_sounds.sh fetches them", o.Root, o.Task)
	}
	count := map[string]int{}
	for _, c := range clips {
		count[c.class]++
	}
	s := &ClsDataSummary{Task: o.Task, Counts: map[string]map[string]int{}, Dropped: map[string]int{}}
	for c, n := range count {
		if n < o.MinClips {
			s.Dropped[c] = n
		} else {
			s.Classes = append(s.Classes, c)
		}
	}
	sort.Strings(s.Classes)
	if len(s.Classes) < 2 {
		return nil, fmt.Errorf("%s: fewer than 2 classes with at least %d clips", o.Root, o.MinClips)
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].rel < clips[j].rel })
	lines := map[string]*strings.Builder{"train": {}, "val": {}, "test": {}}
	for _, c := range clips {
		if !slices.Contains(s.Classes, c.class) {
			continue
		}
		sp := ClsSplit(c.stamp, o.ValPercent, o.TestPercent)
		if o.Folds > 0 {
			sp = "train"
			if int(stampHash(c.stamp)%uint64(o.Folds)) == o.Fold {
				sp = "test"
			}
		}
		fmt.Fprintf(lines[sp], "%s\t%s\n", filepath.Join(o.Root, c.rel), c.class)
		if s.Counts[sp] == nil {
			s.Counts[sp] = map[string]int{}
		}
		s.Counts[sp][c.class]++
	}
	if err := os.MkdirAll(o.Output, 0o755); err != nil {
		return nil, err
	}
	for sp, b := range lines {
		if err := os.WriteFile(filepath.Join(o.Output, sp+".list"), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(o.Output, "labels.txt"), []byte(strings.Join(s.Classes, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

// clsItem is one line of a classification list.
type clsItem struct {
	Path  string
	Label int
}

// readClsList reads `<audio><TAB or spaces><class>` lines (the class is the
// last field; # comments and blank lines skipped), paths relative to dataDir
// (default: the list's folder).
func readClsList(list, dataDir string, classes []string) ([]clsItem, error) {
	if dataDir == "" {
		dataDir = filepath.Dir(list)
	}
	classOf := classIndexer(classes)
	var out []clsItem
	err := eachPair(list, "<audio> <class>", func(path, label string) error {
		c, err := classOf(label)
		if err != nil {
			return err
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dataDir, path)
		}
		out = append(out, clsItem{Path: path, Label: c})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list file: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no clips", list)
	}
	return out, nil
}
