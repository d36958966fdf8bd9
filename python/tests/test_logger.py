# SPDX-License-Identifier: Apache-2.0
"""Loggers: Python subclasses of ILogger receive the library's messages (the build runs with the GIL released
and the logger takes it back); exceptions raised in log() are printed and go no further; Logger prints TensorRT's
format to stdout."""

import re

import kiln

from conftest import build_plan


class Recorder(kiln.ILogger):
    def __init__(self):
        kiln.ILogger.__init__(self)
        self.messages = []

    def log(self, severity, msg):
        self.messages.append((severity, msg))


def _small_network(builder):
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (1, 4))
    y = network.add_activation(x, kiln.ActivationType.RELU)
    network.mark_output(y.get_output(0))
    return network


def test_python_logger_receives_messages():
    recorder = Recorder()
    builder = kiln.Builder(recorder)
    assert builder.logger is recorder
    build_plan(builder, _small_network(builder))
    assert recorder.messages, "the build logs at least its summary"
    severities = {severity for severity, _ in recorder.messages}
    assert severities <= set(kiln.ILogger.Severity.__members__.values())
    assert all(isinstance(msg, str) for _, msg in recorder.messages)


def test_logger_error_messages_reach_python():
    recorder = Recorder()
    runtime = kiln.Runtime(recorder)
    assert runtime.deserialize_cuda_engine(b"not a plan") is None
    assert any(severity <= kiln.ILogger.ERROR for severity, _ in recorder.messages)


def test_exception_in_log_is_reported_not_raised(capfd):
    class Raising(kiln.ILogger):
        def __init__(self):
            kiln.ILogger.__init__(self)

        def log(self, severity, msg):
            raise RuntimeError("logger failed")

    runtime = kiln.Runtime(Raising())
    assert runtime.deserialize_cuda_engine(b"garbage") is None
    assert "[ERROR] Exception caught in log(): " in capfd.readouterr().err


def test_builtin_logger_prints_tensorrt_format(capfd):
    logger = kiln.Logger(kiln.Logger.VERBOSE)
    logger.log(kiln.Logger.WARNING, "hello")
    logger.log(kiln.Logger.VERBOSE, "detail")
    out = capfd.readouterr().out
    assert re.search(r"^\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\] \[TRT\] \[W\] hello$", out, re.M)
    assert "[TRT] [V] detail" in out
    quiet = kiln.Logger(kiln.Logger.ERROR)
    quiet.log(kiln.Logger.INFO, "hidden")
    assert "hidden" not in capfd.readouterr().out
    quiet.min_severity = kiln.Logger.INFO
    assert quiet.min_severity == kiln.Logger.INFO


def test_builder_keeps_python_logger_alive():
    builder = kiln.Builder(Recorder())
    import gc

    gc.collect()
    network = _small_network(builder)
    assert builder.build_serialized_network(network, builder.create_builder_config()) is not None
    assert isinstance(builder.logger, Recorder)
