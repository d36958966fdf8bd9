# SPDX-License-Identifier: Apache-2.0
"""Debug tensors from Python on the host backend: mark_debug survives the build and the plan (is_debug_tensor), a
context's states (set_tensor_debug_state, set_all_tensors_debug_state, get_debug_state), and a Python IDebugListener
called by execute_async_v3 with the tensor's host address, location, type, shape and name exactly while its state is
on; a listener that raises fails the run."""

import ctypes

import numpy as np

import kiln

from conftest import build_plan


class Listener(kiln.IDebugListener):
    """Copies every tensor it is handed (host memory on the host backend)."""

    def __init__(self, raise_error=False):
        kiln.IDebugListener.__init__(self)
        self.calls = []
        self.raise_error = raise_error

    def process_debug_tensor(self, addr, location, type, shape, name, stream):
        if self.raise_error:
            raise RuntimeError("listener refused " + name)
        shape = tuple(shape)
        count = int(np.prod(shape))
        values = np.ctypeslib.as_array((ctypes.c_float * count).from_address(addr)).reshape(shape).copy()
        self.calls.append((name, location, type, shape, stream, values))


def _engine(logger):
    """y = relu(x) * 2 over x [2, 3], the product's input relu(x) named "hidden" and marked debug."""
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    relu = network.add_activation(x, kiln.ActivationType.RELU)
    hidden = relu.get_output(0)
    hidden.name = "hidden"
    assert network.mark_debug(hidden)
    assert network.is_debug_tensor(hidden)
    weights = np.full((1, 1), 2.0, np.float32)  # alive until the build
    two = network.add_constant((1, 1), weights)
    y = network.add_elementwise(hidden, two.get_output(0), kiln.ElementWiseOperation.PROD).get_output(0)
    y.name = "y"
    network.mark_output(y)
    plan = build_plan(builder, network)
    return kiln.Runtime(logger).deserialize_cuda_engine(plan)


def _run(context, x, y):
    assert context.set_tensor_address("x", x.ctypes.data)
    assert context.set_tensor_address("y", y.ctypes.data)
    return context.execute_async_v3(0)


def test_the_plan_keeps_debug_tensors(logger):
    engine = _engine(logger)
    assert engine.is_debug_tensor("hidden")
    assert not engine.is_debug_tensor("y")
    assert not engine.is_debug_tensor("x")
    reloaded = kiln.Runtime(logger).deserialize_cuda_engine(engine.serialize())
    assert reloaded.is_debug_tensor("hidden")
    assert not reloaded.is_debug_tensor("nothing")


def test_debug_states(logger):
    context = _engine(logger).create_execution_context()
    assert context.get_debug_state("hidden") is False
    assert context.set_tensor_debug_state("hidden", True) is True
    assert context.get_debug_state("hidden") is True
    assert context.set_all_tensors_debug_state(False) is True
    assert context.get_debug_state("hidden") is False
    assert context.set_all_tensors_debug_state(True) is True
    assert context.get_debug_state("hidden") is True
    assert context.set_tensor_debug_state("y", True) is False  # an output, not a debug tensor
    assert context.get_debug_state("y") is False


def test_listener_hears_the_tensor_while_its_state_is_on(logger):
    context = _engine(logger).create_execution_context()
    listener = Listener()
    assert context.set_debug_listener(listener) is True
    x = np.array([[-1.0, 0.5, 2.0], [3.0, -4.0, 0.0]], np.float32)
    y = np.zeros((2, 3), np.float32)

    assert _run(context, x, y)
    assert listener.calls == []  # state off
    np.testing.assert_allclose(y, np.maximum(x, 0) * 2)

    assert context.set_tensor_debug_state("hidden", True)
    assert _run(context, x, y)
    assert len(listener.calls) == 1
    name, location, dtype, shape, stream, values = listener.calls[0]
    assert (name, location, dtype, shape, stream) == ("hidden", kiln.TensorLocation.HOST, kiln.float32, (2, 3), 0)
    np.testing.assert_array_equal(values, np.maximum(x, 0))
    np.testing.assert_allclose(y, np.maximum(x, 0) * 2)

    assert context.set_tensor_debug_state("hidden", False)
    assert _run(context, x, y)
    assert len(listener.calls) == 1


def test_a_raising_listener_fails_the_run(logger):
    context = _engine(logger).create_execution_context()
    assert context.set_debug_listener(Listener(raise_error=True))
    assert context.set_all_tensors_debug_state(True)
    x = np.ones((2, 3), np.float32)
    y = np.zeros((2, 3), np.float32)
    assert not _run(context, x, y)
