# SPDX-License-Identifier: Apache-2.0
"""DLPack export of tensorrt.plugin's Tensor (kiln/plugin/_dlpack.py, python/src/plugin_dlpack.cpp), checked without
a GPU: device Tensors over made-up addresses export capsules that are decoded here with ctypes (device, type, shape,
strides, version, the rename rule, the deleter and the reference it holds), the CUDA driver replaced by a recorder for
the stream synchronization; host Tensors round-trip through numpy.from_dlpack and, when installed, torch.from_dlpack.
The GPU run (torch.from_dlpack in an @impl, in place) is test_plugin_dlpack_gpu.py."""

import ctypes
import gc
import sys
import types
import weakref

import numpy as np
import pytest

import kiln as trt
from kiln.plugin import _cuda, _dlpack
from kiln.plugin._tensor import Tensor


# ---- the DLPack ABI (dlpack.h 1.1), written out again here to decode what kiln's extension wrote -------------------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))
USED = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}  # alive: the names stay


def managed_of(capsule):
    """The DLManagedTensor(Versioned) inside capsule, by its name."""
    name = capsule_name(capsule)
    kind = DLManagedTensorVersioned if name == b"dltensor_versioned" else DLManagedTensor
    return kind.from_address(capsule_pointer(capsule, name))


def decode(capsule):
    """What a consumer reads: a dict of the capsule's fields."""
    managed = managed_of(capsule)
    t = managed.dl_tensor
    out = {"name": capsule_name(capsule).decode(), "data": t.data, "device": (t.device.device_type, t.device.device_id),
           "dtype": (t.dtype.code, t.dtype.bits, t.dtype.lanes), "shape": tuple(t.shape[i] for i in range(t.ndim)),
           "strides": tuple(t.strides[i] for i in range(t.ndim)), "byte_offset": t.byte_offset}
    if isinstance(managed, DLManagedTensorVersioned):
        out["version"], out["flags"] = (managed.version.major, managed.version.minor), managed.flags
    return out


def consume(capsule):
    """Does what a consumer does: renames the capsule and keeps the struct; returns the deleter to call when done."""
    name = capsule_name(capsule)
    managed = managed_of(capsule)
    assert capsule_set_name(capsule, USED[name]) == 0
    return lambda: managed.deleter(ctypes.addressof(managed))


class RecordingDriver:
    """Stands in for the CUDA driver (kiln/plugin/_cuda.py): records what DLPack export asks of it."""

    def __init__(self, ordinal=0):
        self.ordinal = ordinal
        self.calls = []

    def device_of(self, address):
        self.calls.append(("device_of", address))
        return self.ordinal

    def wait(self, consumer, producer, address):
        self.calls.append(("wait", consumer, producer, address))


@pytest.fixture
def driver(monkeypatch):
    fake = RecordingDriver()
    monkeypatch.setattr(_cuda, "driver", lambda: fake)
    return fake


ADDRESS = 0x7F00_0000_1000


def device_tensor(dtype=trt.float32, shape=(2, 3, 4), fmt=None, stream=5, device=3):
    return Tensor(ADDRESS, dtype, shape, fmt, _stream=stream, _device=device)


# ---- the capsule -----------------------------------------------------------------------------------------------------
def test_a_device_tensor_exports_a_legacy_capsule_over_its_address(driver):
    t = device_tensor()
    assert t.__dlpack_device__() == (2, 3)
    fields = decode(t.__dlpack__(stream=5))
    assert fields == {"name": "dltensor", "data": ADDRESS, "device": (2, 3), "dtype": (2, 32, 1), "shape": (2, 3, 4),
                      "strides": (12, 4, 1), "byte_offset": 0}
    assert driver.calls == [], "the consumer's stream is the plugin's: nothing to wait for"
    scalar = decode(device_tensor(shape=()).__dlpack__(stream=-1))
    assert scalar["shape"] == () and scalar["strides"] == ()


@pytest.mark.parametrize("max_version, version", [((1, 0), (1, 0)), ((1, 1), (1, 1)), ((1, 7), (1, 1)),
                                                  ((2, 0), (1, 1)), ((0, 8), None)])
def test_max_version_chooses_the_capsule(driver, max_version, version):
    fields = decode(device_tensor(dtype=trt.float16).__dlpack__(stream=5, max_version=max_version))
    if version is None:
        assert fields["name"] == "dltensor" and "version" not in fields
    else:
        assert fields["name"] == "dltensor_versioned" and fields["version"] == version
        assert fields["flags"] == 0, "never read-only: TensorRT does not enforce its inputs' read-only mark"
    assert fields["dtype"] == (2, 16, 1) and fields["strides"] == (12, 4, 1)


EXPECTED_TYPES = {"FLOAT": (2, 32), "HALF": (2, 16), "BF16": (4, 16), "INT8": (0, 8), "INT32": (0, 32),
                  "INT64": (0, 64), "BOOL": (6, 8), "UINT8": (1, 8), "FP8": (10, 8), "E8M0": (14, 8), "INT4": (0, 4),
                  "FP4": (17, 4)}


def test_every_data_type_has_a_row():
    assert set(_dlpack.DL_TYPES) == set(trt.DataType.__members__) == set(EXPECTED_TYPES)


@pytest.mark.parametrize("name", list(EXPECTED_TYPES))
def test_each_data_type_exports_its_dlpack_type(driver, name):
    dtype = getattr(trt.DataType, name)
    fields = decode(device_tensor(dtype=dtype, shape=(4, 2)).__dlpack__(stream=5, max_version=(1, 1)))
    assert fields["dtype"] == EXPECTED_TYPES[name] + (1,)
    assert fields["strides"] == (2, 1), "strides count elements, also of the packed 4-bit types"
    if name in ("FP8", "E8M0", "INT4", "FP4"):  # codes (and sub-byte packing) DLPack 1.1 defines
        for max_version in (None, (1, 0)):
            with pytest.raises(BufferError, match=f"{name}.*only since DLPack 1.1.*max_version=\\(1, 1\\)"):
                device_tensor(dtype=dtype).__dlpack__(stream=5, max_version=max_version)
    else:
        assert decode(device_tensor(dtype=dtype).__dlpack__(stream=5))["dtype"] == EXPECTED_TYPES[name] + (1,)


def test_channels_last_formats_export_their_strides(driver):
    f = trt.TensorFormat
    cases = [(f.HWC, (2, 3, 4, 5), (60, 1, 15, 3)),
             (f.HWC8, (2, 3, 4, 5), (160, 1, 40, 8)),  # 3 channels padded to 8
             (f.HWC16, (17, 3, 2), (1, 64, 32)),  # 17 channels padded to 32; rank 3
             (f.DHWC, (1, 2, 3, 4, 5), (120, 1, 40, 10, 2)),
             (f.DHWC8, (1, 2, 3, 4, 5), (480, 1, 160, 40, 8))]
    for fmt, shape, strides in cases:
        t = device_tensor(dtype=trt.float16, shape=shape, fmt=fmt)
        assert decode(t.__dlpack__(stream=5))["strides"] == strides, fmt
        assert tuple(t.strides) == strides
        assert t.__cuda_array_interface__["strides"] == tuple(2 * s for s in strides)
    with pytest.raises(BufferError, match="CHW32, whose layout strides cannot describe"):
        device_tensor(fmt=f.CHW32).__dlpack__(stream=5)
    with pytest.raises(BufferError, match="HWC, whose layout strides"):
        device_tensor(shape=(4, 5), fmt=f.HWC).__dlpack__(stream=5)  # HWC needs a rank of 3 at least
    with pytest.raises(ValueError, match="CHW4, whose layout strides"):
        device_tensor(dtype=trt.int8, shape=(1, 4, 2, 2), fmt=f.CHW4).__cuda_array_interface__
    assert tuple(device_tensor(fmt=f.CHW32).strides) == (12, 4, 1), "row-major where strides cannot say"


def test_the_capsule_holds_the_tensor_until_it_is_destroyed_unconsumed(driver):
    t = device_tensor()
    before = sys.getrefcount(t)
    capsule = t.__dlpack__(stream=-1)
    assert sys.getrefcount(t) == before + 1
    del capsule
    assert sys.getrefcount(t) == before, "the capsule's destructor ran the deleter, once"
    alive = weakref.ref(t)
    capsule = t.__dlpack__(stream=-1, max_version=(1, 0))
    del t
    gc.collect()
    assert alive() is not None, "the capsule keeps the Tensor"
    del capsule
    assert alive() is None


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_a_consumed_capsule_leaves_the_tensor_to_the_consumers_deleter(driver, max_version):
    t = device_tensor()
    alias = t.aliased((24,))
    alive = weakref.ref(alias)
    before = sys.getrefcount(alias)
    capsule = alias.__dlpack__(stream=-1, max_version=max_version)
    release = consume(capsule)
    assert capsule_name(capsule).startswith(b"used_")
    del capsule  # destroyed under its new name: the destructor leaves the tensor alone
    assert sys.getrefcount(alias) == before + 1
    del alias
    gc.collect()
    assert alive() is not None, "the consumer has not called the deleter yet"
    release()
    assert alive() is None, "the deleter released the Tensor"
    assert t.data_ptr == ADDRESS


def test_a_capsule_freed_while_an_exception_is_raised_keeps_the_exception(driver):
    """The deleter runs C++, not Python: a capsule released in the middle of raising does not lose the exception."""
    t = device_tensor()
    before = sys.getrefcount(t)
    with pytest.raises(TypeError, match="int"):
        list(map(int, [t.__dlpack__(stream=-1)]))  # the capsule dies while int()'s TypeError is pending
    assert sys.getrefcount(t) == before


# ---- streams -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("stream, producer, wait", [
    (None, 5, (1, 5)),  # None on CUDA: the legacy default stream
    (1, 5, (1, 5)),
    (2, 5, (2, 5)),  # the per-thread default stream
    (0x5555_0000, 5, (0x5555_0000, 5)),
    (np.int64(99), 5, (99, 5)),
    (5, 5, None),  # the plugin's own stream
    (-1, 5, None),  # "do not synchronize"
    (1, 0, None),  # the plugin runs on the legacy default stream
    (None, 0, None),
    (2, 0, (2, 1)),
])
def test_the_consumers_stream_waits_for_the_plugins(driver, stream, producer, wait):
    device_tensor(stream=producer).__dlpack__(stream)
    assert driver.calls == ([] if wait is None else [("wait", wait[0], wait[1], ADDRESS)])


def test_bad_streams_are_refused_before_anything_is_done(driver):
    t = device_tensor()
    for stream, error, message in [(0, ValueError, "stream=0 is ambiguous"), (-2, ValueError, "stream=-2 is not"),
                                   ("1", TypeError, "not str"), (True, TypeError, "not bool"),
                                   (1.0, TypeError, "not float")]:
        with pytest.raises(error, match=message):
            t.__dlpack__(stream=stream)
    with pytest.raises(BufferError, match="only since DLPack 1.1"):
        device_tensor(dtype=trt.fp8).__dlpack__(stream=99)
    assert driver.calls == []
    host = Tensor(ADDRESS, trt.float32, (2,), _location="host")
    with pytest.raises(ValueError, match="host memory has no stream; pass None"):
        host.__dlpack__(stream=1)


def test_what_dlpack_cannot_hold_raises_buffer_error(driver):
    t = device_tensor()
    with pytest.raises(BufferError, match=r"data-dependent.*aliased\(shape\)"):
        device_tensor(shape=(-1, 2)).__dlpack__(stream=5)
    with pytest.raises(BufferError, match=r"dl_device=\(1, 0\), but the tensor is on \(2, 3\)"):
        t.__dlpack__(stream=5, dl_device=(1, 0))
    assert decode(t.__dlpack__(stream=5, dl_device=(2, 3), copy=False))["device"] == (2, 3)
    with pytest.raises(BufferError, match="copy=True"):
        t.__dlpack__(stream=5, copy=True)
    with pytest.raises(TypeError, match="max_version must be a"):
        t.__dlpack__(stream=5, max_version=1)


# ---- the device ordinal --------------------------------------------------------------------------------------------
def test_the_device_ordinal_comes_from_the_driver_once(driver):
    driver.ordinal = 1
    t = Tensor(ADDRESS, trt.float32, (2, 2), _stream=5)
    assert t.__dlpack_device__() == (2, 1) and t.__dlpack_device__() == (2, 1)
    assert t.aliased((4,)).__dlpack_device__() == (2, 1)
    assert driver.calls == [("device_of", ADDRESS)]
    assert decode(t.__dlpack__(stream=5))["device"] == (2, 1)


def test_without_the_cuda_driver_the_error_says_so(monkeypatch):
    monkeypatch.setattr(_cuda, "_driver", None)
    monkeypatch.setattr(_cuda, "LIBRARY", "libkiln-no-such-driver.so.1")
    with pytest.raises(RuntimeError, match=r"CUDA driver \(libkiln-no-such-driver.so.1\) could not be loaded"):
        Tensor(ADDRESS, trt.float32, (2,)).__dlpack_device__()
    # A Tensor that knows its device needs the driver only to synchronize streams.
    assert device_tensor().__dlpack__(stream=5) is not None
    with pytest.raises(RuntimeError, match="could not be loaded"):
        device_tensor().__dlpack__(stream=1)


def fake_libcuda(calls, context=0x10, failing=None):
    """A stand-in for libcuda.so.1 that records the calls kiln/plugin/_cuda.py makes; failing names a call that
    returns CUDA_ERROR_INVALID_VALUE (1)."""
    values = {"cuCtxGetCurrent": context, "cuEventCreate": 0xE7, "cuCtxGetDevice": 4}

    def call(name):
        def fn(*args):
            plain = tuple(a._obj.value if hasattr(a, "_obj") else getattr(a, "value", a) for a in args)
            calls.append((name,) + plain)
            if name == "cuGetErrorName":
                args[1]._obj.value = b"CUDA_ERROR_INVALID_VALUE"
            elif name == "cuPointerGetAttribute":
                args[0]._obj.value = {1: 0x20, 9: 2}[args[1]]  # CONTEXT, DEVICE_ORDINAL
            elif name in values:
                args[0]._obj.value = values[name]
            return 1 if name == failing else 0
        return fn

    names = ["cuInit", "cuGetErrorName", "cuPointerGetAttribute", "cuCtxGetCurrent", "cuCtxGetDevice",
             "cuCtxPushCurrent_v2", "cuCtxPopCurrent_v2", "cuEventCreate", "cuEventRecord", "cuEventDestroy_v2",
             "cuStreamWaitEvent"]
    return types.SimpleNamespace(**{name: call(name) for name in names})


def test_the_driver_records_an_event_on_the_plugins_stream_and_waits_for_it_on_the_consumers():
    calls = []
    driver = _cuda.Driver(fake_libcuda(calls))
    assert driver.device_of(ADDRESS) == 2
    driver.wait(0x5555, 7, ADDRESS)
    assert [c[0] for c in calls] == ["cuInit", "cuPointerGetAttribute", "cuCtxGetCurrent", "cuEventCreate",
                                     "cuEventRecord", "cuStreamWaitEvent", "cuEventDestroy_v2"]
    assert calls[1][2:] == (9, ADDRESS) and calls[4][1:] == (0xE7, 7) and calls[5][1:] == (0x5555, 0xE7, 0)
    calls.clear()
    _cuda.Driver(fake_libcuda(calls, context=0)).wait(2, 1, ADDRESS)  # a thread without a current context
    assert [c[0] for c in calls] == ["cuInit", "cuCtxGetCurrent", "cuPointerGetAttribute", "cuCtxPushCurrent_v2",
                                     "cuEventCreate", "cuEventRecord", "cuStreamWaitEvent", "cuEventDestroy_v2",
                                     "cuCtxPopCurrent_v2"]
    assert calls[2][2:] == (1, ADDRESS) and calls[3][1:] == (0x20,), "the context of the memory"
    calls.clear()
    broken = _cuda.Driver(fake_libcuda(calls, failing="cuStreamWaitEvent"))
    with pytest.raises(RuntimeError, match=r"cuStreamWaitEvent\(\) failed: CUDA_ERROR_INVALID_VALUE \(1\)"):
        broken.wait(2, 1, ADDRESS)
    assert calls[-1][0] == "cuEventDestroy_v2", "the event is destroyed on failure too"
    calls.clear()
    unknown = _cuda.Driver(fake_libcuda(calls, failing="cuPointerGetAttribute"))
    assert unknown.device_of(ADDRESS) == 4, "an address the driver does not know: the current context's device"


# ---- host memory: numpy and torch consume the capsule ---------------------------------------------------------------
def host_tensor(array, dtype, read_only=False):
    return Tensor(array.ctypes.data, dtype, array.shape, _location="host", _read_only=read_only, _keep=array)


@pytest.mark.parametrize("dtype, nptype", [(trt.float32, np.float32), (trt.float16, np.float16), (trt.int8, np.int8),
                                           (trt.int32, np.int32), (trt.int64, np.int64), (trt.uint8, np.uint8),
                                           (trt.bool, np.bool_)])
def test_numpy_views_a_host_tensor_through_dlpack(dtype, nptype):
    array = np.arange(6).reshape(2, 3).astype(nptype)
    t = host_tensor(array, dtype)
    assert t.__dlpack_device__() == (1, 0)
    fields = decode(t.__dlpack__())
    assert fields["device"] == (1, 0) and fields["data"] == array.ctypes.data and fields["strides"] == (3, 1)
    alive = weakref.ref(t)
    try:
        view = np.from_dlpack(t)
    except RuntimeError as error:  # numpy 1.24 imports no kDLBool
        if nptype is np.bool_ and "Unsupported dtype" in str(error):
            pytest.skip(f"numpy {np.__version__} does not import DLPack booleans")
        raise
    assert view.dtype == nptype and view.shape == (2, 3) and np.shares_memory(view, array)
    np.testing.assert_array_equal(view, array)
    array[1, 2] = 0 if nptype is np.bool_ else 7  # numpy before 2.0 makes DLPack imports read-only: write the source
    assert view[1, 2] == array[1, 2]
    del t
    gc.collect()
    assert alive() is not None, "numpy's array holds the capsule's reference"
    del view
    gc.collect()
    assert alive() is None, "numpy called the deleter"


def test_torch_views_a_host_tensor_through_dlpack():
    torch = pytest.importorskip("torch")
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    view = torch.from_dlpack(host_tensor(array, trt.float32, read_only=True))
    assert view.dtype == torch.float32 and tuple(view.shape) == (2, 3) and view.device.type == "cpu"
    view.add_(1)
    np.testing.assert_array_equal(array, np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    raw = np.array([0x3F80, 0x4000], np.uint16)  # bfloat16 1.0 and 2.0
    bf16 = torch.from_dlpack(host_tensor(raw, trt.bfloat16))
    assert bf16.dtype == torch.bfloat16 and bf16.tolist() == [1.0, 2.0]
