#!/usr/bin/python3
"""Reference values for core/onnx/onnxpb, produced by the official onnx Python package.

Run with Debian's python3 (apt-get install -y python3-onnx libonnx-testdata; onnx 1.12):

    /usr/bin/python3 scripts/ref/onnxpb_golden.py [MODELS_DIR]

MODELS_DIR holds the PP-OCRv4 .onnx files (scripts/fetch_ppocrv4.sh; default
${PADDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddle}/npm/ocr-models-1.4.2/package/assets). Writes, under
core/onnx/onnxpb/testdata/:

  external/model.onnx, external/weights.bin
      a small model saved by onnx with its tensors (initializers and a Constant
      attribute) as external data, and external/values.json with their values.
  ppocrv4.json
      per model: node count, op histogram, graph inputs/outputs, and a sha256 over
      the values of all Constant tensors (node order) in canonical form.
  libonnx_testdata.json
      per test directory of libonnx-testdata: a sha256 over the tensor values of
      every test_data_set_0/*.pb that is a TensorProto (sorted by name), canonical form.

Canonical form of a tensor: float16/bfloat16/float32 as little-endian float32; other
numbers as little-endian values of their own width, except uint32 widened to uint64;
bool and uint8 as one byte; strings as 8-byte little-endian length + bytes.
"""
import collections
import glob
import hashlib
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from paddle_cache import cache_dir

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'core', 'onnx', 'onnxpb', 'testdata')
TESTDATA = '/usr/share/libonnx-testdata/data'

CANON = {
    TensorProto.FLOAT: '<f4', TensorProto.FLOAT16: '<f4', TensorProto.BFLOAT16: '<f4',
    TensorProto.DOUBLE: '<f8', TensorProto.INT8: 'i1', TensorProto.UINT8: 'u1',
    TensorProto.BOOL: 'u1', TensorProto.INT16: '<i2', TensorProto.UINT16: '<u2',
    TensorProto.INT32: '<i4', TensorProto.INT64: '<i8', TensorProto.UINT32: '<u8',
    TensorProto.UINT64: '<u8',
}


def canonical(t):
    """Canonical bytes of a TensorProto's values, or None for unsupported types."""
    if t.data_type == TensorProto.STRING:
        out = b''
        for s in t.string_data:
            out += struct.pack('<Q', len(s)) + s
        return out
    if t.data_type not in CANON:
        return None
    a = numpy_helper.to_array(t)
    return np.ascontiguousarray(a.astype(CANON[t.data_type])).tobytes()


def dims_of(vi):
    tt = vi.type.tensor_type
    return [d.dim_param if d.HasField('dim_param') else d.dim_value for d in tt.shape.dim]


def external_model():
    d = os.path.join(OUT, 'external')
    os.makedirs(d, exist_ok=True)
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5
    b = np.array([1, -2, 1 << 40], dtype=np.int64)
    c = np.array([0.5, 1.5, -2.5, 3.25], dtype=np.float32)
    inline = helper.make_tensor('inline', TensorProto.INT32, [2], [7, -8])  # typed field: stays inline
    graph = helper.make_graph(
        [helper.make_node('Constant', [], ['c'], value=numpy_helper.from_array(c, 'c')),
         helper.make_node('MatMul', ['x', 'w'], ['y'])],
        'external',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 2])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['N', 3])],
        initializer=[numpy_helper.from_array(w, 'w'), numpy_helper.from_array(b, 'b'), inline])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='onnxpb_golden')
    # convert_attribute: the Constant's tensor goes to weights.bin too.
    onnx.external_data_helper.convert_model_to_external_data(
        model, all_tensors_to_one_file=True, location='weights.bin', size_threshold=0, convert_attribute=True)
    for f in ('model.onnx', 'weights.bin'):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    onnx.save_model(model, os.path.join(d, 'model.onnx'))
    # What onnx itself reads back, external data loaded.
    back = onnx.load(os.path.join(d, 'model.onnx'))
    values = {t.name: numpy_helper.to_array(t).tolist() for t in back.graph.initializer}
    values['c'] = numpy_helper.to_array(back.graph.node[0].attribute[0].t).tolist()
    raw = onnx.load(os.path.join(d, 'model.onnx'), load_external_data=False)
    ext = {t.name: {e.key: e.value for e in t.external_data} for t in raw.graph.initializer if t.external_data}
    ext['c'] = {e.key: e.value for e in raw.graph.node[0].attribute[0].t.external_data}
    with open(os.path.join(d, 'values.json'), 'w') as f:
        json.dump({'values': values, 'external_data': ext}, f, indent=1, sort_keys=True)
        f.write('\n')


def ppocr(models_dir):
    out = {}
    for name in ['ch_PP-OCRv4_det_infer.onnx', 'ch_PP-OCRv4_rec_infer.onnx', 'ch_ppocr_mobile_v2.0_cls_infer.onnx']:
        path = os.path.join(models_dir, name)
        if not os.path.exists(path):
            print(f'skip {path}: not found', file=sys.stderr)
            continue
        m = onnx.load(path)
        h = hashlib.sha256()
        elems = 0
        for n in m.graph.node:
            if n.op_type == 'Constant':
                t = n.attribute[0].t
                h.update(canonical(t))
                elems += int(np.prod(t.dims, dtype=np.int64))
        out[name] = {
            'ir_version': m.ir_version,
            'opset': [[o.domain, o.version] for o in m.opset_import],
            'nodes': len(m.graph.node),
            'ops': dict(collections.Counter(n.op_type for n in m.graph.node)),
            'inputs': [[vi.name, vi.type.tensor_type.elem_type, dims_of(vi)] for vi in m.graph.input],
            'outputs': [[vi.name, vi.type.tensor_type.elem_type, dims_of(vi)] for vi in m.graph.output],
            'constant_elements': elems,
            'constant_sha256': h.hexdigest(),
        }
    with open(os.path.join(OUT, 'ppocrv4.json'), 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


def testdata():
    out = {}
    for model_path in sorted(glob.glob(os.path.join(TESTDATA, '*', '*', 'model.onnx'))):
        d = os.path.dirname(model_path)
        m = onnx.load(model_path)
        types = {}
        for kind, vis in (('input', m.graph.input), ('output', m.graph.output)):
            for i, vi in enumerate(vis):
                types[f'{kind}_{i}.pb'] = vi.type.WhichOneof('value')
        h = hashlib.sha256()
        n = 0
        for pb in sorted(glob.glob(os.path.join(d, 'test_data_set_0', '*.pb'))):
            if types.get(os.path.basename(pb), 'tensor_type') != 'tensor_type':
                continue
            t = TensorProto()
            with open(pb, 'rb') as f:
                t.ParseFromString(f.read())
            c = canonical(t)
            if c is None:
                continue
            h.update(os.path.basename(pb).encode() + b'\0' + c)
            n += 1
        if n:
            out[os.path.relpath(d, TESTDATA)] = [n, h.hexdigest()[:16]]
    # One test directory per line.
    lines = [f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in sorted(out.items())]
    with open(os.path.join(OUT, 'libonnx_testdata.json'), 'w') as f:
        f.write('{\n "onnx_version": %s,\n "tensors": {\n%s\n }\n}\n' % (json.dumps(onnx.__version__), ',\n'.join(lines)))


def main():
    cache = cache_dir()
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(cache, 'npm', 'ocr-models-1.4.2', 'package', 'assets')
    os.makedirs(OUT, exist_ok=True)
    external_model()
    ppocr(models_dir)
    testdata()


if __name__ == '__main__':
    main()
