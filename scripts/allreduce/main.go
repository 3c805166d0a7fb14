// Command allreduce sizes the gradient all-reduce of every shipped training
// config (docs/distributed.md's table): it builds each config's untrained
// model (workflow.ModelBuilder, or workflow.DataFreeModel, which reads the
// sizes a data set fixes from the data set or label file the config names,
// relative to the working directory, and says so in the row's note),
// counts its float32 parameters and tensors, and
// prints the bytes one step all-reduces: 4 × parameters of gradients, plus
// one 4-byte count per parameter tensor inside the buckets, plus a 4-byte
// stop flag. With -mpi it also times an all-reduce of each size on 2 ranks
// by running core/dist's BenchmarkMPIAllreduce under mpirun -runs times
// and printing the median ms:
//
//	CGO_ENABLED=1 go test -c -tags mpi -o bin/dist-mpi.test ./core/dist
//	go run ./scripts/allreduce -mpi bin/dist-mpi.test -runs 5
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"paddle/configs"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/kits"
)

// size is one config's all-reduce.
type size struct {
	config  string
	params  int // float32 gradient values
	tensors int // float32 parameter tensors
	assumed string
	err     error
	ms      []float64
}

func (s size) bytes() int { return 4*s.params + 4*s.tensors + 4 }

func main() {
	mpi := flag.String("mpi", "", "core/dist's test binary built with -tags mpi: time each size under mpirun -np 2")
	runs := flag.Int("runs", 5, "mpirun runs to take the median of")
	flag.Parse()
	sizes, err := measureSizes()
	if err != nil {
		fmt.Fprintln(os.Stderr, "allreduce:", err)
		os.Exit(1)
	}
	if *mpi != "" {
		if err := timeSizes(*mpi, *runs, sizes); err != nil {
			fmt.Fprintln(os.Stderr, "allreduce:", err)
			os.Exit(1)
		}
	}
	fmt.Println("| config | parameters | bytes a step | ms a step (2 ranks, median) |")
	fmt.Println("|---|---|---|---|")
	for _, s := range sizes {
		if s.err != nil {
			fmt.Printf("| %s | not built: %v | | |\n", s.config, s.err)
			continue
		}
		note := ""
		if s.assumed != "" {
			note = " (" + s.assumed + ")"
		}
		ms := ""
		if len(s.ms) > 0 {
			ms = fmt.Sprintf("%.2f (%.2f–%.2f)", median(s.ms), slices.Min(s.ms), slices.Max(s.ms))
		}
		fmt.Printf("| %s%s | %s | %s | %s |\n", s.config, note, group(s.params), human(s.bytes()), ms)
	}
}

// measureSizes builds every shipped config's model.
func measureSizes() ([]size, error) {
	byName := map[string]func(*config.Config) (workflow.Runner, error){}
	for _, k := range kits.All() {
		if k.Kit.Build != nil {
			byName[k.Kit.Name] = k.Kit.Build
		}
	}
	var out []size
	err := fs.WalkDir(configs.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "_") {
			return fs.SkipDir
		}
		if d.IsDir() || path.Ext(p) != ".yaml" {
			return nil
		}
		kit := strings.SplitN(p, "/", 2)[0]
		build, ok := byName[kit]
		if !ok {
			return nil
		}
		s := size{config: strings.TrimSuffix(p, ".yaml")}
		s.params, s.tensors, s.assumed, s.err = count(build, p)
		out = append(out, s)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].params < out[j].params })
	return out, err
}

// count builds the config's runner and its model.
func count(build func(*config.Config) (workflow.Runner, error), p string) (params, tensors int, assumed string, err error) {
	cfg, err := config.Load(p)
	if err != nil {
		return 0, 0, "", err
	}
	r, err := build(cfg)
	if err != nil {
		return 0, 0, "", err
	}
	var m nn.Module
	switch b := r.(type) {
	case workflow.DataFreeModel:
		m, assumed, err = b.DataFreeModel()
	case workflow.ModelBuilder:
		m, err = b.NewModel()
	default:
		return 0, 0, "", fmt.Errorf("%T has no model builder", r)
	}
	if err != nil {
		return 0, 0, "", err
	}
	for _, q := range m.Params() {
		if q.V.T.DType() == tensor.Float32 {
			params += q.V.T.Len()
			tensors++
		}
	}
	return params, tensors, assumed, nil
}

// timeSizes runs BenchmarkMPIAllreduce on 2 ranks over the sizes' float
// counts (gradients + counts + flag), runs times, and keeps each run's
// ns/op of rank 0's line.
func timeSizes(bin string, runs int, sizes []size) error {
	var spec []string
	for i, s := range sizes {
		if s.err == nil {
			spec = append(spec, fmt.Sprintf("s%d=%d", i, s.bytes()/4))
		}
	}
	for range runs {
		cmd := exec.Command("mpirun", "-np", "2", "--oversubscribe", "--allow-run-as-root",
			"-x", "PADDLE_ALLREDUCE_SIZES="+strings.Join(spec, ","),
			bin, "-test.run", "^$", "-test.bench", "MPIAllreduce", "-test.benchtime", "30x")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("mpirun %s: %w\n%s", bin, err, out.String())
		}
		seen := map[int]bool{}
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			// BenchmarkMPIAllreduce/s3_123B-2   30   123456 ns/op ...
			if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkMPIAllreduce/s") || f[3] != "ns/op" {
				continue
			}
			name := strings.TrimPrefix(f[0], "BenchmarkMPIAllreduce/s")
			i, err := strconv.Atoi(name[:strings.IndexByte(name, '_')])
			if err != nil || i >= len(sizes) || seen[i] {
				continue // the second rank's line of the same size
			}
			ns, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return fmt.Errorf("mpirun output %q: %w", sc.Text(), err)
			}
			seen[i] = true
			sizes[i].ms = append(sizes[i].ms, ns/1e6)
		}
	}
	return nil
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// group writes n with thousands separators: 21,386.
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// human writes a byte count as the doc's table does: 86 KB, 1.36 MB.
func human(b int) string {
	switch {
	case b < 1e6:
		return fmt.Sprintf("%.0f KB", float64(b)/1e3)
	default:
		return fmt.Sprintf("%.2f MB", float64(b)/1e6)
	}
}
