"""What paddle2onnx decomposed in a PP-OCR ONNX model, found again, so pdmodel_ref.py and
pir_ref.py write the Paddle operators the model's program held (a PP-OCRv4 rec program has
hard_swish, swish, layer_norm, flatten_contiguous_range and reshape2 with a ShapeTensor list
where the ONNX graph has their pieces).

patterns(graph, const) -> (skip, fused): skip is the set of node indices folded into a
pattern; fused maps a pattern's last node index to one of
    ('hard_swish', x)                       x + 3 -> clip(0, 6) -> x * . -> / 6
    ('swish', x, beta)                      x * beta -> sigmoid -> x * .
    ('layer_norm', x, scale, bias, eps)     mean, sub, pow 2, mean, + eps, sqrt, div, * w, + b
    ('flatten', x, start_axis)              reshape(x, concat(shape(x)[:k], [-1]))
    ('reshape_list', x, [items])            reshape(x, concat(cast int64 of int32 items))
    ('slice_decrease', x, axes, starts, ends)  slice then squeeze of the sliced axes
const holds the ONNX constants (initializers and Constant nodes) by name.
"""
import re

import numpy as np


def patterns(g, const):
    import onnx
    nodes = list(g.node)
    prod = {}
    uses = {}
    for k, n in enumerate(nodes):
        for o in n.output:
            prod[o] = k
        for i in n.input:
            uses.setdefault(i, []).append(k)
    for vi in g.output:
        uses.setdefault(vi.name, []).append(-1)
    for n in nodes:  # Constant nodes' values, for the scalar checks below
        if n.op_type == 'Constant':
            from onnx import numpy_helper
            const.setdefault(n.output[0], numpy_helper.to_array(n.attribute[0].t))

    def node(name, typ):
        k = prod.get(name)
        if k is None or nodes[k].op_type != typ:
            return None
        return k

    def attrs(k):
        return {a.name: onnx.helper.get_attribute_value(a) for a in nodes[k].attribute}

    def scalar(name):
        v = const.get(name)
        return float(v.reshape(-1)[0]) if v is not None and v.size == 1 else None

    def only_inside(ks, last):
        """Every output of ks is used only by nodes of the pattern."""
        inside = set(ks) | {last}
        return all(set(uses.get(o, [])) <= inside for k in ks for o in nodes[k].output)

    skip, fused = set(), {}

    def take(last, ks, spec):
        if only_inside(ks, last) and not (set(ks) & skip):
            skip.update(ks)
            fused[last] = spec
            return True
        return False

    for k, n in enumerate(nodes):
        t, i = n.op_type, list(n.input)
        if t == 'Div' and scalar(i[1]) == 6.0:
            m = node(i[0], 'Mul')
            if m is None:
                continue
            x, c = nodes[m].input
            cl = node(c, 'Clip')
            if cl is None:
                continue
            lo_hi = (scalar(nodes[cl].input[1]), scalar(nodes[cl].input[2])) if len(nodes[cl].input) == 3 \
                else (attrs(cl).get('min'), attrs(cl).get('max'))
            ad = node(nodes[cl].input[0], 'Add')
            if lo_hi == (0.0, 6.0) and ad is not None and list(nodes[ad].input) == [x, nodes[ad].input[1]] \
                    and scalar(nodes[ad].input[1]) == 3.0:
                take(k, [m, cl, ad], ('hard_swish', x))
        elif t == 'Mul' and len(i) == 2:
            s = node(i[1], 'Sigmoid')
            if s is None:
                continue
            x, inner = i[0], nodes[s].input[0]
            ks, beta = [s], 1.0
            if inner != x:
                b = node(inner, 'Mul')
                if b is None or nodes[b].input[0] != x or scalar(nodes[b].input[1]) is None:
                    continue
                ks, beta = [s, b], scalar(nodes[b].input[1])
            take(k, ks, ('swish', x, beta))
        elif t == 'Add' and i[1] in const and const[i[1]].ndim == 1:
            mu = node(i[0], 'Mul')
            dv = mu is not None and nodes[mu].input[1] in const and node(nodes[mu].input[0], 'Div')
            sq = dv and node(nodes[dv].input[1], 'Sqrt')
            ae = sq and node(nodes[sq].input[0], 'Add')
            r2 = ae and node(nodes[ae].input[0], 'ReduceMean')
            pw = r2 and node(nodes[r2].input[0], 'Pow')
            sb = pw and node(nodes[pw].input[0], 'Sub')
            if not sb or nodes[dv].input[0] != nodes[sb].output[0] or scalar(nodes[pw].input[1]) != 2.0:
                continue
            x = nodes[sb].input[0]
            r1 = node(nodes[sb].input[1], 'ReduceMean')
            if r1 is None or nodes[r1].input[0] != x or attrs(r1).get('axes') != [-1] or attrs(r2).get('axes') != [-1]:
                continue
            take(k, [mu, dv, sq, ae, r2, pw, sb, r1],
                 ('layer_norm', x, nodes[mu].input[1], i[1], scalar(nodes[ae].input[1])))
        elif t == 'Reshape' and i[1] not in const:
            cc = node(i[1], 'Concat')
            if cc is None:
                continue
            parts = list(nodes[cc].input)
            sl = node(parts[0], 'Slice')
            sh = sl is not None and node(nodes[sl].input[0], 'Shape')
            if sh and len(parts) == 2 and nodes[sh].input[0] == i[0] and scalar(parts[1]) == -1.0:
                a = attrs(sl)
                if a.get('axes') == [0] and a.get('starts') == [0]:
                    take(k, [cc, sl, sh], ('flatten', i[0], a['ends'][0]))
                continue
            casts = [node(p, 'Cast') for p in parts]
            if all(c is not None and attrs(c).get('to') == 7 for c in casts):
                take(k, [cc] + casts, ('reshape_list', i[0], [nodes[c].input[0] for c in casts]))
        elif t == 'Squeeze':
            sl = node(i[0], 'Slice')
            if sl is None:
                continue
            a = attrs(sl)
            if len(nodes[sl].input) == 1 and attrs(k).get('axes') == a.get('axes'):
                take(k, [sl], ('slice_decrease', nodes[sl].input[0], a['axes'], a['starts'], a['ends']))
    return skip, fused


def paddle_params(g):
    """Names of the model's Paddle parameters (initializers and Constant nodes named as Paddle
    names parameters, <layer>.w_N / .b_N): an elementwise op with one keeps it as a tensor (a
    learnable scale or bias), not folded into a scale attribute."""
    names = [t.name for t in g.initializer] + [n.output[0] for n in g.node if n.op_type == 'Constant']
    return {x for x in names if re.search(r'\.(w|b)_\d+$', x) and not x.startswith('p2o.')}


def np_int32(v):
    return np.asarray(v).astype(np.int32).reshape(-1)
