# SPDX-License-Identifier: Apache-2.0
"""OnnxParser: parse a model from bytes and from a file (written by onnx_bytes, no onnx package needed), build and
run it on numpy; errors as ParserError records."""

import numpy as np
import pytest

import kiln

from conftest import build_plan
from onnx_bytes import matmul_add_relu

pytestmark = pytest.mark.skipif(not hasattr(kiln, "OnnxParser"), reason="kiln was built without its ONNX parser")


def _parse_and_run(logger, parse, weights, bias, x):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    parser = kiln.OnnxParser(network, logger)
    assert parse(parser), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    assert parser.num_errors == 0
    assert network.num_inputs == 1 and network.get_input(0).name == "X"
    assert network.get_input(0).shape == (-1, weights.shape[0])
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("X", (1, 3), (2, 3), (8, 3))
    config.add_optimization_profile(profile)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))
    return kiln.run(engine, {"X": x})["Y"]


def test_parse_from_bytes_build_and_run(logger, rng):
    weights = rng.standard_normal((3, 5), dtype=np.float32)
    bias = rng.standard_normal(5, dtype=np.float32)
    model = matmul_add_relu(weights, bias)
    x = rng.standard_normal((4, 3), dtype=np.float32)
    y = _parse_and_run(logger, lambda parser: parser.parse(model), weights, bias, x)
    np.testing.assert_allclose(y, np.maximum(x @ weights + bias, 0), rtol=1e-5, atol=1e-6)


def test_parse_from_file(logger, rng, tmp_path):
    weights = rng.standard_normal((3, 2), dtype=np.float32)
    bias = rng.standard_normal(2, dtype=np.float32)
    path = tmp_path / "model.onnx"
    path.write_bytes(matmul_add_relu(weights, bias))
    x = rng.standard_normal((2, 3), dtype=np.float32)
    y = _parse_and_run(logger, lambda parser: parser.parse_from_file(str(path)), weights, bias, x)
    np.testing.assert_allclose(y, np.maximum(x @ weights + bias, 0), rtol=1e-5, atol=1e-6)


def test_parse_errors(logger):
    network = kiln.Builder(logger).create_network()
    parser = kiln.OnnxParser(network, logger)
    assert parser.parse(b"this is not an onnx model") is False
    assert parser.num_errors >= 1
    error = parser.get_error(0)
    assert isinstance(error, kiln.ParserError)
    assert error.code() == kiln.ErrorCode.MODEL_DESERIALIZE_FAILED
    assert isinstance(error.desc(), str) and error.desc()
    assert str(error).startswith("(")
    parser.clear_errors()
    assert parser.num_errors == 0


def test_parser_flags_and_support_queries(logger):
    network = kiln.Builder(logger).create_network()
    parser = kiln.OnnxParser(network, logger)
    parser.set_flag(kiln.OnnxParserFlag.NATIVE_INSTANCENORM)
    assert parser.get_flag(kiln.OnnxParserFlag.NATIVE_INSTANCENORM)
    assert parser.flags & (1 << int(kiln.OnnxParserFlag.NATIVE_INSTANCENORM))
    parser.clear_flag(kiln.OnnxParserFlag.NATIVE_INSTANCENORM)
    assert not parser.get_flag(kiln.OnnxParserFlag.NATIVE_INSTANCENORM)
    assert parser.supports_operator("Relu")
    assert parser.get_used_vc_plugin_libraries() == []
    assert isinstance(kiln.get_nv_onnx_parser_version(), int)
