package onnx

import (
	"fmt"
	"sort"
	"strings"

	"paddle/core/graph"
	"paddle/core/op"
)

// Einsum without ellipses or repeated indices within an operand: each
// operand is transposed and unsqueezed onto one axis order (output indices
// first, then the summed ones), the operands are multiplied with
// broadcasting and the summed axes reduced. That covers transposes, sums,
// inner/outer products and (batched) matrix products; the broadcast product
// costs memory proportional to all indices' sizes, fine for the small
// contractions imported models use.

func init() { builders["Einsum"] = buildEinsum }

func buildEinsum(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	eq := strings.ReplaceAll(a.Str("equation", ""), " ", "")
	if strings.Contains(eq, ".") {
		return fmt.Errorf("einsum equation %q: ellipses are not supported", eq)
	}
	lhs, out, explicit := strings.Cut(eq, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(c.n.Input) {
		return fmt.Errorf("einsum equation %q names %d operands, the node has %d", eq, len(ins), len(c.n.Input))
	}
	count := map[rune]int{}
	for _, s := range ins {
		seen := map[rune]bool{}
		for _, r := range s {
			if seen[r] {
				return fmt.Errorf("einsum equation %q: repeated index %q in one operand (diagonals) is not supported", eq, r)
			}
			seen[r] = true
			count[r]++
		}
	}
	if !explicit {
		var once []string
		for r, n := range count {
			if n == 1 {
				once = append(once, string(r))
			}
		}
		sort.Strings(once)
		out = strings.Join(once, "")
	}
	order := []rune(out)
	pos := map[rune]int{}
	for i, r := range order {
		pos[r] = i
	}
	for _, s := range ins {
		for _, r := range s {
			if _, ok := pos[r]; !ok {
				pos[r] = len(order)
				order = append(order, r)
			}
		}
	}
	d := c.in(0).Meta.DType
	var acc *graph.Value
	for k, s := range ins {
		v := c.in(k)
		rs := []rune(s)
		perm := make([]int, len(rs))
		for i := range perm {
			perm[i] = i
		}
		sort.Slice(perm, func(i, j int) bool { return pos[rs[perm[i]]] < pos[rs[perm[j]]] })
		identity := true
		for i, p := range perm {
			identity = identity && i == p
		}
		if !identity {
			v = c.emit1("transpose", op.Attrs{"perm": perm}, d, v)
		}
		have := map[int]bool{}
		for _, r := range rs {
			have[pos[r]] = true
		}
		var axes []int
		for i := range order {
			if !have[i] {
				axes = append(axes, i)
			}
		}
		if len(axes) > 0 {
			v = c.emit1("unsqueeze", op.Attrs{"axes": axes}, d, v)
		}
		if acc == nil {
			acc = v
		} else {
			acc = c.emit1("mul", nil, d, acc, v)
		}
	}
	var sum []int
	for i := len([]rune(out)); i < len(order); i++ {
		sum = append(sum, i)
	}
	if len(sum) == 0 {
		if acc == c.in(0) {
			c.alias(0, acc)
			return nil
		}
		// rename the last intermediate as the output
		last := c.im.g.Nodes[len(c.im.g.Nodes)-1]
		o := c.out(0, d)
		last.Out[0] = o
		return nil
	}
	c.emit("sum", op.Attrs{"axes": sum, "keepdims": false}, []*graph.Value{acc}, c.out(0, d))
	return nil
}
