package nlp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/config"
	pio "paddle/core/io"
	"paddle/core/workflow"
)

// eachLine calls fn with every line (its trailing "\r" removed) of the
// files in args, in order; "-" or no args at all read stdin. Lines may be
// up to 64 MiB long. It stops at the first error, or when ctx is done.
func eachLine(ctx context.Context, stdin io.Reader, args []string, fn func(line string) error) error {
	if len(args) == 0 {
		args = []string{"-"}
	}
	for _, a := range args {
		in := stdin
		if a != "-" {
			f, err := os.Open(a)
			if err != nil {
				return fmt.Errorf("predict: %w", err)
			}
			defer f.Close()
			in = f
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(strings.TrimRight(sc.Text(), "\r")); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("predict %s: %w", a, err)
		}
	}
	return nil
}

// trainOutput settles the training output folder (env.Output, else the
// config's Global.output_dir), creates it, writes label.txt there and
// returns the resolved config that the checkpoints carry.
func trainOutput(env *workflow.Env, cfg *config.Config, outputDir string, labels []string) ([]byte, error) {
	if env.Output == "" {
		env.Output = outputDir
	}
	y, err := cfg.YAML()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(env.Output, 0o755); err != nil {
		return nil, err
	}
	if err := writeLines(filepath.Join(env.Output, "label.txt"), labels); err != nil {
		return nil, err
	}
	return y, nil
}

// writeLines writes one item a line, atomically.
func writeLines(path string, items []string) error {
	return pio.WriteFileAtomic(path, []byte(strings.Join(items, "\n")+"\n"), 0o644)
}
