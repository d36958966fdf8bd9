# SPDX-License-Identifier: Apache-2.0
"""Refitter: new weights by layer and role or by name for an engine built with BuilderFlag.REFIT, the lists of
refittable and missing weights, prototypes, and refusals that return False (the logger says why)."""

import gc
import weakref

import numpy as np
import pytest

import kiln

X = np.zeros((2, 3), np.float32)


def _refittable_engine(logger, refit=True):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    constant = network.add_constant((2, 3), values)
    constant.name = "bias"
    assert network.set_weights_name(values, "bias.values")
    total = network.add_elementwise(x, constant.get_output(0), kiln.ElementWiseOperation.SUM)
    total.get_output(0).name = "y"
    network.mark_output(total.get_output(0))
    config = builder.create_builder_config()
    if refit:
        config.set_flag(kiln.BuilderFlag.REFIT)
    plan = builder.build_serialized_network(network, config)
    return kiln.Runtime(logger).deserialize_cuda_engine(plan)


def test_lists_and_prototype(logger):
    engine = _refittable_engine(logger)
    assert engine.refittable
    refitter = kiln.Refitter(engine, logger)
    assert refitter.get_all() == (["bias"], [kiln.WeightsRole.CONSTANT])
    assert refitter.get_all_weights() == ["bias.values"]
    assert refitter.get_missing() == ([], []) and refitter.get_missing_weights() == []
    prototype = refitter.get_weights_prototype("bias.values")
    assert (prototype.dtype, prototype.size) == (kiln.float32, 6)
    assert refitter.get_weights_prototype("nothing").size == -1
    assert refitter.logger is logger
    assert refitter.weights_validation is True
    refitter.max_threads = 2
    assert refitter.max_threads == 2


def test_refit_by_name_and_by_layer_changes_the_results(logger):
    engine = _refittable_engine(logger)
    refitter = kiln.Refitter(engine, logger)
    assert refitter.set_named_weights("bias.values", np.full(6, 10, np.float32))
    assert refitter.get_named_weights("bias.values").size == 6
    assert refitter.get_weights_location("bias.values") == kiln.TensorLocation.HOST
    assert refitter.refit_cuda_engine()
    np.testing.assert_array_equal(kiln.run(engine, {"x": X})["y"], np.full((2, 3), 10, np.float32))
    assert refitter.set_weights("bias", kiln.WeightsRole.CONSTANT, kiln.Weights(np.ones(6, np.float32)))
    assert refitter.refit_cuda_engine_async(0)
    np.testing.assert_array_equal(kiln.run(engine, {"x": X})["y"], np.ones((2, 3), np.float32))


def test_refitter_keeps_given_weights_engine_and_logger(logger):
    engine = _refittable_engine(logger)
    refitter = kiln.Refitter(engine, logger)
    values = np.full(6, 3, np.float32)
    alive = weakref.ref(values)
    assert refitter.set_named_weights("bias.values", values, kiln.TensorLocation.HOST)
    del values, engine
    gc.collect()
    assert alive() is not None, "the refitter keeps the array until the refit"
    assert refitter.refit_cuda_engine()


def test_refusals_return_false(logger):
    engine = _refittable_engine(logger)
    refitter = kiln.Refitter(engine, logger)
    assert refitter.set_named_weights("bias.values", np.zeros(5, np.float32)) is False
    assert refitter.set_named_weights("no such weights", np.zeros(6, np.float32)) is False
    assert refitter.set_weights("bias", kiln.WeightsRole.KERNEL, np.zeros(6, np.float32)) is False
    assert refitter.unset_named_weights("bias.values") is False
    with pytest.raises(ValueError):
        refitter.set_named_weights("bias.values", np.zeros(6, np.float64))


def test_engine_built_without_refit(logger):
    engine = _refittable_engine(logger, refit=False)
    assert not engine.refittable
    with pytest.raises(RuntimeError):
        kiln.Refitter(engine, logger)


def test_dynamic_range_is_deprecated_and_checked(logger):
    refitter = kiln.Refitter(_refittable_engine(logger), logger)
    with pytest.warns(DeprecationWarning):
        assert refitter.get_tensors_with_dynamic_range() == []
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError):
        refitter.set_dynamic_range("x", [1.0])
