# SPDX-License-Identifier: Apache-2.0
"""INetworkDefinition, ITensor and ILayer: add_* with TensorRT's argument names, concrete layer classes, the
sequence protocol, properties, and None on failure."""

import numpy as np
import pytest

import kiln


@pytest.fixture
def network(logger):
    builder = kiln.Builder(logger)
    net = builder.create_network(0)
    return net


def test_add_layers_return_concrete_classes(network, rng):
    x = network.add_input(name="x", dtype=kiln.float32, shape=(1, 3, 8, 8))
    conv = network.add_convolution_nd(input=x, num_output_maps=4, kernel_shape=(3, 3),
                                      kernel=rng.standard_normal((4, 3, 3, 3), dtype=np.float32),
                                      bias=rng.standard_normal(4, dtype=np.float32))
    assert isinstance(conv, kiln.IConvolutionLayer) and isinstance(conv, kiln.ILayer)
    conv.stride_nd = (2, 2)
    conv.padding_nd = [1, 1]
    assert conv.stride_nd == (2, 2) and conv.padding_nd == (1, 1)
    assert conv.kernel_size_nd == (3, 3) and conv.num_output_maps == 4
    assert conv.kernel.shape == (108,) and conv.bias.shape == (4,)
    act = network.add_activation(conv.get_output(0), kiln.ActivationType.LEAKY_RELU)
    act.alpha = 0.25
    assert isinstance(act, kiln.IActivationLayer) and act.alpha == 0.25 and act.type == kiln.ActivationType.LEAKY_RELU
    shuffle = network.add_shuffle(act.get_output(0))
    shuffle.reshape_dims = (1, -1)
    assert isinstance(shuffle, kiln.IShuffleLayer) and shuffle.reshape_dims == (1, -1)
    reduce = network.add_reduce(shuffle.get_output(0), kiln.ReduceOperation.AVG, axes=1 << 1, keep_dims=True)
    assert isinstance(reduce, kiln.IReduceLayer) and reduce.op == kiln.ReduceOperation.AVG and reduce.axes == 2
    softmax = network.add_softmax(shuffle.get_output(0))
    softmax.axes = 1 << 1
    assert isinstance(softmax, kiln.ISoftMaxLayer)
    concat = network.add_concatenation([reduce.get_output(0), reduce.get_output(0)])
    concat.axis = 1
    assert isinstance(concat, kiln.IConcatenationLayer) and concat.num_inputs == 2
    cast = network.add_cast(concat.get_output(0), kiln.DataType.HALF)
    assert isinstance(cast, kiln.ICastLayer) and cast.get_output(0).dtype == kiln.float16
    unary = network.add_unary(cast.get_output(0), kiln.UnaryOperation.ABS)
    assert isinstance(unary, kiln.IUnaryLayer) and unary.op == kiln.UnaryOperation.ABS
    ident = network.add_identity(unary.get_output(0))
    assert isinstance(ident, kiln.IIdentityLayer)
    assert network.num_layers == 9


def test_get_layer_returns_concrete_class_and_class_reassignment_works(network):
    x = network.add_input("x", kiln.float32, (2, 2))
    network.add_elementwise(x, x, kiln.ElementWiseOperation.SUM)
    layer = network.get_layer(0)
    assert type(layer) is kiln.IElementWiseLayer
    assert layer.type == kiln.LayerType.ELEMENTWISE
    assert layer is network[0], "the same C++ layer comes back as the same Python object"
    layer.__class__ = kiln.ILayer
    layer.__class__ = kiln.IElementWiseLayer
    assert layer.op == kiln.ElementWiseOperation.SUM
    assert "op" in dir(layer)


def test_sequence_protocol(network):
    x = network.add_input("x", kiln.float32, (4,))
    a = network.add_unary(x, kiln.UnaryOperation.EXP)
    b = network.add_unary(a.get_output(0), kiln.UnaryOperation.LOG)
    assert len(network) == 2
    assert [layer.type for layer in network] == [kiln.LayerType.UNARY] * 2
    assert network[-1].name == b.name
    with pytest.raises(IndexError):
        network[2]
    with pytest.raises(IndexError):
        network[-3]


def test_matrix_multiply_and_constant(network, rng):
    x = network.add_input("x", kiln.float32, (2, 3))
    w = network.add_constant((3, 4), rng.standard_normal((3, 4), dtype=np.float32))
    assert isinstance(w, kiln.IConstantLayer) and w.shape == (3, 4)
    mm = network.add_matrix_multiply(x, kiln.MatrixOperation.NONE, w.get_output(0), kiln.MatrixOperation.NONE)
    assert isinstance(mm, kiln.IMatrixMultiplyLayer)
    mm.op1 = kiln.MatrixOperation.TRANSPOSE
    assert mm.op1 == kiln.MatrixOperation.TRANSPOSE and mm.op0 == kiln.MatrixOperation.NONE
    scalar = network.add_constant((), np.array([2.0], np.float32))
    assert len(scalar.get_output(0).shape) == 0


def test_tensor_properties(network):
    x = network.add_input("x", kiln.float32, (1, -1))
    assert x.is_network_input and not x.is_network_output
    assert x.shape == (1, -1) and x.dtype == kiln.float32
    x.name = "renamed"
    assert x.name == "renamed" and network.get_input(0) is x
    y = network.add_identity(x).get_output(0)
    network.mark_output(y)
    assert y.is_network_output and network.num_outputs == 1 and network.get_output(0) is y
    x.set_dimension_name(1, "batch")
    assert x.get_dimension_name(1) == "batch"
    assert {x, y} == {network.get_input(0), network.get_output(0)}, "tensors hash by identity"


def test_layer_properties(network):
    x = network.add_input("x", kiln.float32, (2,))
    layer = network.add_identity(x)
    layer.name = "my_identity"
    layer.metadata = "from test"
    assert (layer.name, layer.metadata) == ("my_identity", "from test")
    assert layer.num_inputs == 1 and layer.num_outputs == 1
    assert layer.get_input(0) is x
    assert layer.get_output(1) is None
    layer.precision = kiln.float16
    assert layer.precision == kiln.float16
    with pytest.warns(DeprecationWarning):
        assert layer.precision_is_set


def test_failures_return_none(network):
    x = network.add_input("x", kiln.float32, (2, 3))
    y = network.add_input("y", kiln.float32, (4, 5, 6))
    assert network.add_elementwise(x, y, kiln.ElementWiseOperation.SUM) is None
    assert network.add_concatenation([]) is None
    assert network.add_input("x", kiln.float32, (2,)) is None


def test_bad_arguments_raise_type_error(network):
    x = network.add_input("x", kiln.float32, (2,))
    with pytest.raises(TypeError):
        network.add_activation(x, "relu")
    with pytest.raises(TypeError, match="inputs"):
        network.add_concatenation([x, None])
