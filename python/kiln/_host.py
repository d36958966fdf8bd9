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

    Outputs whose shape depends on the data (NonZero, for example) get their memory through an IOutputAllocator
    written in Python. Each input is converted to a C-contiguous array of the engine's dtype for that tensor.
    ``context`` may be given to reuse an execution context; otherwise one is created for this call. Raises
    ``KeyError`` for a missing or unknown input, ``ValueError`` for a shape the engine refuses, and ``RuntimeError``
    if the engine fails to run (the logger says why).
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
        if not context.set_input_shape(name, array.shape):
            raise ValueError(f"run: input '{name}' has shape {array.shape}, which the engine refuses (see the logger)")
        context.set_tensor_address(name, array.ctypes.data)
    outputs = {}
    allocator = None
    for name in output_names:
        shape = tuple(context.get_tensor_shape(name))
        if any(extent < 0 for extent in shape):
            # The shape depends on the data: the engine asks for the memory once it knows the size.
            allocator = allocator if allocator is not None else _NumpyOutputAllocator()
            if not context.set_output_allocator(name, allocator):
                raise RuntimeError(f"run: the engine refused an output allocator for '{name}' (see the logger)")
            continue
        array = np.empty(shape, dtype=nptype(engine.get_tensor_dtype(name)))
        outputs[name] = array
        # A 0-size output still needs an address; numpy gives one.
        context.set_tensor_address(name, array.ctypes.data)
    if not context.execute_async_v3(0):
        raise RuntimeError("run: execute_async_v3 failed (see the logger)")
    if allocator is not None:
        for name in output_names:
            if name not in outputs:
                outputs[name] = allocator.array(name, nptype(engine.get_tensor_dtype(name)))
    del keep
    return outputs


class _NumpyOutputAllocator(_kiln.IOutputAllocator):
    """Host memory for outputs whose shape depends on the data: numpy byte buffers, viewed as the output's dtype and
    final shape after the run."""

    def __init__(self) -> None:
        _kiln.IOutputAllocator.__init__(self)
        self.buffers: dict = {}
        self.shapes: dict = {}

    def reallocate_output(self, tensor_name: str, memory: int, size: int, alignment: int) -> int:
        import numpy as np

        buffer = self.buffers.get(tensor_name)
        if buffer is None or buffer.nbytes < size:
            buffer = np.empty(max(int(size), 1), np.uint8)
            self.buffers[tensor_name] = buffer
        return buffer.ctypes.data

    def notify_shape(self, tensor_name: str, shape: "_kiln.Dims") -> None:
        self.shapes[tensor_name] = tuple(shape)

    def array(self, name: str, dtype: Any) -> Any:
        import numpy as np

        shape = self.shapes.get(name)
        if shape is None:
            raise RuntimeError(f"run: the engine did not report the shape of output '{name}'")
        count = int(np.prod(shape, dtype=np.int64))
        buffer = self.buffers.get(name)
        if count == 0 or buffer is None:
            return np.empty(shape, dtype)
        return np.frombuffer(buffer, dtype, count=count).reshape(shape)
