# SPDX-License-Identifier: Apache-2.0
"""The Dims family: construction from sequences, the sequence protocol, comparisons and implicit conversions."""

import numpy as np
import pytest

import kiln


def test_construction_and_sequence_protocol():
    dims = kiln.Dims((1, 3, 224, 224))
    assert len(dims) == 4
    assert dims[0] == 1 and dims[-1] == 224
    assert dims[1:3] == (3, 224)
    assert list(dims) == [1, 3, 224, 224]
    assert tuple(dims) == (1, 3, 224, 224)
    assert str(dims) == "(1, 3, 224, 224)"
    assert repr(kiln.Dims()) == "()"
    assert str(kiln.Dims([3])) == "(3,)"
    assert kiln.Dims.MAX_DIMS == 8
    assert int(np.prod(dims)) == 150528


def test_item_and_slice_assignment():
    dims = kiln.Dims([1, 2, 3])
    dims[-1] = -1
    dims[0:2] = [5, 6]
    assert dims == (5, 6, -1)
    with pytest.raises(IndexError):
        dims[3]
    with pytest.raises(IndexError):
        dims[-4] = 1


def test_comparisons():
    dims = kiln.Dims([2, 3])
    assert dims == (2, 3) and dims == [2, 3]
    assert dims != (3, 2)
    assert dims == kiln.Dims([2, 3])
    with pytest.raises(TypeError):
        hash(dims)


def test_fixed_rank_classes():
    assert kiln.Dims2(3, 4) == (3, 4)
    assert kiln.Dims3([1, 2, 3]) == (1, 2, 3)
    assert kiln.Dims4(1, 2, 3, 4) == (1, 2, 3, 4)
    hw = kiln.DimsHW(5, 6)
    assert (hw.h, hw.w) == (5, 6)
    assert isinstance(hw, kiln.Dims2) and isinstance(hw, kiln.Dims)
    with pytest.raises(ValueError):
        kiln.Dims3([1, 2])
    with pytest.raises(ValueError):
        kiln.Dims(range(9))


def test_implicit_conversion_from_sequences(logger):
    network = kiln.Builder(logger).create_network()
    for shape in ((1, 2), [1, 2], range(1, 3), np.array([1, 2]), kiln.Dims2(1, 2)):
        tensor = network.add_input(f"x{len(list(network.get_input(i) for i in range(network.num_inputs)))}",
                                   kiln.float32, shape)
        assert isinstance(tensor.shape, kiln.Dims)
        assert tensor.shape == (1, 2)
    with pytest.raises(TypeError):
        network.add_input("bad", kiln.float32, "12")
