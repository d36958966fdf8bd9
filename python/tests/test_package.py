# SPDX-License-Identifier: Apache-2.0
"""The package: the tensorrt alias, versions, module-level names, enums and the patches TensorRT applies in
Python."""

import warnings

import numpy as np
import pytest

import kiln


def test_tensorrt_alias_reexports_kiln():
    import tensorrt as trt

    assert trt.Builder is kiln.Builder
    assert trt.DataType.FLOAT is kiln.DataType.FLOAT
    assert trt.float32 == trt.DataType.FLOAT
    assert not hasattr(trt, "run"), "kiln.run is kiln's own helper, not part of tensorrt"


def test_versions():
    import tensorrt as trt

    assert trt.__version__ == "10.16.0.72"
    assert tuple(int(p) for p in trt.__version__.split(".")) >= (10, 1)
    assert kiln.tensorrt_version == trt.__version__
    assert kiln.__version__.count(".") == 2


def test_enum_members_follow_tensorrt():
    assert list(kiln.DataType.__members__) == [
        "FLOAT", "HALF", "BF16", "INT8", "INT32", "INT64", "BOOL", "UINT8", "FP8", "INT4", "FP4", "E8M0"]
    assert list(kiln.TensorIOMode.__members__) == ["NONE", "INPUT", "OUTPUT"]
    assert kiln.LayerType.KV_CACHE_UPDATE.name == "KV_CACHE_UPDATE"
    assert kiln.ProfilingVerbosity.DETAILED.value == 2
    assert kiln.BuilderFlag.WEIGHTLESS.value == kiln.BuilderFlag.STRIP_PLAN.value == 19
    assert int(kiln.ActivationType.SIGMOID) == 1
    for enum in (kiln.BuilderFlag, kiln.NetworkDefinitionCreationFlag, kiln.MemoryPoolType, kiln.TacticSource,
                 kiln.PreviewFeature, kiln.QuantizationFlag):
        assert len(enum.__members__) > 0
    for name in ("ElementWiseOperation", "UnaryOperation", "ReduceOperation", "MatrixOperation", "OnnxParserFlag",
                 "TensorFormat", "ErrorCode", "ErrorCodeTRT", "ExecutionContextAllocationStrategy"):
        assert hasattr(kiln, name), name


def test_arithmetic_enums_order_and_convert_to_ints():
    assert kiln.ILogger.Severity.ERROR < kiln.ILogger.Severity.WARNING
    assert int(kiln.ILogger.Severity.VERBOSE) == 4
    assert kiln.ILogger.ERROR is kiln.ILogger.Severity.ERROR
    flags = 1 << int(kiln.NetworkDefinitionCreationFlag.STRONGLY_TYPED)
    assert flags == 2


def test_logger_severity_aliases():
    assert kiln.Logger.Severity is kiln.ILogger.Severity
    assert kiln.Logger.WARNING is kiln.ILogger.Severity.WARNING
    assert kiln.Logger().min_severity == kiln.Logger.WARNING


def test_datatype_itemsize_and_nptype():
    assert kiln.DataType.FLOAT.itemsize == 4
    assert kiln.DataType.INT4.itemsize == 0.5
    assert kiln.DataType.E8M0.itemsize is None
    assert kiln.nptype(kiln.float16) is np.float16
    assert kiln.nptype(kiln.DataType.BOOL) is np.bool_
    with pytest.raises(TypeError):
        kiln.nptype(kiln.DataType.BF16)


def test_volume():
    assert kiln.volume([]) == 1
    assert kiln.volume((2, 3, 4)) == 24
    assert kiln.volume(kiln.Dims([2, 5])) == 10


def test_context_managers_warn_and_return_self(logger):
    with pytest.warns(DeprecationWarning):
        with kiln.Builder(logger) as builder:
            assert isinstance(builder, kiln.Builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ValueError):
            with kiln.Runtime(logger):
                raise ValueError("propagates")
