package workflow

import (
	"path/filepath"
	"strconv"
	"strings"
)

// OutputStems gives each input path the file-name stem of the file a
// predict command writes for it (a --draw image): its base name without
// extension, with "_2", "_3", ... added for the second, third, ... input of
// the same stem, in input order, so inputs from different folders never
// overwrite each other's output (a/same.png → same, b/same.png → same_2).
// Stems are compared without case, for case-insensitive filesystems. A path
// given twice keeps one stem: both write the same drawing.
func OutputStems(inputs []Input) map[string]string {
	stems := make(map[string]string, len(inputs))
	used := map[string]bool{}
	for _, in := range inputs {
		if _, ok := stems[in.Path]; ok {
			continue
		}
		base := filepath.Base(in.Path)
		base = strings.TrimSuffix(base, filepath.Ext(base))
		stem := base
		for n := 2; used[strings.ToLower(stem)]; n++ {
			stem = base + "_" + strconv.Itoa(n)
		}
		used[strings.ToLower(stem)] = true
		stems[in.Path] = stem
	}
	return stems
}
