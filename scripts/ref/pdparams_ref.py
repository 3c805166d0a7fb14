#!/usr/bin/python3
"""Write core/io/pdparams/testdata/: .pdparams/.pdopt files laid out as paddle.save writes them.

PaddlePaddle cannot be installed here, so this script reproduces, with Python's own pickle and
NumPy (Debian python3-numpy), the layout of paddle.framework.io.save as of Paddle 2.0-3.0:

- a state dict becomes a plain dict {structured name: numpy array} plus the entry
  "StructuredToParameterName@@": {structured name: parameter name} (_build_saved_state_dict);
- with protocol 2 or 3, an array of more than (2**30 - 1) // itemsize elements is flattened and
  cut into pieces "<key>@@.0", "<key>@@.1", ... of at most that many elements, the key removed,
  and "UnpackBigParamInfor@@": {key: {"OriginShape": shape, "slices": [piece names]}} added
  (_unpack_saved_dict). Real split arrays are gigabytes; the fixture lowers the limit to 8
  elements (SPLIT) so the same layout fits in a few hundred bytes;
- the dict is written by pickle.Pickler(f, protocol); a Tensor inside a non-state-dict object
  reduces to (tuple, ((name, ndarray),)), a LoDTensor to (eval, ("data", {"data": ndarray}))
  (_pickle_save's reduce_varbase and reduce_LoDTensor).

Values are arange-based so the Go test computes what it expects. Run from the repository root:
    /usr/bin/python3 scripts/ref/pdparams_ref.py
"""
import builtins
import math
import os
import pickle

import numpy as np

OUT = "core/io/pdparams/testdata"
SPLIT = 8  # stands in for (2**30 - 1) // itemsize


def state_dict():
    """A small layer state dict in Paddle's naming (conv + bn + linear)."""
    return {
        "conv.weight": np.arange(2 * 1 * 3 * 3, dtype=np.float32).reshape(2, 1, 3, 3) / 10,
        "bn._mean": np.array([0.5, -0.5], dtype=np.float32),
        "bn._variance": np.array([1.0, 2.0], dtype=np.float32),
        "fc.weight": np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
        "fc.bias": np.arange(4, dtype=np.float64),
        "steps": np.array(7, dtype=np.int64),
        "mask": np.array([True, False, True]),
        "half": np.array([1.5, -2.0], dtype=np.float16),
    }


def build_saved_state_dict(sd):
    """paddle.framework.io._build_saved_state_dict: arrays + the name table."""
    names = {
        "conv.weight": "conv2d_0.w_0", "bn._mean": "batch_norm_0.w_1",
        "bn._variance": "batch_norm_0.w_2", "fc.weight": "linear_0.w_0", "fc.bias": "linear_0.b_0",
        "steps": "create_parameter_0.w_0", "mask": "create_parameter_1.w_0", "half": "create_parameter_2.w_0",
    }
    out = dict(sd)
    out["StructuredToParameterName@@"] = {k: names[k] for k in sd}
    return out


def unpack_saved_dict(obj, protocol, limit):
    """paddle.framework.io._unpack_saved_dict with the element limit as a parameter."""
    if not 1 < protocol < 4:
        return obj
    info, parts = {}, {}
    for key, value in obj.items():
        if isinstance(value, np.ndarray) and value.size > limit:
            info[key] = {"OriginShape": value.shape, "slices": []}
            flat = value.flatten()
            for i in range(int(math.ceil(value.size * 1.0 / limit))):
                name = key + "@@." + str(i)
                info[key]["slices"].append(name)
                parts[name] = flat[i * limit:(i + 1) * limit]
    if info:
        for key, value in info.items():
            obj.pop(key)
            for part in value["slices"]:
                obj[part] = parts[part]
        obj["UnpackBigParamInfor@@"] = info
    return obj


class VarBase:
    """Stands in for a Paddle Tensor: it reduces as _pickle_save's reduce_varbase does."""

    def __init__(self, name, data):
        self.name, self.data = name, data

    def __reduce__(self):
        return (tuple, ((self.name, self.data),))


class LoDTensor:
    """Stands in for a LoDTensor: it reduces as _pickle_save's reduce_LoDTensor does."""

    def __init__(self, data):
        self.data = data

    def __reduce__(self):
        return (builtins.eval, ("data", {"data": self.data}))


class Evil:
    """A pickle that would run a shell command: the reader must refuse it."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


def dump(path, obj, protocol):
    with open(os.path.join(OUT, path), "wb") as f:
        pickle.Pickler(f, protocol).dump(obj)


def main():
    os.makedirs(OUT, exist_ok=True)
    for protocol in (2, 3, 4):
        obj = unpack_saved_dict(build_saved_state_dict(state_dict()), protocol, SPLIT)
        dump("layer_p%d.pdparams" % protocol, obj, protocol)
    # An optimizer state (AdamW-like) as paddle.save(opt.state_dict()) writes it.
    opt = {
        "linear_0.w_0_moment1_0": np.full((3, 4), 0.25, dtype=np.float32),
        "linear_0.w_0_beta1_pow_acc_0": np.array([0.81], dtype=np.float32),
        "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.001},
    }
    dump("adam.pdopt", build_saved_state_dict_opt(opt), 4)
    # A non-state-dict object: Tensors inside reduce to (name, ndarray) tuples, LoDTensors by eval.
    obj = {"model": {"w": VarBase("linear_1.w_0", np.ones((2, 2), dtype=np.float32))},
           "lod": LoDTensor(np.arange(3, dtype=np.int32)), "epoch": 5}
    dump("nested.pdparams", obj, 2)
    dump("evil.pdparams", {"w": Evil()}, 2)


def build_saved_state_dict_opt(opt):
    """An optimizer's accumulators are named by their variable names, so the table maps each to itself."""
    out = dict(opt)
    out["StructuredToParameterName@@"] = {k: k for k, v in opt.items() if isinstance(v, np.ndarray)}
    return out


if __name__ == "__main__":
    main()
