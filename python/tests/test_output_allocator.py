# SPDX-License-Identifier: Apache-2.0
"""IOutputAllocator in Python: outputs whose shape depends on the data (NonZero) get host memory from numpy; an
exception in a callback is printed and fails the run, and never reaches the caller."""

import numpy as np
import pytest

import kiln

from conftest import build_plan


def _non_zero_engine(logger):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    nz = network.add_non_zero(x, kiln.int64)
    nz.get_output(0).name = "indices"
    network.mark_output(nz.get_output(0))
    engine = kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network))
    assert engine is not None
    return engine


X = np.array([[0, 1, 0], [2, 0, 3]], np.float32)


class NumpyAllocator(kiln.IOutputAllocator):
    def __init__(self):
        kiln.IOutputAllocator.__init__(self)
        self.buffers, self.shapes, self.calls = {}, {}, []

    def reallocate_output(self, tensor_name, memory, size, alignment):
        self.calls.append(("reallocate_output", tensor_name, size))
        self.buffers[tensor_name] = np.empty(max(size, 1), np.uint8)
        return self.buffers[tensor_name].ctypes.data

    def notify_shape(self, tensor_name, shape):
        self.calls.append(("notify_shape", tensor_name, tuple(shape)))
        self.shapes[tensor_name] = tuple(shape)


def test_kiln_run_handles_data_dependent_outputs(logger):
    engine = _non_zero_engine(logger)
    assert -1 in tuple(engine.get_tensor_shape("indices"))
    indices = kiln.run(engine, {"x": X})["indices"]
    np.testing.assert_array_equal(indices, np.array(np.nonzero(X)))


def test_python_output_allocator(logger):
    engine = _non_zero_engine(logger)
    context = engine.create_execution_context()
    allocator = NumpyAllocator()
    assert context.set_output_allocator("indices", allocator)
    assert context.get_output_allocator("indices") is allocator
    context.set_tensor_address("x", X.ctypes.data)
    assert context.execute_async_v3(0)
    assert allocator.shapes["indices"] == (2, 3)
    names = [call[0] for call in allocator.calls]
    assert "reallocate_output" in names and names[-1] == "notify_shape"
    result = np.frombuffer(allocator.buffers["indices"], np.int64, count=6).reshape(2, 3)
    np.testing.assert_array_equal(result, np.array(np.nonzero(X)))


def test_async_form_is_preferred_when_defined(logger):
    class AsyncAllocator(NumpyAllocator):
        def reallocate_output_async(self, tensor_name, memory, size, alignment, stream):
            self.calls.append(("reallocate_output_async", tensor_name, stream))
            return self.reallocate_output(tensor_name, memory, size, alignment)

    engine = _non_zero_engine(logger)
    context = engine.create_execution_context()
    allocator = AsyncAllocator()
    context.set_output_allocator("indices", allocator)
    context.set_tensor_address("x", X.ctypes.data)
    assert context.execute_async_v3(0)
    assert allocator.calls[0] == ("reallocate_output_async", "indices", 0)


def test_exception_in_allocator_fails_the_run(logger, capfd):
    class Raising(kiln.IOutputAllocator):
        def __init__(self):
            kiln.IOutputAllocator.__init__(self)

        def reallocate_output(self, tensor_name, memory, size, alignment):
            raise MemoryError("no memory today")

        def notify_shape(self, tensor_name, shape):
            pass

    engine = _non_zero_engine(logger)
    context = engine.create_execution_context()
    context.set_output_allocator("indices", Raising())
    context.set_tensor_address("x", X.ctypes.data)
    assert context.execute_async_v3(0) is False
    # Reported through the logger (the runtime's Logger prints to stdout), never raised.
    assert "[E] Exception caught in reallocate_output(): MemoryError: no memory today" in capfd.readouterr().out


def test_subclass_must_call_base_init():
    class Forgot(kiln.IOutputAllocator):
        def __init__(self):
            pass

    with pytest.raises(TypeError):
        engine_context_placeholder = Forgot()  # noqa: F841
