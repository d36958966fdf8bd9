# SPDX-License-Identifier: Apache-2.0
"""OnnxParserRefitter: refits an engine from an ONNX model's initializers, by the names the parser gave the
engine's weights. TensorRT's sample_weight_stripping builds with BuilderFlag.STRIP_PLAN, then refits the stripped
engine with refit_from_file before running it; the same steps here, on a model written by onnx_bytes."""

import gc
import weakref

import numpy as np
import pytest

import kiln

from onnx_bytes import matmul_add_relu

pytestmark = pytest.mark.skipif(
    not hasattr(kiln, "OnnxParserRefitter"), reason="kiln was built without its ONNX parser"
)

K, M = 64, 48  # weights large enough that a plan without them is smaller than one with them
X = np.linspace(-1, 1, 2 * K, dtype=np.float32).reshape(2, K)


def _weights(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((K, M), dtype=np.float32), rng.standard_normal(M, dtype=np.float32)


def _expected(weights, bias):
    return np.maximum(X @ weights + bias, 0)


def _plans(logger, model):
    """A weight-stripped and a full plan of model, as sample_weight_stripping's build_engines.py makes them."""
    builder = kiln.Builder(logger)
    network = builder.create_network(0)
    parser = kiln.OnnxParser(network, logger)
    assert parser.parse(model)
    config = builder.create_builder_config()
    config.set_flag(kiln.BuilderFlag.STRIP_PLAN)
    config.set_timing_cache(config.create_timing_cache(b""), ignore_mismatch=False)
    stripped = bytes(builder.build_serialized_network(network, config))
    config.flags &= ~(1 << int(kiln.BuilderFlag.STRIP_PLAN))
    assert not config.get_flag(kiln.BuilderFlag.STRIP_PLAN)
    normal = bytes(builder.build_serialized_network(network, config))
    return stripped, normal


def _run(engine):
    context = engine.create_execution_context()
    return kiln.run(engine, {"X": X}, context=context)["Y"]


def test_a_stripped_engine_refitted_from_the_file_runs_as_the_full_one(logger, tmp_path):
    weights, bias = _weights(1)
    path = tmp_path / "model.onnx"
    path.write_bytes(matmul_add_relu(weights, bias, batch=2))
    stripped, normal = _plans(logger, path.read_bytes())
    assert len(stripped) < len(normal)
    runtime = kiln.Runtime(logger)
    full = runtime.deserialize_cuda_engine(normal)
    np.testing.assert_allclose(_run(full), _expected(weights, bias), rtol=1e-5, atol=1e-5)

    engine = runtime.deserialize_cuda_engine(stripped)
    refitter = kiln.Refitter(engine, logger)
    assert sorted(refitter.get_missing_weights()) == ["B", "W"]
    parser_refitter = kiln.OnnxParserRefitter(refitter, logger)
    assert parser_refitter.refit_from_file(str(path)), [
        str(parser_refitter.get_error(i)) for i in range(parser_refitter.num_errors)
    ]
    assert parser_refitter.num_errors == 0
    assert refitter.get_missing_weights() == []
    assert refitter.refit_cuda_engine()  # as the sample does: nothing is left to give, so this succeeds as well
    np.testing.assert_allclose(_run(engine), _expected(weights, bias), rtol=1e-5, atol=1e-5)


def test_refit_from_bytes_gives_new_values(logger):
    old, new = _weights(2), _weights(3)
    builder = kiln.Builder(logger)
    network = builder.create_network(0)
    assert kiln.OnnxParser(network, logger).parse(matmul_add_relu(*old, batch=2))
    config = builder.create_builder_config()
    config.set_flag(kiln.BuilderFlag.REFIT)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(builder.build_serialized_network(network, config))
    np.testing.assert_allclose(_run(engine), _expected(*old), rtol=1e-5, atol=1e-5)

    refitter = kiln.Refitter(engine, logger)
    parser_refitter = kiln.OnnxParserRefitter(refitter=refitter, logger=logger)
    assert parser_refitter.refit_from_bytes(matmul_add_relu(*new, batch=2), path=None)
    np.testing.assert_allclose(_run(engine), _expected(*new), rtol=1e-5, atol=1e-5)

    # The two-step form: read the model, replace one initializer, refit.
    bias = np.full(M, 100, np.float32)
    assert parser_refitter.load_model_proto(matmul_add_relu(*old, batch=2))
    assert parser_refitter.load_initializer("B", bias.ctypes.data, bias.nbytes)
    assert parser_refitter.refit_model_proto()
    np.testing.assert_allclose(_run(engine), _expected(old[0], bias), rtol=1e-5, atol=1e-5)


def test_errors_are_parser_errors(logger):
    weights, bias = _weights(4)
    builder = kiln.Builder(logger)
    network = builder.create_network(0)
    assert kiln.OnnxParser(network, logger).parse(matmul_add_relu(weights, bias, batch=2))
    config = builder.create_builder_config()
    config.set_flag(kiln.BuilderFlag.REFIT)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(builder.build_serialized_network(network, config))
    refitter = kiln.Refitter(engine, logger)
    parser_refitter = kiln.OnnxParserRefitter(refitter, logger)

    assert parser_refitter.refit_from_bytes(b"not a model") is False
    assert parser_refitter.num_errors >= 1
    error = parser_refitter.get_error(0)
    assert isinstance(error, kiln.ParserError)
    assert error.code() == kiln.ErrorCode.MODEL_DESERIALIZE_FAILED
    parser_refitter.clear_errors()
    assert parser_refitter.num_errors == 0

    wrong = matmul_add_relu(np.zeros((K, 2), np.float32), np.zeros(2, np.float32), batch=2)
    assert parser_refitter.refit_from_bytes(wrong) is False
    assert parser_refitter.get_error(0).code() == kiln.ErrorCode.REFIT_FAILED
    assert "'W'" in parser_refitter.get_error(0).desc()
    # B fitted and was given before W was refused; it is withdrawn, since its values lived in the model's bytes.
    assert refitter.get_named_weights("B").size == 0
    assert refitter.refit_cuda_engine()
    np.testing.assert_allclose(_run(engine), _expected(weights, bias), rtol=1e-5, atol=1e-5)  # unchanged

    assert parser_refitter.refit_from_file("/nonexistent/model.onnx") is False
    assert parser_refitter.num_errors >= 1


def test_the_parser_refitter_keeps_its_refitter(logger):
    weights, bias = _weights(5)
    builder = kiln.Builder(logger)
    network = builder.create_network(0)
    assert kiln.OnnxParser(network, logger).parse(matmul_add_relu(weights, bias, batch=2))
    config = builder.create_builder_config()
    config.set_flag(kiln.BuilderFlag.REFIT)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(builder.build_serialized_network(network, config))
    refitter = kiln.Refitter(engine, logger)
    parser_refitter = kiln.OnnxParserRefitter(refitter, logger)
    alive = weakref.ref(refitter)
    del refitter
    gc.collect()
    assert alive() is not None
    new = _weights(6)
    assert parser_refitter.refit_from_bytes(matmul_add_relu(*new, batch=2))
    np.testing.assert_allclose(_run(engine), _expected(*new), rtol=1e-5, atol=1e-5)
    del parser_refitter
    gc.collect()
    assert alive() is None
