# SPDX-License-Identifier: Apache-2.0
"""IGpuAllocator, IGpuAsyncAllocator, IErrorRecorder and IDebugListener implemented in Python: C++ reaches the Python
methods through the trampolines (the bound base methods are the C++ ones, so calling them on a subclass goes through
C++), the objects that take them keep them alive, and an exception in a callback is reported through the logger and
becomes the failure value without reaching C++ or the caller."""

import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import kiln


class Messages(kiln.ILogger):
    """A logger that keeps what it is told."""

    def __init__(self):
        kiln.ILogger.__init__(self)
        self.messages = []

    def log(self, severity, msg):
        self.messages.append((severity, msg))

    def text(self):
        return "\n".join(msg for _, msg in self.messages)


@pytest.fixture
def messages():
    """A Python logger that is libkiln's current one (the logger of the latest runtime), so callback reports land in
    it."""
    logger = Messages()
    runtime = kiln.Runtime(logger)
    yield logger
    del runtime


class HostAllocator(kiln.IGpuAllocator):
    """Host memory from numpy, standing in for device memory."""

    def __init__(self):
        kiln.IGpuAllocator.__init__(self)
        self.blocks, self.calls = {}, []

    def allocate(self, size, alignment, flags):
        self.calls.append(("allocate", size, alignment, flags))
        block = np.empty(size + alignment, np.uint8)
        self.blocks[block.ctypes.data] = block
        return block.ctypes.data

    def deallocate(self, memory):
        self.calls.append(("deallocate", memory))
        return self.blocks.pop(memory, None) is not None


def test_gpu_allocator_methods_reach_python_through_cpp():
    allocator = HostAllocator()
    address = kiln.IGpuAllocator.allocate(allocator, 64, 16, 0)
    assert address in allocator.blocks
    # The C++ allocateAsync of a plain IGpuAllocator is the header's: it calls allocate.
    second = kiln.IGpuAllocator.allocate_async(allocator, 32, 8, 0, 0)
    assert second in allocator.blocks
    assert allocator.calls[:2] == [("allocate", 64, 16, 0), ("allocate", 32, 8, 0)]
    assert kiln.IGpuAllocator.deallocate_async(allocator, address, 0) is True
    assert kiln.IGpuAllocator.deallocate(allocator, second) is True
    assert kiln.IGpuAllocator.deallocate(allocator, second) is False
    # reallocate is optional: without it C++ gets nullptr (not supported).
    assert kiln.IGpuAllocator.reallocate(allocator, 0, 16, 128) == 0


def test_gpu_allocator_failures_become_null(messages):
    class Failing(kiln.IGpuAllocator):
        def __init__(self):
            kiln.IGpuAllocator.__init__(self)

        def allocate(self, size, alignment, flags):
            raise MemoryError("out of host memory")

        def deallocate(self, memory):
            return "not a bool"

    class NotAnInt(kiln.IGpuAllocator):
        def __init__(self):
            kiln.IGpuAllocator.__init__(self)

        def allocate(self, size, alignment, flags):
            return "address"

    assert kiln.IGpuAllocator.allocate(Failing(), 16, 8, 0) == 0
    assert "Exception caught in allocate(): MemoryError: out of host memory" in messages.text()
    assert kiln.IGpuAllocator.allocate(NotAnInt(), 16, 8, 0) == 0
    assert "Return value of allocate() could not be interpreted as an int" in messages.text()
    # deallocate is required: a missing one is reported and fails.
    assert kiln.IGpuAllocator.deallocate(NotAnInt(), 1234) is False
    assert "Method: deallocate was not overriden." in messages.text()
    assert all(severity == kiln.ILogger.ERROR for severity, _ in messages.messages)


def test_gpu_async_allocator_gets_tensorrts_argument_order():
    class Async(kiln.IGpuAsyncAllocator):
        def __init__(self):
            kiln.IGpuAsyncAllocator.__init__(self)
            self.calls = []

        def allocate_async(self, size, alignment, stream, flags):
            self.calls.append(("allocate_async", size, alignment, stream, flags))
            return 4096

        def deallocate_async(self, memory, stream):
            self.calls.append(("deallocate_async", memory, stream))
            return True

    allocator = Async()
    assert isinstance(allocator, kiln.IGpuAllocator)
    assert kiln.IGpuAllocator.allocate_async(allocator, 100, 256, 1, 77) == 4096
    # The deprecated synchronous forms forward to the stream-ordered ones on stream 0.
    assert kiln.IGpuAllocator.allocate(allocator, 10, 8, 0) == 4096
    assert kiln.IGpuAllocator.deallocate(allocator, 4096) is True
    assert allocator.calls == [
        ("allocate_async", 100, 256, 77, 1),
        ("allocate_async", 10, 8, 0, 0),
        ("deallocate_async", 4096, 0),
    ]


def test_gpu_allocator_is_kept_by_its_owners(logger):
    runtime = kiln.Runtime(logger)
    builder = kiln.Builder(logger)
    allocator = HostAllocator()
    alive = weakref.ref(allocator)
    runtime.gpu_allocator = allocator
    builder.gpu_allocator = allocator
    del allocator
    gc.collect()
    assert alive() is not None, "the runtime and the builder keep the allocator"
    with pytest.raises(AttributeError):
        runtime.gpu_allocator  # write-only, as in TensorRT
    runtime.gpu_allocator = None
    del builder
    gc.collect()
    assert alive() is None, "setting None releases it"


def _engine(logger):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    relu = network.add_activation(x, kiln.ActivationType.RELU)
    relu.get_output(0).name = "y"
    network.mark_output(relu.get_output(0))
    plan = builder.build_serialized_network(network, builder.create_builder_config())
    return kiln.Runtime(logger).deserialize_cuda_engine(plan)


def test_context_temporary_allocator_round_trips(logger):
    context = _engine(logger).create_execution_context()
    allocator = HostAllocator()
    context.temporary_allocator = allocator
    assert context.temporary_allocator is allocator
    context.temporary_allocator = None
    assert context.temporary_allocator is None


class Recorder(kiln.IErrorRecorder):
    def __init__(self):
        kiln.IErrorRecorder.__init__(self)
        self.errors = []

    def get_num_errors(self):
        return len(self.errors)

    def get_error_code(self, index):
        return self.errors[index][0]

    def get_error_desc(self, index):
        return self.errors[index][1]

    def has_overflowed(self):
        return False

    def clear(self):
        self.errors.clear()

    def report_error(self, val, desc):
        self.errors.append((val, desc))
        return False


def test_error_recorder_receives_runtime_errors(logger):
    runtime = kiln.Runtime(logger)
    runtime.error_recorder = Recorder()
    gc.collect()
    recorder = runtime.error_recorder
    assert isinstance(recorder, Recorder), "the runtime keeps the Python recorder and gives the same object back"
    assert runtime.deserialize_cuda_engine(b"not a plan") is None
    assert recorder.errors, "the error reached report_error"
    code, desc = recorder.errors[0]
    assert isinstance(code, kiln.ErrorCodeTRT)
    assert isinstance(desc, str) and len(desc) <= kiln.IErrorRecorder.MAX_DESC_LENGTH
    # The bound methods are the C++ ones: they reach the Python methods through the trampoline.
    assert kiln.IErrorRecorder.num_errors(recorder) == len(recorder.errors)
    assert kiln.IErrorRecorder.get_error_code(recorder, 0) == code
    assert kiln.IErrorRecorder.get_error_desc(recorder, 0) == desc
    kiln.IErrorRecorder.clear(recorder)
    assert recorder.errors == []


def test_error_recorder_and_logger_get_their_arguments_with_the_gil_held():
    # deserialize_cuda_engine lets the GIL go while C++ loads the plan; the error reaches the Python recorder and logger
    # through trampolines that take it back, and their arguments must become Python objects only then. Python's debug
    # allocator aborts on an allocation without the GIL on every version (with its normal allocator 3.12 segfaulted
    # and 3.11 did not notice: issue 18, the recorder's description made before the GIL was taken).
    script = textwrap.dedent("""
        import kiln

        class Logger(kiln.ILogger):
            def __init__(self):
                kiln.ILogger.__init__(self)
                self.messages = []

            def log(self, severity, msg):
                self.messages.append(msg)

        class Recorder(kiln.IErrorRecorder):
            def __init__(self):
                kiln.IErrorRecorder.__init__(self)
                self.errors = []

            def report_error(self, val, desc):
                self.errors.append(desc)
                return False

        logger = Logger()
        runtime = kiln.Runtime(logger)
        runtime.error_recorder = Recorder()
        assert runtime.deserialize_cuda_engine(b"not a plan") is None
        print(len(runtime.error_recorder.errors), len(logger.messages))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONMALLOC="debug", KILN_BACKEND="host"))
    assert done.returncode == 0, f"exit status {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    errors, messages = (int(count) for count in done.stdout.split())
    assert errors >= 1 and messages >= 1, done.stdout


def test_error_recorder_on_builder_network_engine_and_context(logger):
    builder = kiln.Builder(logger)
    recorder = Recorder()
    builder.error_recorder = recorder
    network = builder.create_network()
    network.error_recorder = recorder
    assert builder.error_recorder is recorder and network.error_recorder is recorder
    engine = _engine(logger)
    engine.error_recorder = recorder
    context = engine.create_execution_context()
    context.error_recorder = recorder
    assert engine.error_recorder is recorder and context.error_recorder is recorder
    assert context.set_input_shape("no such tensor", (1,)) is False
    assert recorder.errors, "the context reported the unknown tensor to the recorder"
    context.error_recorder = None
    assert context.error_recorder is None


def test_exception_in_report_error_is_reported_not_raised(logger, messages):
    class Raising(Recorder):
        def report_error(self, val, desc):
            raise ValueError("recorder broke")

    runtime = kiln.Runtime(messages)
    runtime.error_recorder = Raising()
    assert runtime.deserialize_cuda_engine(b"garbage") is None
    assert "Exception caught in report_error(): ValueError: recorder broke" in messages.text()


def test_error_recorder_missing_methods_give_failure_values(messages):
    class Bare(kiln.IErrorRecorder):
        def __init__(self):
            kiln.IErrorRecorder.__init__(self)

    bare = Bare()
    assert kiln.IErrorRecorder.num_errors(bare) == -1
    assert kiln.IErrorRecorder.get_error_desc(bare, 0) is None
    assert kiln.IErrorRecorder.report_error(bare, kiln.ErrorCodeTRT.INTERNAL_ERROR, "x") is False
    assert "Method: get_num_errors was not overriden." in messages.text()


class Listener(kiln.IDebugListener):
    def __init__(self):
        kiln.IDebugListener.__init__(self)
        self.tensors = []

    def process_debug_tensor(self, addr, location, type, shape, name, stream):
        self.tensors.append((addr, location, type, tuple(shape), name, stream))


def test_debug_listener_is_kept_and_reached_through_cpp(logger):
    context = _engine(logger).create_execution_context()
    assert context.set_debug_listener(Listener()) is True  # Polygraphy aborts unless this is truthy
    gc.collect()
    listener = context.get_debug_listener()
    assert isinstance(listener, Listener)
    assert context.set_all_tensors_debug_state(True) is True
    data = np.arange(6, dtype=np.float32)
    assert kiln.IDebugListener.process_debug_tensor(
        listener, data.ctypes.data, kiln.TensorLocation.HOST, kiln.float32, (2, 3), "x", 5
    )
    assert listener.tensors == [(data.ctypes.data, kiln.TensorLocation.HOST, kiln.float32, (2, 3), "x", 5)]


def test_debug_listener_exception_returns_false(messages):
    class Raising(kiln.IDebugListener):
        def __init__(self):
            kiln.IDebugListener.__init__(self)

        def process_debug_tensor(self, addr, location, type, shape, name, stream):
            raise KeyError(name)

    assert (
        kiln.IDebugListener.process_debug_tensor(Raising(), 0, kiln.TensorLocation.HOST, kiln.float32, (1,), "t", 0)
        is False
    )
    assert "Exception caught in process_debug_tensor(): KeyError: 't'" in messages.text()


def test_debug_state_of_a_tensor_not_marked_debug_is_refused(logger):
    context = _engine(logger).create_execution_context()
    assert context.set_tensor_debug_state("y", True) is False
    assert context.get_debug_state("y") is False


def test_subclasses_must_call_base_init():
    for base in (kiln.IGpuAllocator, kiln.IErrorRecorder, kiln.IDebugListener):

        class Forgot(base):
            def __init__(self):
                pass

        with pytest.raises(TypeError):
            Forgot()


def _plan(logger):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    network.mark_output(network.add_unary(x, kiln.UnaryOperation.ABS).get_output(0))
    return bytes(builder.build_serialized_network(network, builder.create_builder_config()))


def test_stream_reader_gives_the_plan(logger):
    class Reader(kiln.IStreamReader):
        def __init__(self, data):
            kiln.IStreamReader.__init__(self)
            self.data, self.sizes = data, []

        def read(self, size):
            self.sizes.append(size)
            chunk, self.data = self.data[:size], self.data[size:]
            return chunk

    plan = _plan(logger)
    reader = Reader(plan)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(reader)
    assert engine is not None and engine.num_io_tensors == 2
    assert sum(reader.sizes) >= len(plan)


def test_stream_reader_v2_reads_in_chunks_and_seeks(logger):
    class ChunkedReader(kiln.IStreamReaderV2):
        def __init__(self, data):
            kiln.IStreamReaderV2.__init__(self)
            self.data, self.position, self.calls = data, 0, []

        def read(self, num_bytes, stream):
            self.calls.append(("read", num_bytes, stream))
            chunk = self.data[self.position : self.position + min(num_bytes, 100)]
            self.position += len(chunk)
            return chunk

        def seek(self, offset, where):
            self.calls.append(("seek", offset, where))
            base = {kiln.SeekPosition.SET: 0, kiln.SeekPosition.CUR: self.position, kiln.SeekPosition.END: len(self.data)}
            self.position = base[where] + offset
            return True

    reader = ChunkedReader(_plan(logger))
    engine = kiln.Runtime(logger).deserialize_cuda_engine(reader)
    assert engine is not None
    assert sum(1 for call in reader.calls if call[0] == "read") > 1, "chunks of 100 bytes were gathered"


def test_stream_reader_exception_fails_the_load(logger, messages):
    class Raising(kiln.IStreamReaderV2):
        def __init__(self):
            kiln.IStreamReaderV2.__init__(self)

        def read(self, num_bytes, stream):
            raise OSError("disk gone")

        def seek(self, offset, where):
            return True

    assert kiln.Runtime(messages).deserialize_cuda_engine(Raising()) is None
    assert "Exception caught in read(): OSError: disk gone" in messages.text()
