#!/usr/bin/python3
"""Writes PaddlePaddle 2.x inference models (inference.pdmodel + inference.pdiparams)
without PaddlePaddle, as an independent writer for core/pdmodel's tests.

Run with Debian's python3 (python3-protobuf 4.21, python3-numpy; python3-onnx 1.12
for the `ppocr` mode only):

    /usr/bin/python3 scripts/ref/pdmodel_ref.py tiny  OUT_DIR
    /usr/bin/python3 scripts/ref/pdmodel_ref.py fused OUT_DIR
    /usr/bin/python3 scripts/ref/pdmodel_ref.py rnn   OUT_DIR
    /usr/bin/python3 scripts/ref/pdmodel_ref.py quant OUT_DIR
    /usr/bin/python3 scripts/ref/pdmodel_ref.py ppocr MODEL.onnx OUT_DIR

The ProgramDesc messages come from core/pdmodel/pdpb/framework.proto, parsed here by a
small .proto reader and compiled at run time with protobuf's descriptor pool, so the
Go decoder (hand-written on the field numbers) and this writer share only that file.
The .pdiparams stream is written from Paddle's published layout (SerializeToStream of
a DenseTensor, save_combine over the persistable variables sorted by name):
uint32 0, uint64 LoD level count (0 here), uint32 0, int32 TensorDesc size, TensorDesc,
raw little-endian data.

tiny:  a small conv/bn/relu/pool/fc net with the elementwise `axis` rule, written to
       OUT_DIR/tiny/inference.pdmodel + .pdiparams, with its input (x.npy) and the
       output computed here with NumPy loops (out.npy): an independent forward pass.
fused: the operators Paddle's inference passes fuse, in OUT_DIR/fused, the same computation
       unfused in OUT_DIR/unfused, and x.npy / out.npy (NumPy) in OUT_DIR/fused; multihead_matmul
       likewise in OUT_DIR/fused_mha and OUT_DIR/unfused_mha.
rnn:   the rnn operator (2-layer bidirectional LSTM then GRU) in OUT_DIR/rnn, with the NumPy
       forward pass of Paddle's LSTMCell / GRUCell equations.
quant: quantize_linear / dequantize_linear as PaddleSlim's quantized inference models write
       them (x quantized per tensor, a conv2d weight stored as float integers with a
       per-channel dequantize_linear) in OUT_DIR/quant, with the NumPy forward pass of
       Paddle's formulas (x.npy, out.npy).
ppocr: the ONNX model (a PP-OCRv4 det/rec/cls from paddle2onnx) translated node by
       node back into Paddle operators with its weights, for the Go test that runs
       both files and compares; what paddle2onnx decomposed (hard_swish, swish,
       layer_norm, flatten, reshape2 with a ShapeTensor list, slice with decrease_axis)
       is found again by ppocr_onnx.patterns and written as the one Paddle operator.
"""
import os
import re
import struct
import sys

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from ppocr_onnx import paddle_params, patterns

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, '..', '..', 'core', 'pdmodel', 'pdpb', 'framework.proto')

# ---------------------------------------------------------------- .proto reader

SCALARS = {
    'int32': descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    'int64': descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    'float': descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
    'double': descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
    'bool': descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    'string': descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
}
LABELS = {
    'optional': descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    'required': descriptor_pb2.FieldDescriptorProto.LABEL_REQUIRED,
    'repeated': descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
}


def parse_proto(text):
    """The proto2 subset framework.proto uses: package, messages (nested), enums, fields."""
    text = re.sub(r'//[^\n]*', '', text)
    toks = re.findall(r'[A-Za-z_][A-Za-z0-9_.]*|-?\d+|"[^"]*"|[{}=;]', text)
    fd = descriptor_pb2.FileDescriptorProto(name='framework.proto', syntax='proto2')
    pos = 0

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def body(msg, enum_scope):
        while True:
            t = take()
            if t == '}':
                return
            if t == 'message':
                m = msg.nested_type.add(name=take()) if msg is not None else fd.message_type.add(name=take())
                assert take() == '{'
                body(m, m.enum_type)
            elif t == 'enum':
                e = enum_scope.add(name=take())
                assert take() == '{'
                while (n := take()) != '}':
                    assert take() == '='
                    e.value.add(name=n, number=int(take()))
                    assert take() == ';'
            elif t in LABELS:
                typ, name = take(), take()
                assert take() == '='
                f = msg.field.add(name=name, number=int(take()), label=LABELS[t])
                assert take() == ';'
                if typ in SCALARS:
                    f.type = SCALARS[typ]
                else:
                    f.type_name = typ  # resolved below
                if t == 'repeated' and typ in SCALARS and typ != 'string':
                    f.options.packed = False  # proto2 default, as Paddle writes
            elif t == 'syntax':
                take(); take(); take()
            elif t == 'package':
                fd.package = take(); take()
            else:
                raise ValueError('unexpected token %r' % t)

    toks.append('}')
    body(None, fd.enum_type)
    # resolve type names: search enclosing scopes outward
    def resolve(msg, scope):
        for m in msg.nested_type:
            resolve(m, scope + [msg])
        for f in msg.field:
            if not f.type_name:
                continue
            for s in reversed(scope + [msg]):
                path = [x.name for x in scope[:scope.index(s) + 1]] if s in scope else [x.name for x in scope] + [msg.name]
                if any(m.name == f.type_name for m in s.nested_type):
                    f.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
                    f.type_name = '.' + '.'.join([fd.package] + path + [f.type_name])
                    break
                if any(e.name == f.type_name for e in s.enum_type):
                    f.type = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
                    f.type_name = '.' + '.'.join([fd.package] + path + [f.type_name])
                    break
            else:
                kind = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
                if any(e.name == f.type_name for e in fd.enum_type):
                    kind = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
                f.type = kind
                f.type_name = '.' + fd.package + '.' + f.type_name
    for m in fd.message_type:
        resolve(m, [])
    return fd


def load_messages():
    with open(PROTO) as f:
        fd = parse_proto(f.read())
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    fac = message_factory.MessageFactory(pool)
    out = {}
    for name in ('ProgramDesc', 'VarType', 'OpDesc', 'VarType.TensorDesc', 'OpDesc.Attr'):
        out[name] = fac.GetPrototype(pool.FindMessageTypeByName('paddle.framework.proto.' + name))
    types = {v.name: v.number for v in pool.FindEnumTypeByName('paddle.framework.proto.VarType.Type').values}
    attrs = {v.name: v.number for v in pool.FindEnumTypeByName('paddle.framework.proto.AttrType').values}
    return out, type('VarTypes', (), types), attrs


M, VT, ATTR = load_messages()
DTYPES = {np.dtype('float32'): VT.FP32, np.dtype('float64'): VT.FP64, np.dtype('int64'): VT.INT64,
          np.dtype('int32'): VT.INT32, np.dtype('bool'): VT.BOOL, np.dtype('uint8'): VT.UINT8,
          np.dtype('int8'): VT.INT8, np.dtype('float16'): VT.FP16}


class Program:
    """A one-block ProgramDesc being built, with the values of its persistable variables."""

    def __init__(self):
        self.p = M['ProgramDesc']()
        self.p.version.version = 2006000  # 2.6.0 as Paddle writes it
        self.b = self.p.blocks.add(idx=0, parent_idx=-1)
        self.params = {}
        self.n = 0
        self.var('feed', kind=VT.FEED_MINIBATCH, persistable=True)
        self.var('fetch', kind=VT.FETCH_LIST, persistable=True)
        self.feeds = 0
        self.fetches = 0

    def var(self, name, dims=None, dtype=VT.FP32, kind=VT.LOD_TENSOR, persistable=False):
        v = self.b.vars.add(name=name, persistable=persistable)
        v.type.type = kind
        if kind == VT.LOD_TENSOR:
            v.type.lod_tensor.tensor.data_type = dtype
            v.type.lod_tensor.tensor.dims.extend(dims)
        return name

    def tmp(self, dims, dtype=VT.FP32):
        self.n += 1
        return self.var('tmp_%d' % self.n, dims, dtype)

    def param(self, name, value):
        value = np.ascontiguousarray(value)
        self.var(name, list(value.shape), DTYPES[value.dtype], persistable=True)
        self.params[name] = value
        return name

    def op(self, typ, inputs, outputs, **attrs):
        o = self.b.ops.add(type=typ)
        for k, v in inputs.items():
            o.inputs.add(parameter=k, arguments=v if isinstance(v, list) else [v])
        for k, v in outputs.items():
            o.outputs.add(parameter=k, arguments=v if isinstance(v, list) else [v])
        for k, v in attrs.items():
            a = o.attrs.add(name=k)
            if isinstance(v, bool):
                a.type, a.b = ATTR['BOOLEAN'], v
            elif isinstance(v, int):
                a.type, a.i = ATTR['INT'], v
            elif isinstance(v, float):
                a.type, a.f = ATTR['FLOAT'], v
            elif isinstance(v, str):
                a.type, a.s = ATTR['STRING'], v
            elif isinstance(v, list) and v and all(isinstance(x, bool) for x in v):
                a.type = ATTR['BOOLEANS']
                a.bools.extend(v)
            elif isinstance(v, list) and all(isinstance(x, int) for x in v):
                a.type = ATTR['INTS']
                a.ints.extend(v)
            elif isinstance(v, list) and all(isinstance(x, float) for x in v):
                a.type = ATTR['FLOATS']
                a.floats.extend(v)
            elif isinstance(v, list) and all(isinstance(x, str) for x in v):
                a.type = ATTR['STRINGS']
                a.strings.extend(v)
            else:
                raise ValueError('attribute %s=%r' % (k, v))
        return o

    def feed(self, name, dims):
        self.var(name, dims)
        self.op('feed', {'X': 'feed'}, {'Out': name}, col=self.feeds)
        self.feeds += 1
        return name

    def fetch(self, name):
        self.op('fetch', {'X': name}, {'Out': 'fetch'}, col=self.fetches)
        self.fetches += 1

    def save(self, out_dir):
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, 'inference.pdmodel'), 'wb') as f:
            f.write(self.p.SerializeToString())
        with open(os.path.join(out_dir, 'inference.pdiparams'), 'wb') as f:
            for name in sorted(self.params):
                write_tensor(f, self.params[name])


def write_tensor(f, a):
    f.write(struct.pack('<I', 0))   # DenseTensor version
    f.write(struct.pack('<Q', 0))   # LoD levels
    f.write(struct.pack('<I', 0))   # tensor version
    d = M['VarType.TensorDesc'](data_type=DTYPES[a.dtype], dims=list(a.shape))
    b = d.SerializeToString()
    f.write(struct.pack('<i', len(b)))
    f.write(b)
    f.write(a.astype(a.dtype.newbyteorder('<')).tobytes())


# ---------------------------------------------------------------- NumPy reference ops

def conv2d(x, w, stride=1, pad=0, groups=1):
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, oc, oh, ow), np.float64)
    ocg = oc // groups
    for o in range(oc):
        g = o // ocg
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * icg:(g + 1) * icg, i * stride:i * stride + kh, j * stride:j * stride + kw]
                y[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    return y


def tiny(out_dir):
    rng = np.random.default_rng(25)
    f32 = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    p = Program()
    x = p.feed('x', [-1, 3, 8, 8])
    w1 = p.param('conv1_weights', f32(4, 3, 3, 3))
    c1 = p.tmp([-1, 4, 8, 8])
    p.op('conv2d', {'Input': x, 'Filter': w1}, {'Output': c1}, strides=[1, 1], paddings=[1, 1],
         dilations=[1, 1], groups=1, padding_algorithm='EXPLICIT', data_format='NCHW')
    bn = {k: p.param('bn1_' + k, v) for k, v in (('scale', f32(4)), ('offset', f32(4)), ('mean', f32(4)),
                                                  ('variance', rng.uniform(0.5, 2, 4).astype(np.float32)))}
    b1 = p.tmp([-1, 4, 8, 8])
    p.op('batch_norm', {'X': c1, 'Scale': bn['scale'], 'Bias': bn['offset'], 'Mean': bn['mean'],
                        'Variance': bn['variance']}, {'Y': b1}, epsilon=1e-5, is_test=True, data_layout='NCHW')
    r1 = p.tmp([-1, 4, 8, 8])
    p.op('relu', {'X': b1}, {'Out': r1})
    # depthwise 3x3 stride 2, then hard_swish
    wd = p.param('dw_weights', f32(4, 1, 3, 3))
    d1 = p.tmp([-1, 4, 4, 4])
    p.op('depthwise_conv2d', {'Input': r1, 'Filter': wd}, {'Output': d1}, strides=[2, 2], paddings=[1, 1],
         dilations=[1, 1], groups=4, padding_algorithm='EXPLICIT', data_format='NCHW')
    h1 = p.tmp([-1, 4, 4, 4])
    p.op('hard_swish', {'X': d1}, {'Out': h1})
    # squeeze-excite: global avg pool, 1x1 conv + bias (axis=1), hard_sigmoid, multiply
    g1 = p.tmp([-1, 4, 1, 1])
    p.op('pool2d', {'X': h1}, {'Out': g1}, pooling_type='avg', ksize=[1, 1], global_pooling=False,
         adaptive=True, strides=[1, 1], paddings=[0, 0], exclusive=True, ceil_mode=False,
         padding_algorithm='EXPLICIT', data_format='NCHW')
    ws = p.param('se_weights', f32(4, 4, 1, 1))
    s1 = p.tmp([-1, 4, 1, 1])
    p.op('conv2d', {'Input': g1, 'Filter': ws}, {'Output': s1}, strides=[1, 1], paddings=[0, 0],
         dilations=[1, 1], groups=1, padding_algorithm='EXPLICIT', data_format='NCHW')
    bs = p.param('se_bias', f32(4))
    s2 = p.tmp([-1, 4, 1, 1])
    p.op('elementwise_add', {'X': s1, 'Y': bs}, {'Out': s2}, axis=1)
    s3 = p.tmp([-1, 4, 1, 1])
    p.op('hard_sigmoid', {'X': s2}, {'Out': s3}, slope=0.2, offset=0.5)
    m1 = p.tmp([-1, 4, 4, 4])
    p.op('elementwise_mul', {'X': h1, 'Y': s3}, {'Out': m1}, axis=-1)
    # max pool 2x2, flatten, matmul_v2 + bias, softmax
    q1 = p.tmp([-1, 4, 2, 2])
    p.op('pool2d', {'X': m1}, {'Out': q1}, pooling_type='max', ksize=[2, 2], global_pooling=False,
         adaptive=False, strides=[2, 2], paddings=[0, 0], exclusive=True, ceil_mode=False,
         padding_algorithm='EXPLICIT', data_format='NCHW')
    fl = p.tmp([-1, 16])
    xs = p.tmp([0, -1, 4, 2, 2])
    p.op('flatten_contiguous_range', {'X': q1}, {'Out': fl, 'XShape': xs}, start_axis=1, stop_axis=-1)
    wf = p.param('fc_weights', f32(16, 5))
    f1 = p.tmp([-1, 5])
    p.op('matmul_v2', {'X': fl, 'Y': wf}, {'Out': f1}, trans_x=False, trans_y=False)
    bf = p.param('fc_bias', f32(5))
    f2 = p.tmp([-1, 5])
    p.op('elementwise_add', {'X': f1, 'Y': bf}, {'Out': f2}, axis=-1)
    f3 = p.tmp([-1, 5])
    p.op('scale', {'X': f2}, {'Out': f3}, scale=2.0, bias=0.5, bias_after_scale=True)
    y = p.var('softmax_0.tmp_0', [-1, 5])
    p.op('softmax', {'X': f3}, {'Out': y}, axis=-1)
    p.fetch(y)
    p.save(out_dir)

    # the same forward pass in float64 NumPy
    P = {k: v.astype(np.float64) for k, v in p.params.items()}
    xv = rng.uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32)
    a = conv2d(xv.astype(np.float64), P['conv1_weights'], 1, 1)
    sh = (1, 4, 1, 1)
    a = (a - P['bn1_mean'].reshape(sh)) / np.sqrt(P['bn1_variance'].reshape(sh) + 1e-5) \
        * P['bn1_scale'].reshape(sh) + P['bn1_offset'].reshape(sh)
    a = np.maximum(a, 0)
    a = conv2d(a, P['dw_weights'], 2, 1, groups=4)
    a = a * np.clip(a + 3, 0, 6) / 6
    s = a.mean(axis=(2, 3), keepdims=True)
    s = conv2d(s, P['se_weights']) + P['se_bias'].reshape(sh)
    s = np.clip(0.2 * s + 0.5, 0, 1)
    a = a * s
    a = a.reshape(2, 4, 2, 2, 2, 2).max(axis=(3, 5))
    a = a.reshape(2, 16) @ P['fc_weights'] + P['fc_bias']
    a = 2 * a + 0.5
    e = np.exp(a - a.max(axis=1, keepdims=True))
    out = e / e.sum(axis=1, keepdims=True)
    np.save(os.path.join(out_dir, 'x.npy'), xv)
    np.save(os.path.join(out_dir, 'out.npy'), out.astype(np.float32))


def fused(out_dir):
    """The operators Paddle's inference passes fuse (fc, conv2d_fusion / fused_conv2d_add_act,
    fused_conv2d and conv2d with oneDNN's fuse_* attributes, fused_elementwise_*, elementwise_*
    with fuse_activation, fused_matmul with fused_reshape/transpose, matmul_v2 with ResidualData,
    fused_elemwise_activation, fused_elemwise_add_activation), written to OUT_DIR/fused, and the same
    computation in the plain operators the passes replace, written to OUT_DIR/unfused, with the
    input (x.npy) and the output of the script's own NumPy forward pass (out.npy) in OUT_DIR/fused."""
    rng = np.random.default_rng(2525)
    f32 = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    W = {'w1': f32(8, 4, 3, 3), 'b1': f32(8), 'w2': f32(8, 8, 1, 1), 'b2': f32(8), 'dw': f32(8, 1, 3, 3),
         'b3': f32(8), 'w4': f32(8, 8, 1, 1), 's': f32(8), 'fw': f32(288, 16) * 0.2, 'fb': f32(16),
         'wm': f32(3, 4), 'wr': f32(12, 12), 'zb': f32(12), 'ow': f32(12, 5), 'ob': f32(5)}
    conv = dict(strides=[1, 1], dilations=[1, 1], padding_algorithm='EXPLICIT', data_format='NCHW')
    for mode in ('fused', 'unfused'):
        F = mode == 'fused'
        p = Program()
        P = {k: p.param(k, v) for k, v in W.items() if k not in ('fw', 'fb')}
        x = p.feed('x', [-1, 4, 6, 6])
        T = lambda *d: p.tmp(list(d))
        # 1: conv + bias + relu
        c1 = T(-1, 8, 6, 6)
        if F:
            p.op('conv2d_fusion', {'Input': x, 'Filter': P['w1'], 'Bias': P['b1']}, {'Output': c1},
                 paddings=[1, 1], groups=1, activation='relu', split_channels=[], **conv)
        else:
            a, b = T(-1, 8, 6, 6), T(-1, 8, 6, 6)
            p.op('conv2d', {'Input': x, 'Filter': P['w1']}, {'Output': a}, paddings=[1, 1], groups=1, **conv)
            p.op('elementwise_add', {'X': a, 'Y': P['b1']}, {'Out': b}, axis=1)
            p.op('relu', {'X': b}, {'Out': c1})
        # 2: conv + bias + residual, identity
        c2 = T(-1, 8, 6, 6)
        if F:
            p.op('fused_conv2d_add_act', {'Input': c1, 'Filter': P['w2'], 'Bias': P['b2'], 'ResidualData': c1},
                 {'Output': c2}, paddings=[0, 0], groups=1, activation='identity', **conv)
        else:
            a, b = T(-1, 8, 6, 6), T(-1, 8, 6, 6)
            p.op('conv2d', {'Input': c1, 'Filter': P['w2']}, {'Output': a}, paddings=[0, 0], groups=1, **conv)
            p.op('elementwise_add', {'X': a, 'Y': P['b2']}, {'Out': b}, axis=1)
            p.op('elementwise_add', {'X': b, 'Y': c1}, {'Out': c2}, axis=-1)
        # 3: oneDNN fused_conv2d: depthwise + bias + residual + hard_swish
        c3 = T(-1, 8, 6, 6)
        if F:
            p.op('fused_conv2d', {'Input': c2, 'Filter': P['dw'], 'Bias': P['b3'], 'ResidualData': c1},
                 {'Output': c3}, paddings=[1, 1], groups=8, fuse_activation='hard_swish',
                 fuse_residual_connection=True, mkldnn_data_type='float32', use_mkldnn=True, **conv)
        else:
            a, b, e = T(-1, 8, 6, 6), T(-1, 8, 6, 6), T(-1, 8, 6, 6)
            p.op('depthwise_conv2d', {'Input': c2, 'Filter': P['dw']}, {'Output': a}, paddings=[1, 1], groups=8, **conv)
            p.op('elementwise_add', {'X': a, 'Y': P['b3']}, {'Out': b}, axis=1)
            p.op('elementwise_add', {'X': b, 'Y': c1}, {'Out': e}, axis=-1)
            p.op('hard_swish', {'X': e}, {'Out': c3}, threshold=6.0, scale=6.0, offset=3.0)
        # 4: conv2d carrying oneDNN's attributes: relu6 (threshold in fuse_beta), output scale 0.5
        c4 = T(-1, 8, 6, 6)
        if F:
            p.op('conv2d', {'Input': c3, 'Filter': P['w4']}, {'Output': c4}, paddings=[0, 0], groups=1,
                 fuse_activation='relu6', fuse_alpha=0.0, fuse_beta=6.0, fused_output_scale=0.5,
                 use_mkldnn=True, **conv)
        else:
            a, b = T(-1, 8, 6, 6), T(-1, 8, 6, 6)
            p.op('conv2d', {'Input': c3, 'Filter': P['w4']}, {'Output': a}, paddings=[0, 0], groups=1, **conv)
            p.op('relu6', {'X': a}, {'Out': b}, threshold=6.0)
            p.op('scale', {'X': b}, {'Out': c4}, scale=0.5, bias=0.0, bias_after_scale=True)
        # 5: fused_elementwise_add + leaky_relu(0.1) + output scale 2
        e1 = T(-1, 8, 6, 6)
        if F:
            p.op('fused_elementwise_add', {'X': c4, 'Y': c2}, {'Out': e1}, axis=-1, fuse_activation='leaky_relu',
                 fuse_alpha=0.1, fuse_beta=0.0, fused_output_scale=2.0, scale_x=1.0, scale_y=1.0, scale_out=1.0)
        else:
            a, b = T(-1, 8, 6, 6), T(-1, 8, 6, 6)
            p.op('elementwise_add', {'X': c4, 'Y': c2}, {'Out': a}, axis=-1)
            p.op('leaky_relu', {'X': a}, {'Out': b}, alpha=0.1)
            p.op('scale', {'X': b}, {'Out': e1}, scale=2.0, bias=0.0, bias_after_scale=True)
        # 6: elementwise_mul (axis 1) carrying swish(beta 1.5)
        e2 = T(-1, 8, 6, 6)
        if F:
            p.op('elementwise_mul', {'X': e1, 'Y': P['s']}, {'Out': e2}, axis=1, fuse_activation='swish',
                 fuse_alpha=1.5, fuse_beta=0.0, use_mkldnn=True)
        else:
            a = T(-1, 8, 6, 6)
            p.op('elementwise_mul', {'X': e1, 'Y': P['s']}, {'Out': a}, axis=1)
            p.op('swish', {'X': a}, {'Out': e2}, beta=1.5)
        fl = T(-1, 288)
        p.op('flatten_contiguous_range', {'X': e2}, {'Out': fl, 'XShape': T(-1)}, start_axis=1, stop_axis=-1)
        # 7: fc with padded weights + relu
        h1 = T(-1, 16)
        if F:
            fw = np.zeros((292, 20), np.float32)
            fw[:288, :16] = W['fw']
            fw[288:, :] = 7.0  # padding Paddle never reads
            fw[:, 16:] = -7.0
            p.op('fc', {'Input': fl, 'W': p.param('fw', fw), 'Bias': p.param('fb', W['fb'].reshape(1, 16))},
                 {'Out': h1}, in_num_col_dims=1, activation_type='relu', padding_weights=True)
        else:
            a, b = T(-1, 16), T(-1, 16)
            p.op('matmul_v2', {'X': fl, 'Y': p.param('fw', W['fw'])}, {'Out': a}, trans_x=False, trans_y=False)
            p.op('elementwise_add', {'X': a, 'Y': p.param('fb', W['fb'])}, {'Out': b}, axis=-1)
            p.op('relu', {'X': b}, {'Out': h1})
        # 8: fused_matmul: reshape [2,4,4] + transpose X, trans_y, alpha 0.5, gelu_tanh, transpose + reshape Out
        m1 = T(-1, 12)
        if F:
            p.op('fused_matmul', {'X': h1, 'Y': P['wm']}, {'Out': m1}, trans_x=False, trans_y=True, matmul_alpha=0.5,
                 fuse_activation='gelu_tanh', fuse_alpha=0.0, fuse_beta=0.0, fused_output_scale=1.0,
                 fused_reshape_X=[0, 4, 4], fused_transpose_X=[0, 2, 1], fused_reshape_Y=[], fused_transpose_Y=[],
                 fused_transpose_Out=[0, 2, 1], fused_reshape_Out=[0, 12], mkldnn_data_type='float32')
        else:
            a, b, e, g, k = T(0, 4, 4), T(-1, 4, 4), T(-1, 4, 3), T(-1, 4, 3), T(-1, 4, 3)
            p.op('reshape2', {'X': h1}, {'Out': a, 'XShape': T(-1)}, shape=[0, 4, 4])
            p.op('transpose2', {'X': a}, {'Out': b, 'XShape': T(-1)}, axis=[0, 2, 1])
            p.op('matmul_v2', {'X': b, 'Y': P['wm']}, {'Out': e}, trans_x=False, trans_y=True)
            p.op('scale', {'X': e}, {'Out': g}, scale=0.5, bias=0.0, bias_after_scale=True)
            p.op('gelu', {'X': g}, {'Out': k}, approximate=True)
            q = T(-1, 3, 4)
            p.op('transpose2', {'X': k}, {'Out': q, 'XShape': T(-1)}, axis=[0, 2, 1])
            p.op('reshape2', {'X': q}, {'Out': m1, 'XShape': T(-1)}, shape=[0, 12])
        # 9: matmul_v2 + ResidualData + sigmoid
        m2 = T(-1, 12)
        if F:
            p.op('matmul_v2', {'X': m1, 'Y': P['wr'], 'ResidualData': m1}, {'Out': m2}, trans_x=False,
                 trans_y=False, fuse_activation='sigmoid', use_mkldnn=True)
        else:
            a, b = T(-1, 12), T(-1, 12)
            p.op('matmul_v2', {'X': m1, 'Y': P['wr']}, {'Out': a}, trans_x=False, trans_y=False)
            p.op('elementwise_add', {'X': a, 'Y': m1}, {'Out': b}, axis=-1)
            p.op('sigmoid', {'X': b}, {'Out': m2})
        # 10: fused_elemwise_activation [elementwise_add, scale]: X + 0.3 Y
        z1 = T(-1, 12)
        if F:
            p.op('fused_elemwise_activation', {'X': m2, 'Y': m1}, {'Out': z1, 'IntermediateOut': T(-1, 12)},
                 functor_list=['elementwise_add', 'scale'], scale=0.3, axis=-1, save_intermediate_out=False)
        else:
            a = T(-1, 12)
            p.op('scale', {'X': m1}, {'Out': a}, scale=0.3, bias=0.0, bias_after_scale=True)
            p.op('elementwise_add', {'X': m2, 'Y': a}, {'Out': z1}, axis=-1)
        # 11: fused_elemwise_add_activation [relu, elementwise_add]: relu(X + Y)
        z2 = T(-1, 12)
        if F:
            p.op('fused_elemwise_add_activation', {'X': z1, 'Y': P['zb']}, {'Out': z2, 'IntermediateOut': T(-1, 12)},
                 functor_list=['relu', 'elementwise_add'], axis=-1, save_intermediate_out=False)
        else:
            a = T(-1, 12)
            p.op('elementwise_add', {'X': z1, 'Y': P['zb']}, {'Out': a}, axis=-1)
            p.op('relu', {'X': a}, {'Out': z2})
        # 12: fc without activation
        y = p.var('out', [-1, 5])
        if F:
            p.op('fc', {'Input': z2, 'W': P['ow'], 'Bias': P['ob']}, {'Out': y}, in_num_col_dims=1,
                 activation_type='', padding_weights=False)
        else:
            a = T(-1, 5)
            p.op('mul', {'X': z2, 'Y': P['ow']}, {'Out': a}, x_num_col_dims=1, y_num_col_dims=1)
            p.op('elementwise_add', {'X': a, 'Y': P['ob']}, {'Out': y}, axis=1)
        p.fetch(y)
        p.save(os.path.join(out_dir, mode))

    # the same forward pass in float64 NumPy
    P = {k: v.astype(np.float64) for k, v in W.items()}
    sh = (1, 8, 1, 1)
    sig = lambda v: 1 / (1 + np.exp(-v))
    xv = rng.uniform(-1, 1, (2, 4, 6, 6)).astype(np.float32)
    c1 = np.maximum(conv2d(xv.astype(np.float64), P['w1'], 1, 1) + P['b1'].reshape(sh), 0)
    c2 = conv2d(c1, P['w2']) + P['b2'].reshape(sh) + c1
    a = conv2d(c2, P['dw'], 1, 1, groups=8) + P['b3'].reshape(sh) + c1
    c3 = a * np.clip(a + 3, 0, 6) / 6
    c4 = np.clip(conv2d(c3, P['w4']), 0, 6) * 0.5
    a = c4 + c2
    e1 = np.where(a > 0, a, 0.1 * a) * 2
    a = e1 * P['s'].reshape(sh)
    e2 = a * sig(1.5 * a)
    h1 = np.maximum(e2.reshape(2, 288) @ P['fw'] + P['fb'], 0)
    a = 0.5 * (h1.reshape(2, 4, 4).transpose(0, 2, 1) @ P['wm'].T)
    a = 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))
    m1 = a.transpose(0, 2, 1).reshape(2, 12)
    m2 = sig(m1 @ P['wr'] + m1)
    z2 = np.maximum(m2 + 0.3 * m1 + P['zb'], 0)
    out = z2 @ P['ow'] + P['ob']
    np.save(os.path.join(out_dir, 'fused', 'x.npy'), xv)
    np.save(os.path.join(out_dir, 'fused', 'out.npy'), out.astype(np.float32))


def fused_mha(out_dir):
    """multihead_matmul (multihead_matmul_fuse_pass_v2's attention: W [H, 3, H], Bias [3, H],
    BiasQK, alpha, head_number) in OUT_DIR/fused_mha, the unfused attention it replaces in
    OUT_DIR/unfused_mha, and the NumPy forward pass (x.npy, out.npy in OUT_DIR/fused_mha)."""
    rng = np.random.default_rng(2526)
    f32 = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    B, S, H, N = 2, 5, 8, 2
    D = H // N
    wq, wk, wv, bq, bk, bv = f32(H, H), f32(H, H), f32(H, H), f32(H), f32(H), f32(H)
    mask = f32(B, N, S, S)
    alpha = 1 / np.sqrt(D)
    for mode in ('fused_mha', 'unfused_mha'):
        p = Program()
        x = p.feed('x', [-1, S, H])
        m = p.param('bias_qk', mask)
        y = p.var('out', [-1, S, H])
        T = lambda *d: p.tmp(list(d))
        if mode == 'fused_mha':
            p.op('multihead_matmul', {'Input': x, 'W': p.param('qkv_w', np.stack([wq, wk, wv], axis=1)),
                                      'Bias': p.param('qkv_b', np.stack([bq, bk, bv])), 'BiasQK': m},
                 {'Out': y}, alpha=float(alpha), head_number=N, transpose_Q=False, transpose_K=True, transpose_V=False)
        else:
            heads = []
            for name, w, b in (('q', wq, bq), ('k', wk, bk), ('v', wv, bv)):
                a, c, r, t = T(-1, S, H), T(-1, S, H), T(0, 0, N, D), T(-1, N, S, D)
                p.op('matmul_v2', {'X': x, 'Y': p.param(name + '_w', w)}, {'Out': a}, trans_x=False, trans_y=False)
                p.op('elementwise_add', {'X': a, 'Y': p.param(name + '_b', b)}, {'Out': c}, axis=2)
                p.op('reshape2', {'X': c}, {'Out': r, 'XShape': T(-1)}, shape=[0, 0, N, D])
                p.op('transpose2', {'X': r}, {'Out': t, 'XShape': T(-1)}, axis=[0, 2, 1, 3])
                heads.append(t)
            s1, s2, s3, s4, o1, o2 = T(-1, N, S, S), T(-1, N, S, S), T(-1, N, S, S), T(-1, N, S, S), T(-1, N, S, D), T(-1, S, N, D)
            p.op('matmul_v2', {'X': heads[0], 'Y': heads[1]}, {'Out': s1}, trans_x=False, trans_y=True)
            p.op('scale', {'X': s1}, {'Out': s2}, scale=float(alpha), bias=0.0, bias_after_scale=True)
            p.op('elementwise_add', {'X': s2, 'Y': m}, {'Out': s3}, axis=-1)
            p.op('softmax', {'X': s3}, {'Out': s4}, axis=-1)
            p.op('matmul_v2', {'X': s4, 'Y': heads[2]}, {'Out': o1}, trans_x=False, trans_y=False)
            p.op('transpose2', {'X': o1}, {'Out': o2, 'XShape': T(-1)}, axis=[0, 2, 1, 3])
            p.op('reshape2', {'X': o2}, {'Out': y, 'XShape': T(-1)}, shape=[0, 0, H])
        p.fetch(y)
        p.save(os.path.join(out_dir, mode))
    xv = rng.uniform(-1, 1, (B, S, H)).astype(np.float32)
    x64 = xv.astype(np.float64)
    split = lambda w, b: (x64 @ w.astype(np.float64) + b).reshape(B, S, N, D).transpose(0, 2, 1, 3)
    q, k, v = split(wq, bq), split(wk, bk), split(wv, bv)
    sc = alpha * q @ k.transpose(0, 1, 3, 2) + mask
    e = np.exp(sc - sc.max(axis=-1, keepdims=True))
    out = ((e / e.sum(axis=-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(B, S, H)
    np.save(os.path.join(out_dir, 'fused_mha', 'x.npy'), xv)
    np.save(os.path.join(out_dir, 'fused_mha', 'out.npy'), out.astype(np.float32))


def rnn(out_dir):
    """Paddle's rnn operator as paddle.nn.LSTM / GRU write it into a static program
    (RNNBase._cudnn_impl): transpose2 to time-major, the rnn op with WeightList in
    flatten_parameters' order (every weight_ih, weight_hh by layer and direction, then
    every bias_ih, bias_hh), transpose2 back. A 2-layer bidirectional LSTM with fed
    initial states (h0, c0) feeds a 2-layer bidirectional GRU whose zero initial state
    comes from fill_constant_batch_size_like, as the layer writes it. Written to
    OUT_DIR/rnn with x.npy, h0.npy, c0.npy and the NumPy forward pass of Paddle's
    LSTMCell / GRUCell equations (out.npy, lstm_h.npy, lstm_c.npy, gru_h.npy)."""
    rng = np.random.default_rng(2527)
    f32 = lambda *s: rng.uniform(-0.5, 0.5, s).astype(np.float32)
    N, T, C, H, L, D = 2, 5, 3, 4, 2, 2
    p = Program()
    x = p.feed('x', [-1, T, C])
    h0 = p.feed('h0', [L * D, -1, H])
    c0 = p.feed('c0', [L * D, -1, H])
    tm = p.tmp([T, -1, C])
    p.op('transpose2', {'X': x}, {'Out': tm, 'XShape': p.tmp([-1])}, axis=[1, 0, 2])
    weights = {}

    def rnn_op(mode, inp, in_size, pre, G):
        ws, bs = [], []
        cells = []
        for l in range(L):
            for d in range(D):
                isz = in_size if l == 0 else D * H
                w = {'w_ih': f32(G * H, isz), 'w_hh': f32(G * H, H), 'b_ih': f32(G * H), 'b_hh': f32(G * H)}
                cells.append(w)
                pre_name = '%s_l%d_d%d_' % (mode.lower(), l, d)
                ws += [p.param(pre_name + 'w_ih', w['w_ih']), p.param(pre_name + 'w_hh', w['w_hh'])]
                bs += [p.param(pre_name + 'b_ih', w['b_ih']), p.param(pre_name + 'b_hh', w['b_hh'])]
        weights[mode] = cells
        out = p.tmp([T, -1, D * H])
        states = [p.var('%s_state_%d' % (mode.lower(), i), [L * D, -1, H]) for i in range(len(pre))]
        p.op('rnn', {'Input': inp, 'PreState': pre, 'WeightList': ws + bs},
             {'Out': out, 'State': states, 'Reserve': p.tmp([-1], VT.UINT8), 'DropoutState': p.tmp([-1], VT.UINT8)},
             mode=mode, hidden_size=H, num_layers=L, is_bidirec=True, input_size=in_size, dropout_prob=0.0,
             is_test=True, seed=0)
        return out, states

    lo, (lh, lc) = rnn_op('LSTM', tm, C, [h0, c0], 4)
    gz = p.tmp([L * D, -1, H])
    p.op('fill_constant_batch_size_like', {'Input': lo}, {'Out': gz}, shape=[L * D, -1, H], dtype=VT.FP32,
         value=0.0, input_dim_idx=1, output_dim_idx=1, str_value='0.0')
    go, (gh,) = rnn_op('GRU', lo, D * H, [gz], 3)
    y = p.var('out', [-1, T, D * H])
    p.op('transpose2', {'X': go}, {'Out': y, 'XShape': p.tmp([-1])}, axis=[1, 0, 2])
    for v in (y, lh, lc, gh):
        p.fetch(v)
    d = os.path.join(out_dir, 'rnn')
    p.save(d)

    # NumPy: Paddle's cells (LSTMCell: gates split i, f, c, o; GRUCell: r, z, c with
    # c = tanh(x_c + r*(h W_hc^T + b_hc)), h = (h0 - c)*z + c), time-major, reverse
    # direction run from the last step, the next layer reading both directions.
    sig = lambda v: 1 / (1 + np.exp(-v))

    def lstm_step(w, xt, h, c):
        g = xt @ w['w_ih'].T + w['b_ih'] + h @ w['w_hh'].T + w['b_hh']
        i, f, cc, o = np.split(g, 4, axis=-1)
        c = sig(f) * c + sig(i) * np.tanh(cc)
        return sig(o) * np.tanh(c), c

    def gru_step(w, xt, h, _):
        xg = xt @ w['w_ih'].T + w['b_ih']
        hg = h @ w['w_hh'].T + w['b_hh']
        xr, xz, xc = np.split(xg, 3, axis=-1)
        hr, hz, hc = np.split(hg, 3, axis=-1)
        r, z = sig(xr + hr), sig(xz + hz)
        c = np.tanh(xc + r * hc)
        return (h - c) * z + c, None

    def run(step, cells, inp, hinit, cinit):
        hs, cs = [], []
        for l in range(L):
            outs = []
            for d in range(D):
                w = {k: v.astype(np.float64) for k, v in cells[l * D + d].items()}
                h, c = hinit[l * D + d], cinit[l * D + d] if cinit is not None else None
                ys = [None] * T
                for t in (range(T) if d == 0 else range(T - 1, -1, -1)):
                    h, c = step(w, inp[t], h, c)
                    ys[t] = h
                outs.append(np.stack(ys))
                hs.append(h)
                cs.append(c)
            inp = np.concatenate(outs, axis=-1)
        return inp, np.stack(hs), (np.stack(cs) if cinit is not None else None)

    xv, hv, cv = f32(N, T, C), f32(L * D, N, H), f32(L * D, N, H)
    a, lhv, lcv = run(lstm_step, weights['LSTM'], xv.astype(np.float64).transpose(1, 0, 2), hv.astype(np.float64),
                      cv.astype(np.float64))
    a, ghv, _ = run(gru_step, weights['GRU'], a, np.zeros((L * D, N, H)), None)
    for name, v in (('x', xv), ('h0', hv), ('c0', cv), ('out', a.transpose(1, 0, 2)), ('lstm_h', lhv),
                    ('lstm_c', lcv), ('gru_h', ghv)):
        np.save(os.path.join(d, name + '.npy'), v.astype(np.float32))


def quant(out_dir):
    """x -> quantize_linear -> dequantize_linear -> conv2d -> out, the conv2d's weight a
    float tensor of integers (as PaddleSlim saves quantized weights) read through a
    dequantize_linear with one abs-max scale per output channel (quant_axis 0). Paddle's
    formulas with bit_length 8 (b = 127): q = clip(round(x * b / s), -b, b), round_type 1
    rounding half away from zero; dequantized x = q * s / b. x ranges past the scale so
    that both clip bounds are reached. Written to OUT_DIR/quant with x.npy and the NumPy
    forward pass (out.npy)."""
    rng = np.random.default_rng(2525)
    p = Program()
    x = p.feed('x', [-1, 3, 6, 6])
    xs = 1.0
    common = dict(bit_length=8, round_type=1, is_test=True, only_observer=False)
    p.param('x_scale', np.array([xs], np.float32))
    p.param('x_zero', np.zeros(1, np.float32))
    xq = p.tmp([-1, 3, 6, 6])
    p.op('quantize_linear', {'X': x, 'Scale': 'x_scale', 'ZeroPoint': 'x_zero'}, {'Y': xq}, quant_axis=-1, **common)
    xd = p.tmp([-1, 3, 6, 6])
    p.op('dequantize_linear', {'X': xq, 'Scale': 'x_scale', 'ZeroPoint': 'x_zero'}, {'Y': xd}, quant_axis=-1, **common)
    w = rng.uniform(-1, 1, (4, 3, 3, 3))
    ws = np.abs(w).max(axis=(1, 2, 3)).astype(np.float32)
    wq = np.clip(np.round(w * 127 / ws[:, None, None, None]), -127, 127).astype(np.float32)
    p.param('conv1_weights', wq)
    p.param('conv1_weights@scale', ws)
    p.param('conv1_weights@zero', np.zeros(4, np.float32))
    wd = p.tmp([4, 3, 3, 3])
    p.op('dequantize_linear', {'X': 'conv1_weights', 'Scale': 'conv1_weights@scale', 'ZeroPoint': 'conv1_weights@zero'},
         {'Y': wd}, quant_axis=0, **common)
    y = p.var('out', [-1, 4, 6, 6])
    p.op('conv2d', {'Input': xd, 'Filter': wd}, {'Output': y}, strides=[1, 1], paddings=[1, 1], dilations=[1, 1],
         groups=1, padding_algorithm='EXPLICIT', data_format='NCHW')
    p.fetch(y)
    d = os.path.join(out_dir, 'quant')
    p.save(d)

    xv = rng.uniform(-1.3, 1.3, (2, 3, 6, 6)).astype(np.float32)
    v = xv.astype(np.float64) * 127 / xs
    q = np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), -127, 127)
    out = conv2d(q * xs / 127, wq.astype(np.float64) * ws[:, None, None, None].astype(np.float64) / 127, pad=1)
    np.save(os.path.join(d, 'x.npy'), xv)
    np.save(os.path.join(d, 'out.npy'), out.astype(np.float32))


def ppocr(model, out_dir):
    """Translates the ONNX model (paddle2onnx output of a PP-OCR det or cls model) back into
    Paddle operators: each ONNX node becomes the op paddle2onnx made it from, so the program
    uses conv2d/depthwise_conv2d (+ elementwise_add axis=1 for a bias), batch_norm,
    elementwise_* or scale (a scalar constant), relu6/clip, hard_sigmoid, pool2d,
    nearest_interp_v2, conv2d_transpose, concat, relu, sigmoid, reshape2, matmul_v2, softmax."""
    import onnx
    from onnx import numpy_helper, shape_inference
    m = shape_inference.infer_shapes(onnx.load(model))
    g = m.graph
    const = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    dims = {}
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        dims[vi.name] = [d.dim_value if d.HasField('dim_value') else -1 for d in vi.type.tensor_type.shape.dim]
    skip, fused = patterns(g, const)
    params = paddle_params(g)
    p = Program()
    made = set()
    shapes = set()  # outputs of shape ops
    alias = {}      # ONNX value -> the Paddle variable that holds it

    def var(name):
        """The Paddle variable of ONNX value name (a constant becomes a persistable one)."""
        if name in made:
            return name
        if name in const:
            v = const[name]
            if v.dtype == np.float64:
                v = v.astype(np.float32)
            if v.ndim == 0:
                v = v.reshape(1)
            p.param(name, v)
        else:
            p.var(name, dims.get(name, [-1, -1, -1, -1]))
        made.add(name)
        return name

    ranks = {}  # ONNX value -> its rank, propagated here: shape inference loses it after a
    cur = [4]   # reshape to a shape computed at run time; cur[0]: the node's largest input rank

    def rank_of(name):
        if name in ranks:
            return ranks[name]
        if name in const:
            return max(const[name].ndim, 1)
        return len(dims.get(name) or [-1] * 4)

    def out(name, rank=None):
        """Declares ONNX value name as a variable of the given rank (default: the node's
        largest input rank), with the inferred dims when they agree."""
        r = cur[0] if rank is None else rank
        d = dims.get(name)
        if not d or len(d) != r:
            d = [-1] * r
        made.add(name)
        ranks[name] = r
        return p.var(name, d)

    def scalar(name):
        v = const.get(name)
        return float(v.reshape(-1)[0]) if v is not None and v.size == 1 else None

    for vi in g.input:
        if vi.name not in const:
            p.feed(vi.name, dims[vi.name])
            made.add(vi.name)
    def int_item(name):
        """A ShapeTensor item: a variable, or a constant as the fill_constant Paddle wrote."""
        if name in made or name not in const:
            return var(alias.get(name, name))
        p.op('fill_constant', {}, {'Out': p.var(name, [1], VT.INT32)}, dtype=VT.INT32, shape=[1],
             value=float(const[name].reshape(-1)[0]))
        made.add(name)
        return name

    for k, n in enumerate(g.node):
        if k in skip:
            continue
        a = {x.name: onnx.helper.get_attribute_value(x) for x in n.attribute}
        i, o = [alias.get(x, x) for x in n.input], list(n.output)
        t = n.op_type
        f = fused.get(k)
        cur[0] = max([rank_of(x) for x in (f[1:2] if f else i) if x] or [1])
        if f and f[0] == 'hard_swish':
            p.op('hard_swish', {'X': var(f[1])}, {'Out': out(o[0])}, threshold=6.0, scale=6.0, offset=3.0)
        elif f and f[0] == 'swish':
            p.op('swish', {'X': var(f[1])}, {'Out': out(o[0])}, beta=f[2])
        elif f and f[0] == 'layer_norm':
            r = rank_of(f[1])
            p.op('layer_norm', {'X': var(f[1]), 'Scale': var(f[2]), 'Bias': var(f[3])},
                 {'Y': out(o[0], r), 'Mean': p.tmp([-1]), 'Variance': p.tmp([-1])},
                 epsilon=f[4], begin_norm_axis=r - 1)
        elif f and f[0] == 'flatten':
            p.op('flatten_contiguous_range', {'X': var(f[1])}, {'Out': out(o[0], f[2] + 1), 'XShape': p.tmp([-1])},
                 start_axis=f[2], stop_axis=-1)
        elif f and f[0] == 'reshape_list':
            p.op('reshape2', {'X': var(f[1]), 'ShapeTensor': [int_item(x) for x in f[2]]},
                 {'Out': out(o[0], len(f[2])), 'XShape': p.tmp([-1])}, shape=[])
        elif f and f[0] == 'slice_decrease':
            p.op('slice', {'Input': var(f[1])}, {'Out': out(o[0], cur[0] - len(f[2]))}, axes=f[2], starts=f[3], ends=f[4],
                 decrease_axis=f[2], infer_flags=[1])
        elif t == 'Constant':
            const[o[0]] = numpy_helper.to_array(a['value'])
        elif t in ('Conv', 'ConvTranspose'):
            w = const[i[1]]
            pads = a.get('pads', [0, 0, 0, 0])
            attrs = dict(strides=a.get('strides', [1, 1]), paddings=[pads[0], pads[2], pads[1], pads[3]],
                         dilations=a.get('dilations', [1, 1]), groups=a.get('group', 1),
                         padding_algorithm='EXPLICIT', data_format='NCHW')
            typ = 'conv2d'
            if t == 'ConvTranspose':
                typ = 'conv2d_transpose'
                attrs['output_padding'] = a.get('output_padding', [])
            elif attrs['groups'] > 1 and attrs['groups'] == w.shape[0] and w.shape[1] == 1:
                typ = 'depthwise_conv2d'
            y = o[0] if len(i) < 3 else o[0] + '.nobias'
            p.op(typ, {'Input': var(i[0]), 'Filter': var(i[1])}, {'Output': out(y)}, **attrs)
            if len(i) > 2:
                p.op('elementwise_add', {'X': y, 'Y': var(i[2])}, {'Out': out(o[0])}, axis=1)
        elif t == 'BatchNormalization':
            p.op('batch_norm', {'X': var(i[0]), 'Scale': var(i[1]), 'Bias': var(i[2]), 'Mean': var(i[3]),
                                'Variance': var(i[4])}, {'Y': out(o[0])}, epsilon=a.get('epsilon', 1e-5),
                 is_test=True, data_layout='NCHW')
        elif t in ('Add', 'Sub', 'Mul', 'Div'):
            x, y = i
            c = scalar(y) if y not in params else None
            if c is not None and x not in const:
                sc, b = {'Add': (1.0, c), 'Sub': (1.0, -c), 'Mul': (c, 0.0), 'Div': (1.0 / c, 0.0)}[t]
                p.op('scale', {'X': var(x)}, {'Out': out(o[0])}, scale=sc, bias=b, bias_after_scale=True)
            else:
                typ = {'Add': 'elementwise_add', 'Sub': 'elementwise_sub', 'Mul': 'elementwise_mul',
                       'Div': 'elementwise_div'}[t]
                p.op(typ, {'X': var(x), 'Y': var(y)}, {'Out': out(o[0])}, axis=-1)
        elif t == 'Clip':
            lo, hi = (scalar(i[1]), scalar(i[2])) if len(i) == 3 else (a['min'], a['max'])
            if lo == 0 and hi == 6:
                p.op('relu6', {'X': var(i[0])}, {'Out': out(o[0])}, threshold=6.0)
            else:
                p.op('clip', {'X': var(i[0])}, {'Out': out(o[0])}, min=lo, max=hi)
        elif t in ('Relu', 'Sigmoid'):
            p.op(t.lower(), {'X': var(i[0])}, {'Out': out(o[0])})
        elif t == 'HardSigmoid':
            p.op('hard_sigmoid', {'X': var(i[0])}, {'Out': out(o[0])}, slope=a['alpha'], offset=a['beta'])
        elif t == 'GlobalAveragePool':
            p.op('pool2d', {'X': var(i[0])}, {'Out': out(o[0])}, pooling_type='avg', ksize=[1, 1],
                 global_pooling=True, adaptive=False, strides=[1, 1], paddings=[0, 0], exclusive=True,
                 ceil_mode=False, padding_algorithm='EXPLICIT', data_format='NCHW')
        elif t == 'MaxPool':
            pads = a.get('pads', [0, 0, 0, 0])
            p.op('pool2d', {'X': var(i[0])}, {'Out': out(o[0])}, pooling_type='max', ksize=a['kernel_shape'],
                 global_pooling=False, adaptive=False, strides=a.get('strides', [1, 1]),
                 paddings=[pads[0], pads[2], pads[1], pads[3]], exclusive=True,
                 ceil_mode=bool(a.get('ceil_mode', 0)), padding_algorithm='EXPLICIT', data_format='NCHW')
        elif t == 'Resize':
            assert a.get('mode') == b'nearest' and a.get('coordinate_transformation_mode') == b'asymmetric', a
            sc = const[i[2]]
            assert sc[0] == 1 and sc[1] == 1, sc
            p.op('nearest_interp_v2', {'X': var(i[0])}, {'Out': out(o[0])}, interp_method='nearest',
                 align_corners=False, align_mode=1, scale=[float(sc[2]), float(sc[3])], out_h=-1, out_w=-1,
                 data_layout='NCHW')
        elif t == 'Concat':
            p.op('concat', {'X': [var(x) for x in i]}, {'Out': out(o[0])}, axis=a['axis'])
        elif t == 'Shape':
            p.op('shape', {'Input': var(i[0])}, {'Out': p.var(o[0], [4], VT.INT32)})
            made.add(o[0])
            shapes.add(o[0])
        elif t == 'Cast':
            if i[0] in const:
                const[o[0]] = const[i[0]].astype({6: np.int32, 7: np.int64, 1: np.float32}[a['to']])
            elif i[0] in shapes and a['to'] == 6:  # Paddle's shape op is int32 already
                alias[o[0]] = i[0]
            else:
                to = {6: VT.INT32, 7: VT.INT64, 1: VT.FP32}[a['to']]
                p.op('cast', {'X': var(i[0])}, {'Out': p.var(o[0], dims.get(o[0], [-1]), to)},
                     in_dtype=VT.INT32, out_dtype=to)
                made.add(o[0])
        elif t == 'Slice':
            p.op('slice', {'Input': var(i[0])}, {'Out': p.var(o[0], [-1], VT.INT32)}, axes=a['axes'],
                 starts=a['starts'], ends=a['ends'], decrease_axis=[], infer_flags=[1])
            made.add(o[0])
        elif t == 'Reshape':
            p.op('reshape2', {'X': var(i[0]), 'Shape': var(i[1])}, {'Out': out(o[0], 2)}, shape=[])  # cls: (N, C)
        elif t == 'MatMul':
            p.op('matmul_v2', {'X': var(i[0]), 'Y': var(i[1])}, {'Out': out(o[0])}, trans_x=False, trans_y=False)
        elif t == 'Softmax':
            p.op('softmax', {'X': var(i[0])}, {'Out': out(o[0])}, axis=a.get('axis', -1))
        elif t == 'Transpose':
            p.op('transpose2', {'X': var(i[0])}, {'Out': out(o[0], len(a['perm'])), 'XShape': p.tmp([-1])}, axis=a['perm'])
        elif t == 'Squeeze':
            p.op('squeeze2', {'X': var(i[0])}, {'Out': out(o[0], cur[0] - len(a['axes'])), 'XShape': p.tmp([-1])}, axes=a['axes'])
        elif t == 'AveragePool':
            pads = a.get('pads', [0, 0, 0, 0])
            p.op('pool2d', {'X': var(i[0])}, {'Out': out(o[0])}, pooling_type='avg', ksize=a['kernel_shape'],
                 global_pooling=False, adaptive=False, strides=a.get('strides', [1, 1]),
                 paddings=[pads[0], pads[2], pads[1], pads[3]], exclusive=not a.get('count_include_pad', 0),
                 ceil_mode=bool(a.get('ceil_mode', 0)), padding_algorithm='EXPLICIT', data_format='NCHW')
        else:
            raise SystemExit('ppocr: ONNX op %s is not translated' % t)
    for vi in g.output:
        p.fetch(vi.name)
    p.save(out_dir)


def main():
    mode = sys.argv[1]
    if mode == 'tiny':
        tiny(os.path.join(sys.argv[2], 'tiny'))
    elif mode == 'fused':
        fused(sys.argv[2])
        fused_mha(sys.argv[2])
    elif mode == 'rnn':
        rnn(sys.argv[2])
    elif mode == 'quant':
        quant(sys.argv[2])
    elif mode == 'ppocr':
        ppocr(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
