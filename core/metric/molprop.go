package metric

import (
	"fmt"
	"math"
	"sort"
)

// Molecule-property metrics (MoleculeNet style): regression RMSE, MAE and R²,
// binary ROC-AUC and PR-AUC, each computed per task over the labelled
// molecules (a NaN label is missing and masked out) and averaged over the
// tasks, as PaddleHelix's and DeepChem's evaluators do. ROC-AUC and PR-AUC
// follow scikit-learn's roc_auc_score and average_precision_score exactly,
// ties included (scripts/ref/molprop_metrics_sklearn.py).
//
// Worked example (ties): labels 0 1 0 1, scores 0.1 0.4 0.4 0.8. Thresholds
// from the top: 0.8 → (FPR 0, TPR ½), 0.4 → (½, 1), 0.1 → (1, 1); the
// trapezoids give ROC-AUC ½·½·½ + ½·½ + ½ = 0.875 (the tied pair counts
// one half). Average precision: recall steps ½ at precision 1 and ½ at
// precision ⅔, so AP = ½·1 + ½·⅔ = 0.8333.

// RMSE is the root mean squared error of pred against label.
func RMSE(pred, label []float64) float64 {
	if len(label) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, y := range label {
		d := pred[i] - y
		s += d * d
	}
	return math.Sqrt(s / float64(len(label)))
}

// MAE is the mean absolute error of pred against label.
func MAE(pred, label []float64) float64 {
	if len(label) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, y := range label {
		s += math.Abs(pred[i] - y)
	}
	return s / float64(len(label))
}

// R2 is the coefficient of determination 1 − SS_res/SS_tot (sklearn's
// r2_score: 1 for a perfect fit of constant labels, 0 otherwise).
func R2(pred, label []float64) float64 {
	if len(label) == 0 {
		return math.NaN()
	}
	mean := 0.0
	for _, y := range label {
		mean += y
	}
	mean /= float64(len(label))
	var res, tot float64
	for i, y := range label {
		res += (pred[i] - y) * (pred[i] - y)
		tot += (y - mean) * (y - mean)
	}
	if tot == 0 {
		if res == 0 {
			return 1
		}
		return 0
	}
	return 1 - res/tot
}

// curve returns the cumulative true and false positives at each distinct
// score, from the highest score down (sklearn's _binary_clf_curve).
func curve(score []float64, label []bool) (tps, fps []float64) {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	var tp, fp float64
	for k, i := range idx {
		if label[i] {
			tp++
		} else {
			fp++
		}
		if k == len(idx)-1 || score[idx[k+1]] != score[i] {
			tps, fps = append(tps, tp), append(fps, fp)
		}
	}
	return tps, fps
}

// ROCAUC is the area under the ROC curve (trapezoids between distinct
// scores: a tied positive/negative pair counts one half). It fails when
// only one class is present.
func ROCAUC(score []float64, label []bool) (float64, error) {
	tps, fps := curve(score, label)
	if len(tps) == 0 || tps[len(tps)-1] == 0 || fps[len(fps)-1] == 0 {
		return math.NaN(), fmt.Errorf("roc_auc: only one class present")
	}
	P, N := tps[len(tps)-1], fps[len(fps)-1]
	area, pt, pf := 0.0, 0.0, 0.0
	for k := range tps {
		t, f := tps[k]/P, fps[k]/N
		area += (f - pf) * (t + pt) / 2
		pt, pf = t, f
	}
	return area, nil
}

// AveragePrecision is the area under the precision-recall curve as a step
// sum Σ (R_k − R_{k−1})·P_k over distinct scores (sklearn's
// average_precision_score, reported here as pr_auc). It fails without
// positives.
func AveragePrecision(score []float64, label []bool) (float64, error) {
	tps, fps := curve(score, label)
	if len(tps) == 0 || tps[len(tps)-1] == 0 {
		return math.NaN(), fmt.Errorf("pr_auc: no positive label")
	}
	P := tps[len(tps)-1]
	ap, prevR := 0.0, 0.0
	for k := range tps {
		r := tps[k] / P
		ap += (r - prevR) * tps[k] / (tps[k] + fps[k])
		prevR = r
	}
	return ap, nil
}

// MolProp accumulates multi-task predictions and labels (NaN = missing)
// and reports the metrics averaged over tasks: rmse, mae, r2 (main r2,
// higher is better) for regression; roc_auc (main) and pr_auc for
// classification, where tasks with one class only are skipped (counted in
// "skipped_tasks"). Values with the per-task suffix "/<task>" are added
// when there is more than one task.
type MolProp struct {
	Tasks          []string
	Classification bool
	pred, label    [][]float64 // per task
	n              int
}

// NewMolProp returns an accumulator for the named tasks.
func NewMolProp(tasks []string, classification bool) *MolProp {
	m := &MolProp{Tasks: tasks, Classification: classification}
	m.Reset()
	return m
}

// Reset clears the accumulated values.
func (m *MolProp) Reset() {
	m.pred = make([][]float64, len(m.Tasks))
	m.label = make([][]float64, len(m.Tasks))
	m.n = 0
}

// Update adds a batch: pred and label are (N, T) row-major; for
// classification pred holds probabilities (or any score) and label 0/1.
func (m *MolProp) Update(pred, label []float64) {
	T := len(m.Tasks)
	for i := 0; i+T <= len(label); i += T {
		m.n++
		for t := range T {
			if y := label[i+t]; !math.IsNaN(y) {
				m.pred[t] = append(m.pred[t], pred[i+t])
				m.label[t] = append(m.label[t], y)
			}
		}
	}
}

// Result returns the task-averaged metrics.
func (m *MolProp) Result() Report {
	r := Report{Values: map[string]float64{}, Count: m.n}
	type fn struct {
		name string
		f    func(p, y []float64) (float64, error)
	}
	var fns []fn
	if m.Classification {
		r.Main = "roc_auc"
		bin := func(f func([]float64, []bool) (float64, error)) func(p, y []float64) (float64, error) {
			return func(p, y []float64) (float64, error) {
				b := make([]bool, len(y))
				for i, v := range y {
					b[i] = v >= 0.5
				}
				return f(p, b)
			}
		}
		fns = []fn{{"roc_auc", bin(ROCAUC)}, {"pr_auc", bin(AveragePrecision)}}
	} else {
		r.Main = "r2"
		wrap := func(f func(p, y []float64) float64) func(p, y []float64) (float64, error) {
			return func(p, y []float64) (float64, error) {
				if len(y) == 0 {
					return 0, fmt.Errorf("no labels")
				}
				return f(p, y), nil
			}
		}
		fns = []fn{{"rmse", wrap(RMSE)}, {"mae", wrap(MAE)}, {"r2", wrap(R2)}}
	}
	skipped := 0
	for _, f := range fns {
		sum, k := 0.0, 0
		for t, name := range m.Tasks {
			v, err := f.f(m.pred[t], m.label[t])
			if err != nil {
				if f.name == fns[0].name {
					skipped++
				}
				continue
			}
			if len(m.Tasks) > 1 {
				r.Values[f.name+"/"+name] = v
			}
			sum += v
			k++
		}
		if k > 0 { // no value at all when no task could be scored (JSON has no NaN)
			r.Values[f.name] = sum / float64(k)
		}
	}
	if skipped > 0 {
		r.Values["skipped_tasks"] = float64(skipped)
	}
	return r
}
