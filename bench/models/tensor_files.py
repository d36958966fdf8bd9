# SPDX-License-Identifier: Apache-2.0
"""Tensors as files for kiln_model_bench (bench/models/tensor_files.h reads and writes the same format).

A folder holds one raw little-endian file per tensor and manifest.txt, one line per tensor with four tab-separated
fields: name, dtype (numpy's name), shape ("32x128", "" for a scalar) and the file's name in the folder.

    write_tensors("work/bert/b32/inputs", {"input_ids": ids, "attention_mask": mask})
    tensors = read_tensors("work/bert/b32/kiln_fp16")       # {"last_hidden_state": ndarray, ...}, in manifest order
    shape_list(tensors)                                     # "input_ids:32x128,attention_mask:32x128" (trtexec's form)

Only numpy is needed.
"""

import os
import re

import numpy as np

DTYPES = ("float32", "float16", "int64", "int32", "int8", "uint8", "bool")


def shape_text(shape):
    return "x".join(str(d) for d in shape)


def parse_shape(text):
    return tuple(int(d) for d in text.split("x")) if text else ()


def file_name(name, index):
    """The same name tensor_files.h gives: the index, '_', the name with unusual characters as '_', '.bin'."""
    return f"{index}_" + re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".bin"


def write_tensors(folder, tensors):
    """Writes each array of the dict (name -> ndarray) and the manifest; folder is created when missing."""
    os.makedirs(folder, exist_ok=True)
    lines = []
    for index, (name, array) in enumerate(tensors.items()):
        array = np.ascontiguousarray(array)
        dtype = array.dtype.name
        if dtype not in DTYPES:
            raise ValueError(f"{name}: dtype {dtype} is not one of {DTYPES}")
        file = file_name(name, index)
        array.astype(array.dtype.newbyteorder("<"), copy=False).tofile(os.path.join(folder, file))
        lines.append(f"{name}\t{dtype}\t{shape_text(array.shape)}\t{file}\n")
    with open(os.path.join(folder, "manifest.txt"), "w", encoding="utf-8") as manifest:
        manifest.writelines(lines)


def read_tensors(folder):
    """The dict name -> ndarray of folder's manifest, in its order."""
    tensors = {}
    with open(os.path.join(folder, "manifest.txt"), encoding="utf-8") as manifest:
        for line in manifest:
            line = line.rstrip("\n")
            if not line:
                continue
            name, dtype, shape, file = line.split("\t")
            array = np.fromfile(os.path.join(folder, file), dtype=np.dtype(dtype).newbyteorder("<"))
            tensors[name] = array.reshape(parse_shape(shape)).astype(np.dtype(dtype), copy=False)
    return tensors


def shape_list(tensors):
    """trtexec's --shapes text for the arrays of the dict."""
    return ",".join(f"{name}:{shape_text(array.shape)}" for name, array in tensors.items())
