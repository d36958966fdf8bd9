# SPDX-License-Identifier: Apache-2.0
"""IProgressMonitor and IProfiler implemented in Python (the config and the context keep them alive), the
built-in Profiler, and a monitor cancelling the build."""

import gc

import numpy as np

import kiln

from conftest import build_plan


def _network(builder):
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    a = network.add_unary(x, kiln.UnaryOperation.ABS)
    a.name = "abs"
    b = network.add_activation(a.get_output(0), kiln.ActivationType.RELU)
    b.name = "relu"
    network.mark_output(b.get_output(0))
    return network


class Monitor(kiln.IProgressMonitor):
    def __init__(self, cancel_at=None):
        kiln.IProgressMonitor.__init__(self)
        self.events = []
        self.cancel_at = cancel_at

    def phase_start(self, phase_name, parent_phase, num_steps):
        self.events.append(("start", phase_name, parent_phase, num_steps))

    def step_complete(self, phase_name, step):
        self.events.append(("step", phase_name, step))
        return self.cancel_at is None or step < self.cancel_at

    def phase_finish(self, phase_name):
        self.events.append(("finish", phase_name))


def test_progress_monitor_sees_the_build(logger):
    builder = kiln.Builder(logger)
    config = builder.create_builder_config()
    config.progress_monitor = Monitor()
    gc.collect()
    monitor = config.progress_monitor
    assert isinstance(monitor, Monitor), "the config keeps the Python monitor alive and gives it back"
    build_plan(builder, _network(builder), config)
    kinds = [event[0] for event in monitor.events]
    assert kinds[0] == "start" and kinds[-1] == "finish"
    assert kinds.count("start") == kinds.count("finish")


def test_progress_monitor_cancels_the_build(logger):
    builder = kiln.Builder(logger)
    config = builder.create_builder_config()
    monitor = Monitor(cancel_at=0)
    config.progress_monitor = monitor
    assert builder.build_serialized_network(_network(builder), config) is None
    assert any(event[0] == "step" for event in monitor.events)


def _context(logger):
    builder = kiln.Builder(logger)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, _network(builder)))
    context = engine.create_execution_context()
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    y = np.empty_like(x)
    context.set_tensor_address(engine.get_tensor_name(0), x.ctypes.data)
    context.set_tensor_address(engine.get_tensor_name(1), y.ctypes.data)
    return context, (x, y)


def test_python_profiler_receives_layer_times(logger):
    class Recorder(kiln.IProfiler):
        def __init__(self):
            kiln.IProfiler.__init__(self)
            self.times = []

        def report_layer_time(self, layer_name, ms):
            self.times.append((layer_name, ms))

    context, (x, y) = _context(logger)
    context.profiler = Recorder()
    gc.collect()
    assert context.execute_async_v3(0)
    np.testing.assert_array_equal(y, np.abs(x))
    times = context.profiler.times
    assert times and all(isinstance(name, str) and ms >= 0 for name, ms in times)


def test_builtin_profiler_prints(logger, capfd):
    context, _ = _context(logger)
    context.profiler = kiln.Profiler()
    assert context.execute_async_v3(0)
    assert "ms" in capfd.readouterr().out
