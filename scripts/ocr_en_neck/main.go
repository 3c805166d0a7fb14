// Command ocr_en_neck trains the neck and CTC head of the English recogniser
// (docs/ocr.md, "Languages") on top of PP-OCRv4's frozen recognition
// backbone: the backbone (PP-LCNetV3, ~95 % of the network's FLOPs) runs once
// per training line, its features are kept in memory, and only the SVTR neck
// and the head are trained on them, so an epoch costs a small fraction of a
// whole-network fine-tuning step's compute. With an earlier -split (say
// p2o.Add.215, before the backbone's last block) the backbone's weights after
// it train too; -f16 then keeps the larger features as float16.
//
// Lines are grouped as `ocr predict` batches them (sorted by aspect ratio,
// groups of -batch padded to the group's widest line), so the neck trains on
// exactly the features inference gives it. Batch norm stays in inference mode.
//
//	go run ./scripts/ocr_en_neck -init en_PP-OCRv4_rec_init.onnx \
//	    -train DIR/rec_gt.txt -dev DEV/rec_gt.txt -o en_rec.onnx
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"paddle/core/ag"
	"paddle/core/data"
	"paddle/core/editdist"
	"paddle/core/graph"
	"paddle/core/graph/module"
	"paddle/core/imgproc"
	pio "paddle/core/io"
	"paddle/core/nn"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/optim"
	"paddle/core/parallel"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/kits/ocr"
	"paddle/kits/ocr/rectrain"
)

func main() {
	var o opts
	flag.StringVar(&o.init, "init", "en_PP-OCRv4_rec_init.onnx", "starting model (go run ./scripts/ocr_en_init)")
	flag.StringVar(&o.split, "split", "p2o.AveragePool.1", "the backbone's output value: what comes after it trains")
	flag.StringVar(&o.train, "train", "", "training label files, comma-separated (path<TAB>text per line, paths relative to its folder); FILE@S reads its images S times wider (ocr.RecShape.Stretch)")
	flag.StringVar(&o.dev, "dev", "", "validation label files, comma-separated, FILE@S as -train (chooses the epoch kept)")
	flag.StringVar(&o.out, "o", "en_rec.onnx", "output model")
	flag.IntVar(&o.epochs, "epochs", 10, "epochs")
	flag.IntVar(&o.batch, "batch", 8, "lines per batch")
	flag.Float64Var(&o.lr, "lr", 5e-4, "peak learning rate (Adam, cosine, 5 % warm-up)")
	flag.IntVar(&o.limit, "limit", 0, "use only the first N training lines (0: all)")
	flag.IntVar(&o.threads, "threads", 2, "kernel threads")
	flag.StringVar(&o.delta, "delta", "", "also write the trained tensors alone (safetensors, by ONNX name): what `ocr predict --lang en` embeds")
	flag.IntVar(&o.epochs0, "list", 0, "1: list the trainable tensors and exit")
	flag.StringVar(&o.cache, "cache", "", "folder to keep the backbone's features in between runs (empty: none)")
	flag.IntVar(&o.evals, "evals", 1, "dev scorings per epoch (the kept weights are the best scored)")
	flag.BoolVar(&o.f16, "f16", false, "keep the features as float16 (in memory and in the cache): half the memory, for early splits")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "ocr_en_neck:", err)
		os.Exit(1)
	}
}

type opts struct {
	init, split, train, dev, out, cache, delta string
	epochs0                                    int
	epochs, batch, limit, threads, evals       int
	lr                                         float64
	f16                                        bool
}

// group is one batch of lines of similar aspect ratio: the backbone's
// features (N, C, H, W) at the split, as float32 (feat) or float16 (half,
// little-endian, of shape), and the lines' labels.
type group struct {
	feat   *tensor.Tensor
	half   []byte
	shape  []int
	labels [][]int
	texts  []string
}

// features returns the group's features as float32.
func (g group) features() *tensor.Tensor {
	if g.feat != nil {
		return g.feat
	}
	t := tensor.New(tensor.Float32, g.shape...)
	v := t.F32()
	for i := range v {
		v[i] = onnxpb.HalfToFloat32(binary.LittleEndian.Uint16(g.half[2*i:]))
	}
	return t
}

// toHalf stores g's features as float16.
func (g *group) toHalf() {
	v := g.feat.F32()
	g.half, g.shape, g.feat = make([]byte, 2*len(v)), []int(g.feat.Shape()), nil
	for i, x := range v {
		binary.LittleEndian.PutUint16(g.half[2*i:], onnxpb.Float32ToHalf(x))
	}
}

func run(o opts) error {
	parallel.SetThreads(o.threads)
	chars, err := ocr.EnglishChars()
	if err != nil {
		return err
	}
	index := map[string]int{}
	for i, c := range chars {
		if i > 0 {
			index[c] = i
		}
	}
	g, err := neckOf(o.init, o.split)
	if err != nil {
		return err
	}
	mod, err := module.New(g)
	if err != nil {
		return err
	}
	if o.epochs0 == 1 {
		n := 0
		for _, p := range mod.Params() {
			fmt.Println(p.Name, p.V.T.Shape())
			n += p.V.T.Len()
		}
		fmt.Println("trainable elements:", n)
		return nil
	}
	backbone, err := backboneOf(o.init, o.split)
	if err != nil {
		return err
	}
	pred, err := runtime.New(backbone, runtime.Options{})
	if err != nil {
		return err
	}
	var train, dev []group
	for _, set := range []struct {
		list  string
		limit int
		dst   *[]group
	}{{o.train, o.limit, &train}, {o.dev, 0, &dev}} {
		for _, spec := range strings.Split(set.list, ",") { // several label files: each cached on its own
			src, err := parseSource(spec)
			if err != nil {
				return err
			}
			gs, err := cachedFeatures(o.cache, o.split, o.f16, pred, src, o.batch, set.limit, index, pred.OutputNames()[0])
			if err != nil {
				return err
			}
			*set.dst = append(*set.dst, gs...)
		}
	}
	adam, err := optim.NewAdam(mod.Params(), optim.AdamOptions{LR: o.lr})
	if err != nil {
		return err
	}
	best, bestAcc := snapshot(mod.Params()), evaluate(mod, g, dev, chars)
	slog.Info("start", "dev_char_acc", bestAcc.char, "dev_exact", bestAcc.exact, "train_batches", len(train))
	total := o.epochs * len(train)
	r := rand.New(rand.NewPCG(23, 1))
	step := 0
	for ep := 1; ep <= o.epochs; ep++ {
		start := time.Now()
		var lossSum float64
		perm := r.Perm(len(train))
		for k, i := range perm {
			adam.SetLR(schedule(o.lr, step, total))
			b := train[i]
			tg, tl := targets(b.labels)
			loss := rectrain.CTCLoss(logits(mod, g, b.features()), tg, tl)
			lossSum += float64(loss.T.F32()[0])
			loss.Backward()
			optim.ClipGradNorm(mod.Params(), 5)
			adam.Step()
			adam.ZeroGrad()
			step++
			part := evalPart(k, len(perm), o.evals)
			if part == 0 {
				continue
			}
			acc := evaluate(mod, g, dev, chars)
			slog.Info("epoch", "epoch", fmt.Sprintf("%d.%d/%d", ep, part, o.evals), "loss", lossSum/float64(k+1), "dev_char_acc", acc.char, "dev_exact", acc.exact, "s", time.Since(start).Seconds())
			if acc.char > bestAcc.char {
				best, bestAcc = snapshot(mod.Params()), acc
				if err := write(o.init, o.out, o.delta, best); err != nil { // every better one, so a stopped run keeps its best
					return err
				}
			}
		}
	}
	slog.Info("best", "dev_char_acc", bestAcc.char, "dev_exact", bestAcc.exact)
	return write(o.init, o.out, o.delta, best)
}

// evalPart says whether the dev set is scored after batch k (from 0) of an
// epoch of n batches scored evals times: the part of the epoch (1..evals)
// that batch k ends, or 0.
func evalPart(k, n, evals int) int {
	evals = max(min(evals, n), 1)
	if (k+1)*evals/n != k*evals/n {
		return (k + 1) * evals / n
	}
	return 0
}

// schedule is a linear warm-up over the first 5 % of steps, then cosine to 0.
func schedule(peak float64, step, total int) float64 {
	warm := max(total/20, 1)
	if step < warm {
		return peak * float64(step+1) / float64(warm)
	}
	return peak * 0.5 * (1 + math.Cos(math.Pi*float64(step-warm)/float64(max(total-warm, 1))))
}

// backboneOf reads the model and keeps what computes the split value.
func backboneOf(file, split string) (*graph.Graph, error) {
	g, err := onnx.ReadFile(file)
	if err != nil {
		return nil, err
	}
	v := find(g, split)
	if v == nil {
		return nil, fmt.Errorf("%s: no value %q", file, split)
	}
	g.Outputs, g.OutputNames = []*graph.Value{v}, nil
	g.Nodes = needed(g, v, nil)
	return g, nil
}

// neckOf reads the model, makes the split value its input and keeps what
// computes the logits (the input of the final softmax) from it.
func neckOf(file, split string) (*graph.Graph, error) {
	g, err := onnx.ReadFile(file)
	if err != nil {
		return nil, err
	}
	v := find(g, split)
	if v == nil {
		return nil, fmt.Errorf("%s: no value %q", file, split)
	}
	out := rectrain.Logits(g, g.Outputs[0])
	if out == g.Outputs[0] {
		return nil, fmt.Errorf("%s: the output is not a softmax", file)
	}
	nodes := needed(g, out, v)
	for _, n := range nodes {
		for _, in := range n.Inputs() {
			if in == g.Inputs[0] {
				return nil, fmt.Errorf("%s: node %s after the split reads the image input", file, n.Label())
			}
		}
	}
	g.Inputs, g.Outputs, g.OutputNames, g.Nodes = []*graph.Value{v}, []*graph.Value{out}, nil, nodes
	return g, nil
}

func find(g *graph.Graph, name string) *graph.Value {
	for _, n := range g.Nodes {
		for _, v := range n.Out {
			if v.Name == name {
				return v
			}
		}
	}
	return nil
}

// needed returns g's nodes (in order) that out depends on, not looking past stop.
func needed(g *graph.Graph, out, stop *graph.Value) []*graph.Node {
	prod := g.Producers()
	keep := map[*graph.Node]bool{}
	var visit func(v *graph.Value)
	visit = func(v *graph.Value) {
		n := prod[v]
		if v == stop || n == nil || keep[n] {
			return
		}
		keep[n] = true
		for _, in := range n.Inputs() {
			visit(in)
		}
	}
	visit(out)
	var nodes []*graph.Node
	for _, n := range g.Nodes {
		if keep[n] {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// source is a label file and the stretch its images are read at.
type source struct {
	labels  string
	stretch float64 // ocr.RecShape.Stretch; 0: none
}

// parseSource reads FILE or FILE@S.
func parseSource(spec string) (source, error) {
	file, s, ok := strings.Cut(spec, "@")
	if !ok {
		return source{labels: spec}, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return source{}, fmt.Errorf("%q: want FILE or FILE@STRETCH with a stretch above 0", spec)
	}
	return source{file, v}, nil
}

// features reads a label file, groups its lines by aspect ratio into batches
// of batch, and runs the backbone on each, reading the images at src.stretch.
func features(pred *runtime.Predictor, src source, f16 bool, batch, limit int, index map[string]int, out string) ([]group, error) {
	labels := src.labels
	f, err := os.Open(labels)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type line struct {
		img  imgproc.Mat8
		text string
		ids  []int
	}
	var lines []line
	sc := bufio.NewScanner(f)
	for no := 1; sc.Scan(); no++ {
		path, text, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want path<TAB>text", labels, no)
		}
		ids := make([]int, 0, len(text))
		for _, c := range text {
			if k, ok := index[string(c)]; ok {
				ids = append(ids, k)
			}
		}
		if len(ids) == 0 {
			continue
		}
		m, err := data.DecodeFile(filepath.Join(filepath.Dir(labels), path), data.BGR)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", labels, no, err)
		}
		lines = append(lines, line{imgproc.Mat8{H: m.H, W: m.W, C: m.C, Pix: m.Pix}, text, ids})
		if limit > 0 && len(lines) == limit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(lines, func(i, j int) bool {
		return float64(lines[i].img.W)/float64(lines[i].img.H) < float64(lines[j].img.W)/float64(lines[j].img.H)
	})
	start := time.Now()
	var groups []group
	for beg := 0; beg < len(lines); beg += batch {
		end := min(beg+batch, len(lines))
		crops := make([]imgproc.Mat8, 0, end-beg)
		g := group{}
		for _, l := range lines[beg:end] {
			crops = append(crops, l.img)
			g.labels = append(g.labels, l.ids)
			g.texts = append(g.texts, l.text)
		}
		res, err := pred.Run(map[string]*tensor.Tensor{"x": ocr.RecShape{Stretch: src.stretch}.BatchInput(crops)})
		if err != nil {
			return nil, err
		}
		g.feat = res[out].Clone()
		if f16 {
			g.toHalf()
		}
		groups = append(groups, g)
	}
	slog.Info("features", "file", labels, "stretch", src.stretch, "lines", len(lines), "batches", len(groups), "s", time.Since(start).Seconds())
	return groups, nil
}

// stored is a group as kept in the feature cache: Data (float32) or Half
// (float16, little-endian).
type stored struct {
	Shape  []int
	Data   []float32
	Half   []byte
	Labels [][]int
	Texts  []string
}

// cacheName is the feature cache's file for a label file: its path, the
// split, the batch size, the limit and the precision.
func cacheName(dir string, src source, split string, f16 bool, batch, limit int) string {
	abs, _ := filepath.Abs(src.labels)
	prec := ""
	if f16 {
		prec = "-f16"
	}
	if src.stretch > 0 && src.stretch != 1 {
		prec += fmt.Sprintf("-s%g", src.stretch)
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%s-b%d-n%d%s.gob", strings.ReplaceAll(strings.Trim(abs, "/"), "/", "_"), split, batch, limit, prec))
}

// cachedFeatures is features, kept in dir under cacheName.
func cachedFeatures(dir, split string, f16 bool, pred *runtime.Predictor, src source, batch, limit int, index map[string]int, out string) ([]group, error) {
	if dir == "" {
		return features(pred, src, f16, batch, limit, index, out)
	}
	name := cacheName(dir, src, split, f16, batch, limit)
	if f, err := os.Open(name); err == nil {
		defer f.Close()
		var ss []stored
		if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&ss); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		gs := make([]group, len(ss))
		for i, s := range ss {
			gs[i] = group{half: s.Half, shape: s.Shape, labels: s.Labels, texts: s.Texts}
			if s.Half == nil {
				gs[i].feat = tensor.FromSlice(s.Data, s.Shape...)
			}
		}
		return gs, nil
	}
	gs, err := features(pred, src, f16, batch, limit, index, out)
	if err != nil {
		return nil, err
	}
	ss := make([]stored, len(gs))
	for i, g := range gs {
		ss[i] = stored{Shape: g.shape, Half: g.half, Labels: g.labels, Texts: g.texts}
		if g.feat != nil {
			ss[i].Shape, ss[i].Data = []int(g.feat.Shape()), g.feat.F32()
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(name + ".tmp")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	if err := gob.NewEncoder(w).Encode(ss); err != nil {
		f.Close()
		return nil, err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return gs, os.Rename(name+".tmp", name)
}

// forward runs the neck and head: logits (N, T, K).
func forward(mod *module.Module, g *graph.Graph, feat *tensor.Tensor) *ag.Var {
	out, err := mod.Run(map[string]*ag.Var{g.Inputs[0].Name: ag.Const(feat)}, false)
	if err != nil {
		panic(err)
	}
	return out[g.OutputName(0)]
}

// logits is forward's output as CTC loss takes it: (T, N, K).
func logits(mod *module.Module, g *graph.Graph, feat *tensor.Tensor) *ag.Var {
	return ag.Transpose(forward(mod, g, feat), 1, 0, 2)
}

func targets(labels [][]int) (*tensor.Tensor, *tensor.Tensor) {
	L := 0
	for _, l := range labels {
		L = max(L, len(l))
	}
	tg, tl := tensor.New(tensor.Int64, len(labels), L), tensor.New(tensor.Int64, len(labels))
	for i, l := range labels {
		tl.I64()[i] = int64(len(l))
		for j, k := range l {
			tg.I64()[i*L+j] = int64(k)
		}
	}
	return tg, tl
}

type accuracy struct{ char, exact float64 }

// evaluate decodes every dev line greedily (ocr.CTCDecode on the logits: the
// same argmax as on the softmax) and scores it strictly (case and spaces
// count), as scripts/bench/ocrlines does.
func evaluate(mod *module.Module, g *graph.Graph, dev []group, chars []string) accuracy {
	var dist, total, exact, n int
	for _, b := range dev {
		y := forward(mod, g, b.features()).T // (N, T, K)
		N, T, K := y.Shape()[0], y.Shape()[1], y.Shape()[2]
		v := y.F32()
		for i := range N {
			text, _ := ocr.CTCDecode(v[i*T*K:(i+1)*T*K], T, K, chars) // greedy, as ocr predict decodes
			got := strings.TrimSpace(text)
			dist += editdist.Levenshtein(got, b.texts[i])
			total += len([]rune(b.texts[i]))
			if got == b.texts[i] {
				exact++
			}
			n++
		}
	}
	return accuracy{1 - float64(dist)/float64(max(total, 1)), float64(exact) / float64(max(n, 1))}
}

func snapshot(ps []nn.Param) map[string]*tensor.Tensor {
	s := make(map[string]*tensor.Tensor, len(ps))
	for _, p := range ps {
		s[p.Name] = p.V.T.Clone()
	}
	return s
}

// write re-reads the starting model and gives it the trained weights; with
// delta, it also writes those weights alone.
func write(init, out, delta string, w map[string]*tensor.Tensor) error {
	if delta != "" {
		if err := pio.WriteSafetensors(delta, w, map[string]string{"source": "scripts/ocr_en_neck"}); err != nil {
			return err
		}
	}
	g, err := onnx.ReadFile(init)
	if err != nil {
		return err
	}
	set := 0
	for _, v := range g.Consts() {
		if t, ok := w[v.Name]; ok {
			v.Const = t
			set++
		}
	}
	if set != len(w) {
		return fmt.Errorf("%s: %d of %d trained tensors found", init, set, len(w))
	}
	tmp := out + ".tmp"
	if err := onnx.WriteFile(tmp, g); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
