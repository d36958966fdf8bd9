# SPDX-License-Identifier: Apache-2.0
"""kiln.run: one call that runs an engine built for kiln's host backend on numpy arrays.

Host engines read and write host memory, so a tensor's address may be a numpy array's data pointer; this helper
sets the input shapes and addresses, allocates the outputs as numpy arrays, runs ``execute_async_v3(0)`` and
returns the outputs by name. It is kiln's own (``tensorrt`` does not re-export it).
"""

from __future__ import annotations

from typing import Any, Mapping

from . import _kiln


def run(engine: "_kiln.ICudaEngine", inputs: Mapping[str, Any], context: "_kiln.IExecutionContext | None" = None
        ) -> dict:
    """Runs ``engine`` (built for the host backend) on ``inputs`` (name -> array-like) and returns
    ``{output name: numpy array}``.

    Each input is converted to a C-contiguous array of the engine's dtype for that tensor. ``context`` may be
    given to reuse an execution context; otherwise one is created for this call. Raises ``KeyError`` for a missing
    or unknown input, ``ValueError`` for a shape the engine refuses or an output whose shape depends on the data
    (not supported by this helper yet), and ``RuntimeError`` if the engine fails to run (the logger says why).
    """
    import numpy as np

    from ._patches import nptype

    if context is None:
        context = engine.create_execution_context()
        if context is None:
            raise RuntimeError("run: the engine could not create an execution context (see the logger)")
    names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
    input_names = [n for n in names if engine.get_tensor_mode(n) == _kiln.TensorIOMode.INPUT]
    output_names = [n for n in names if engine.get_tensor_mode(n) == _kiln.TensorIOMode.OUTPUT]
    unknown = sorted(set(inputs) - set(input_names))
    if unknown:
        raise KeyError(f"run: the engine has no input named {', '.join(unknown)} (inputs: {', '.join(input_names)})")
    keep = []
    for name in input_names:
        if name not in inputs:
            raise KeyError(f"run: input '{name}' is missing")
        array = np.ascontiguousarray(inputs[name], dtype=nptype(engine.get_tensor_dtype(name)))
        keep.append(array)
        if engine.is_shape_inference_io(name):
            pass  # shape tensors are read from host memory at the address, like every host input
        if not context.set_input_shape(name, array.shape):
            raise ValueError(f"run: input '{name}' has shape {array.shape}, which the engine refuses (see the logger)")
        context.set_tensor_address(name, array.ctypes.data)
    outputs = {}
    for name in output_names:
        shape = tuple(context.get_tensor_shape(name))
        if any(extent < 0 for extent in shape):
            raise ValueError(f"run: output '{name}' has a shape that depends on the data ({shape}); kiln.run does not "
                             "support such outputs yet")
        array = np.empty(shape, dtype=nptype(engine.get_tensor_dtype(name)))
        outputs[name] = array
        # A 0-size output still needs an address; numpy gives one.
        context.set_tensor_address(name, array.ctypes.data)
    if not context.execute_async_v3(0):
        raise RuntimeError("run: execute_async_v3 failed (see the logger)")
    del keep
    return outputs
