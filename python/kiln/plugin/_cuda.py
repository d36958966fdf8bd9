# SPDX-License-Identifier: Apache-2.0
"""The few CUDA driver calls that DLPack export of device memory needs (:mod:`._dlpack`): the device an address is
on, and making a consumer's stream wait for the plugin's stream. Through ctypes over ``libcuda.so.1``, loaded at the
first call (kiln's Python module links no CUDA library, and importing ``tensorrt.plugin`` loads none)."""

from __future__ import annotations

import ctypes
from typing import Optional

_CU_POINTER_ATTRIBUTE_CONTEXT = 1
_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
_CU_EVENT_DISABLE_TIMING = 2

LEGACY_STREAM = 1  # CU_STREAM_LEGACY; DLPack says 1 for it too
LIBRARY = "libcuda.so.1"


class Driver:
    """``libcuda.so.1``, initialised. Errors raise ``RuntimeError`` naming the call and the driver's error name."""

    def __init__(self, lib: ctypes.CDLL):
        self._lib = lib
        p = ctypes.c_void_p
        self._fn("cuInit", ctypes.c_uint)
        self._fn("cuGetErrorName", ctypes.c_int, ctypes.POINTER(ctypes.c_char_p))
        self._fn("cuPointerGetAttribute", p, ctypes.c_int, ctypes.c_uint64)
        self._fn("cuCtxGetCurrent", ctypes.POINTER(p))
        self._fn("cuCtxGetDevice", ctypes.POINTER(ctypes.c_int))
        self._fn("cuCtxPushCurrent_v2", p)
        self._fn("cuCtxPopCurrent_v2", ctypes.POINTER(p))
        self._fn("cuEventCreate", ctypes.POINTER(p), ctypes.c_uint)
        self._fn("cuEventRecord", p, p)
        self._fn("cuEventDestroy_v2", p)
        self._fn("cuStreamWaitEvent", p, p, ctypes.c_uint)
        self._call("cuInit", 0)

    def _fn(self, name: str, *argtypes: type) -> None:
        fn = getattr(self._lib, name)
        fn.argtypes, fn.restype = list(argtypes), ctypes.c_int

    def _status(self, name: str, *args: object) -> int:
        return int(getattr(self._lib, name)(*args))

    def _call(self, name: str, *args: object) -> None:
        status = self._status(name, *args)
        if status != 0:
            text = ctypes.c_char_p()
            known = self._lib.cuGetErrorName(status, ctypes.byref(text)) == 0 and text.value
            raise RuntimeError(f"{name}() failed: {text.value.decode() if known else 'CUresult'} ({status})")

    def device_of(self, address: int) -> int:
        """The ordinal of the device that holds address; the current context's device when the driver does not know
        the address."""
        ordinal = ctypes.c_int()
        if self._status("cuPointerGetAttribute", ctypes.byref(ordinal), _CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                        address) == 0:
            return ordinal.value
        self._call("cuCtxGetDevice", ctypes.byref(ordinal))
        return ordinal.value

    def wait(self, consumer: int, producer: int, address: int) -> None:
        """Makes stream consumer wait for the work queued so far on stream producer (an event recorded on producer,
        waited for on consumer). In the current context, or, on a thread without one, in the context of the memory at
        address."""
        context = ctypes.c_void_p()
        self._call("cuCtxGetCurrent", ctypes.byref(context))
        pushed = False
        if not context.value:
            self._call("cuPointerGetAttribute", ctypes.byref(context), _CU_POINTER_ATTRIBUTE_CONTEXT, address)
            self._call("cuCtxPushCurrent_v2", context)
            pushed = True
        try:
            event = ctypes.c_void_p()
            self._call("cuEventCreate", ctypes.byref(event), _CU_EVENT_DISABLE_TIMING)
            try:
                self._call("cuEventRecord", event, ctypes.c_void_p(producer))
                self._call("cuStreamWaitEvent", ctypes.c_void_p(consumer), event, 0)
            finally:
                self._status("cuEventDestroy_v2", event)  # released once the wait is done
        finally:
            if pushed:
                self._status("cuCtxPopCurrent_v2", ctypes.byref(ctypes.c_void_p()))


_driver: Optional[Driver] = None


def driver() -> Driver:
    """The driver, loaded and initialised at the first call; ``RuntimeError`` when it cannot be."""
    global _driver
    if _driver is None:
        try:
            lib = ctypes.CDLL(LIBRARY)
        except OSError as error:
            raise RuntimeError(f"the CUDA driver ({LIBRARY}) could not be loaded: {error}") from None
        _driver = Driver(lib)
    return _driver
