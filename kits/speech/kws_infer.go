package speech

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// The evaluation-time options of eval, for predict and kws too: an
// ensemble of checkpoints (Global.ensemble, probabilities averaged),
// weight averaging (Global.average_with, kws_average.go) and test-time
// warps merged per clip (mean, max) or per speaker (group). Per-speaker
// warps need each input's speaker: a file of `<path> <speaker>` lines
// (Kaldi's utt2spk with paths for utterance ids; `paddle speech realwords`
// writes one, speakers.tsv) or every input's folder as its speaker.

// KWSInferOpts is the Infer section (PaddleClas's name for predict's
// options): the test-time setting predict uses, and kws unless its flags
// say otherwise. An export copies test_warps and test_combine into
// inference.yaml.
type KWSInferOpts struct {
	// TestWarps and TestCombine are eval's DataLoader.Eval.dataset keys:
	// mel-axis stretches merged by mean, max or group.
	TestWarps   []float64 `yaml:"test_warps"`
	TestCombine string    `yaml:"test_combine"`
	// TestGroups is a file of `<path> <speaker>` lines for group (paths as
	// given on the command line, or absolute).
	TestGroups string `yaml:"test_groups"`
	// GroupByFolder takes each input's folder as its speaker for group.
	GroupByFolder bool `yaml:"group_by_folder"`
}

// apply sets s's test-time options from the section (keys left empty keep
// s's own, e.g. an export's).
func (o KWSInferOpts) apply(s *spotter) error {
	if len(o.TestWarps) > 0 {
		s.warps = o.TestWarps
	}
	if o.TestCombine != "" {
		s.combine = o.TestCombine
	}
	if err := checkTestWarps(s.warps, s.combine); err != nil {
		return fmt.Errorf("Infer: %w", err)
	}
	switch {
	case o.TestGroups != "" && o.GroupByFolder:
		return errors.New("Infer: give test_groups or group_by_folder, not both")
	case o.TestGroups != "":
		f, err := fileSpeakers(o.TestGroups)
		if err != nil {
			return fmt.Errorf("Infer.%w", err)
		}
		s.speakerOf = f
	case o.GroupByFolder:
		s.speakerOf = folderSpeaker
	}
	return nil
}

// fileSpeakers reads a `<path> <speaker>` file into a lookup by path as
// written, cleaned, or absolute; a relative path is taken from the current
// folder and from the file's own folder (as realwords' speakers.tsv and
// list files write them).
func fileSpeakers(file string) (func(string) (string, error), error) {
	g, err := readGroups(file)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for k, v := range g {
		m[k], m[filepath.Clean(k)] = v, v
		if a, err := filepath.Abs(k); err == nil {
			m[a] = v
		}
		if !filepath.IsAbs(k) { // relative to the file's folder too, as list files are
			if a, err := filepath.Abs(filepath.Join(filepath.Dir(file), k)); err == nil {
				if _, taken := m[a]; !taken {
					m[a] = v
				}
			}
		}
	}
	return func(path string) (string, error) {
		if v, ok := m[path]; ok {
			return v, nil
		}
		if v, ok := m[filepath.Clean(path)]; ok {
			return v, nil
		}
		if a, err := filepath.Abs(path); err == nil {
			if v, ok := m[a]; ok {
				return v, nil
			}
		}
		return "", fmt.Errorf("speakers %s: no speaker for %s", file, path)
	}, nil
}

// folderSpeaker is an input's folder.
func folderSpeaker(path string) (string, error) { return filepath.Dir(filepath.Clean(path)), nil }

// modelsClassifier scores a batch with each model and averages the softmax
// rows (one model: its own softmax).
func modelsClassifier(models []nn.Layer) classifyFunc {
	return func(x *tensor.Tensor) ([]float32, error) {
		var sum []float64
		var one []float32
		ag.NoGrad(func() {
			for _, m := range models {
				p := ag.Softmax(m.Forward(ag.Const(x), false), -1).T.Contiguous().F32()
				if len(models) == 1 {
					one = p
					return
				}
				if sum == nil {
					sum = make([]float64, len(p))
				}
				for i, v := range p {
					sum[i] += float64(v)
				}
			}
		})
		if one != nil {
			return one, nil
		}
		out := make([]float32, len(sum))
		for i, v := range sum {
			out[i] = float32(v / float64(len(models)))
		}
		return out, nil
	}
}

// runGroups spots every input under each test warp, picks one warp per
// speaker (groupWarps: the warp maximising the sum over the speaker's files
// of log(score)) and prints each file's answer under its speaker's warp.
func (s *spotter) runGroups(ctx context.Context, inputs []workflow.Input, out *workflow.Printer[KWSPrediction]) error {
	if s.speakerOf == nil {
		return config.Usage(errors.New("test_combine group needs each input's speaker: kws --speakers FILE " +
			"(`<path> <speaker>` lines) or --speaker-per-folder; predict -o Infer.test_groups=FILE or Infer.group_by_folder=true"))
	}
	groups, index := make([]int, len(inputs)), map[string]int{}
	var names []string
	for i, in := range inputs {
		if in.Err != nil {
			continue
		}
		sp, err := s.speakerOf(in.Path)
		if err != nil {
			return config.Usage(err)
		}
		j, ok := index[sp]
		if !ok {
			j = len(names)
			index[sp] = j
			names = append(names, sp)
		}
		groups[i] = j
	}
	preds := make([][]KWSPrediction, len(inputs))
	errs := make([]error, len(inputs))
	var ok [][][]float64 // per good file: [warp][1] its score, for groupWarps
	var okGroups []int
	for i, in := range inputs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if in.Err != nil {
			errs[i] = in.Err
			continue
		}
		p, sc, err := s.spotEachWarp(in.Path)
		if err != nil {
			errs[i] = err
			continue
		}
		preds[i] = p
		rows := make([][]float64, len(sc))
		for j, v := range sc {
			rows[j] = []float64{v}
		}
		ok, okGroups = append(ok, rows), append(okGroups, groups[i])
	}
	choice := groupWarps(ok, okGroups)
	keys := make([]int, 0, len(choice))
	for g := range choice {
		keys = append(keys, g)
	}
	sort.Ints(keys)
	for _, g := range keys {
		slog.Info("test_combine group", "speaker", names[g], "warp", s.warps[choice[g]])
	}
	failed := 0
	for i, in := range inputs {
		var err error
		if errs[i] != nil {
			failed++
			err = out.Fail(in.Path, errs[i])
		} else {
			err = out.Print(preds[i][choice[groups[i]]])
		}
		if err != nil {
			return err
		}
	}
	return out.Finish(failed, len(inputs), nil)
}
