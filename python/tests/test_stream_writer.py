# SPDX-License-Identifier: Apache-2.0
"""Builder.build_serialized_network_to_stream with an IStreamWriter written in Python (TensorRT's stream_writer
sample), and Builder.build_engine_with_config: the plan reaches Python as bytes, chunk by chunk when the writer takes
less than it is offered, and a writer that fails makes the build return False with the reason in the log."""

import numpy as np
import pytest

import kiln

from test_callbacks import Messages


def _network(builder):
    network = builder.create_network(0)
    x = network.add_input(name="x", dtype=kiln.float32, shape=(1, 2, 5, 5))
    kernel = np.arange(3 * 2 * 3 * 3, dtype=np.float32).reshape(3, 2, 3, 3) / 50
    conv = network.add_convolution_nd(
        input=x, num_output_maps=3, kernel_shape=(3, 3), kernel=kernel, bias=np.array([0.5, -1, 2], np.float32)
    )
    relu = network.add_activation(input=conv.get_output(0), type=kiln.ActivationType.RELU)
    relu.get_output(0).name = "y"
    network.mark_output(tensor=relu.get_output(0))
    return network


class Collector(kiln.IStreamWriter):
    """Keeps what it is given, at most limit bytes a call (None: everything)."""

    def __init__(self, limit=None):
        kiln.IStreamWriter.__init__(self)
        self.bytes, self.calls, self.limit = bytes(), [], limit

    def write(self, data):
        self.calls.append((type(data), len(data)))
        taken = data if self.limit is None else data[: self.limit]
        self.bytes += taken
        return len(taken)


def _reference(logger, x):
    builder = kiln.Builder(logger)
    network = _network(builder)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(
        builder.build_serialized_network(network, builder.create_builder_config())
    )
    return kiln.run(engine, {"x": x})["y"]


def test_the_plan_reaches_the_writer_as_bytes(logger, rng):
    builder = kiln.Builder(logger)
    network = _network(builder)
    writer = Collector()
    assert builder.build_serialized_network_to_stream(network, builder.create_builder_config(), writer) is True
    assert writer.calls and all(kind is bytes for kind, _ in writer.calls)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(writer.bytes)
    assert engine is not None
    x = rng.standard_normal((1, 2, 5, 5), dtype=np.float32)
    np.testing.assert_allclose(kiln.run(engine, {"x": x})["y"], _reference(logger, x), rtol=1e-6, atol=1e-6)


def test_a_writer_that_takes_little_is_called_until_the_plan_is_written(logger):
    builder = kiln.Builder(logger)
    writer = Collector(limit=100)
    assert builder.build_serialized_network_to_stream(
        network=_network(builder), config=builder.create_builder_config(), writer=writer
    )
    assert len(writer.calls) > 1
    assert kiln.Runtime(logger).deserialize_cuda_engine(writer.bytes) is not None


@pytest.mark.parametrize(
    "write, reported",
    [
        (lambda self, data: 0, "stream writer"),
        (lambda self, data: "all of it", "Return value of write() could not be interpreted as an int"),
        (lambda self, data: 1 / 0, "Exception caught in write(): ZeroDivisionError"),
    ],
)
def test_a_failing_writer_fails_the_build(write, reported):
    messages = Messages()
    builder = kiln.Builder(messages)
    Failing = type("Failing", (kiln.IStreamWriter,), {"__init__": Collector.__init__, "write": write})
    config = builder.create_builder_config()
    assert builder.build_serialized_network_to_stream(_network(builder), config, Failing()) is False
    assert reported in messages.text()


def test_a_writer_without_write_is_reported():
    messages = Messages()
    builder = kiln.Builder(messages)

    class Empty(kiln.IStreamWriter):
        def __init__(self):
            kiln.IStreamWriter.__init__(self)

    config = builder.create_builder_config()
    assert builder.build_serialized_network_to_stream(_network(builder), config, Empty()) is False
    assert "Method: write was not overriden" in messages.text()


def test_the_bound_write_goes_through_cpp_to_python():
    writer = Collector()
    assert kiln.IStreamWriter.write(writer, np.arange(4, dtype=np.uint8)) == 4
    assert writer.bytes == bytes([0, 1, 2, 3])


def test_subclasses_must_call_base_init():
    class Forgot(kiln.IStreamWriter):
        def __init__(self):
            pass

    with pytest.raises(TypeError):
        Forgot()


def test_build_engine_with_config_returns_a_runnable_engine(logger, rng):
    builder = kiln.Builder(logger)
    network = _network(builder)
    engine = builder.build_engine_with_config(network, builder.create_builder_config())
    assert isinstance(engine, kiln.ICudaEngine)
    del builder, network
    x = rng.standard_normal((1, 2, 5, 5), dtype=np.float32)
    np.testing.assert_allclose(kiln.run(engine, {"x": x})["y"], _reference(logger, x), rtol=1e-6, atol=1e-6)
    restored = kiln.Runtime(logger).deserialize_cuda_engine(engine.serialize())
    np.testing.assert_allclose(kiln.run(restored, {"x": x})["y"], _reference(logger, x), rtol=1e-6, atol=1e-6)


def test_build_engine_with_config_failure_returns_none():
    messages = Messages()
    builder = kiln.Builder(messages)
    network = builder.create_network(0)  # no outputs
    network.add_input("x", kiln.float32, (1, 2))
    assert builder.build_engine_with_config(network, builder.create_builder_config()) is None
    assert messages.messages
