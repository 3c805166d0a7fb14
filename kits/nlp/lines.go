package nlp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	pio "paddle/core/io"
	"paddle/core/workflow"
)

// predictLines runs predict on every line (its trailing "\r" removed) of
// the files in args, in order ("-" or no args at all read stdin; lines may
// be up to 64 MiB long), and prints each record in env.Format (text: the
// line text makes). A line predict fails on gets the record {"text": line,
// "error"}, a file that cannot be read {"text": null, "error"}, and the
// rest go on; the run then fails (exit 1) naming how many did. It stops
// when ctx is done. With env.Shard it does only the shard's lines (and
// unreadable files), counted across all files in order.
func predictLines[T any](ctx context.Context, env workflow.Env, args []string, text func(T) string, predict func(line string) (T, error)) error {
	if len(args) == 0 {
		args = []string{"-"}
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyText, text)
	n, failed := 0, 0
	pos := -1      // position of the line (or unreadable file) in the whole input, for env.Shard
	var werr error // writing a record failed: stop
	for _, a := range args {
		if err := eachLineOf(ctx, env.IO.In, a, func(line string) error {
			if pos++; !env.Shard.Keeps(pos) {
				return nil
			}
			n++
			p, err := predict(line)
			if err != nil {
				failed++
				werr = out.Fail(line, err)
			} else {
				werr = out.Print(p)
			}
			return werr
		}); err != nil {
			if werr != nil || ctx.Err() != nil {
				return err
			}
			if pos++; !env.Shard.Keeps(pos) {
				continue
			}
			n++
			failed++
			if err := out.Fail(nil, err); err != nil {
				return err
			}
		}
	}
	return out.Finish(failed, n, nil)
}

// eachLineOf calls fn with every line of the file a ("-": stdin). An error
// of fn is returned as it is; a file that cannot be opened or read gives an
// error naming it.
func eachLineOf(ctx context.Context, stdin io.Reader, a string, fn func(line string) error) error {
	in := stdin
	if a != "-" {
		f, err := os.Open(a)
		if err != nil {
			return err
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
		return fmt.Errorf("%s: %w", a, err)
	}
	return nil
}

// writeLines writes one item a line, atomically.
func writeLines(path string, items []string) error {
	return pio.WriteFileAtomic(path, []byte(strings.Join(items, "\n")+"\n"), 0o644)
}
