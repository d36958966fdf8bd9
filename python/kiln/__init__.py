# SPDX-License-Identifier: Apache-2.0
"""kiln's Python package: TensorRT 10's Python API (``import kiln``, or ``import tensorrt`` through the
``kiln-tensorrt`` compatibility distribution) over kiln's C++ library, plus :func:`kiln.run`, a one-call helper
that runs a host-backend engine on numpy arrays.

The names, arguments, defaults and behaviour follow TensorRT 10.16's ``tensorrt`` module; what kiln binds so far is
listed in docs/python.md.
"""

from __future__ import annotations

import os as _os
import sys as _sys

# The extension and libkiln load with RTLD_GLOBAL, as libnvinfer is loaded in a C++ application: libraries opened later
# resolve symbols against them process-wide. cuDNN's engines do so while a CUDA engine is built (with Python's default
# RTLD_LOCAL, building ResNet-50 on the CUDA backend jumped to a null address), and plugin libraries resolve getLogger
# and getPluginRegistry the same way. What joins the global scope so is libnvinfer's API, the CUDA libraries it links
# and the C++ runtime: the extension exports only its PyInit, and it does not link the ONNX parser, which it opens with
# RTLD_LOCAL on first use (src/libraries.h), so that the parser's libonnx and protobuf never stand in for the copies
# other extensions carry (the onnx wheel crashed in Debian's libprotobuf; issue 18, tests/test_library_scope.py).
# (Loading the extension locally and making only libkiln global was tried on the H200, with a module built with pybind11
# 3.1: importing torch after kiln then aborted in free().)
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _kiln
finally:
    _sys.setdlopenflags(_flags)
from ._kiln import *  # noqa: E402,F401,F403  (the bound classes, enums and functions)

__version__: str = _kiln._kiln_version
"""kiln's own version (``tensorrt.__version__`` is TensorRT's: see :data:`tensorrt_version`)."""

tensorrt_version: str = _kiln._tensorrt_version
"""The TensorRT version kiln is compatible with, in TensorRT's "major.minor.patch.build" form."""

from ._patches import apply as _apply_patches  # noqa: E402
from ._patches import nptype, volume  # noqa: E402,F401

_apply_patches(globals())

from ._host import run  # noqa: E402,F401

from ._add_plugin import install as _install_add_plugin  # noqa: E402

_install_add_plugin()  # INetworkDefinition.add_plugin (tensorrt.plugin's form)
