package speech

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// eachPair calls fn for every `<path> <field>` line of file: the field is
// the last space- or tab-separated one, so paths may hold spaces; blank
// lines and # comments are skipped. want names the two fields in the
// error for a line with only one. Errors carry file:line.
func eachPair(file, want string, fn func(path, field string) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cut := strings.LastIndexAny(line, " \t")
		if cut < 0 {
			return fmt.Errorf("%s:%d: want %q, got %q", file, ln, want, line)
		}
		if err := fn(strings.TrimSpace(line[:cut]), line[cut+1:]); err != nil {
			return fmt.Errorf("%s:%d: %w", file, ln, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// classIndexer maps a list's class names to their index in classes.
func classIndexer(classes []string) func(label string) (int, error) {
	index := map[string]int{}
	for i, c := range classes {
		index[c] = i
	}
	return func(label string) (int, error) {
		c, ok := index[label]
		if !ok {
			return 0, fmt.Errorf("class %q is not in the label list (%d classes: %s ...)", label, len(classes), strings.Join(classes[:min(5, len(classes))], ", "))
		}
		return c, nil
	}
}
