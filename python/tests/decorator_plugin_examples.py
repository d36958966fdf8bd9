# SPDX-License-Identifier: Apache-2.0
"""Plugins written with the decorator API (tensorrt.plugin) for test_plugin_decorator.py, in a module of their own
so that a second process can import it (which registers them) and load a plan built by the first. All run on kiln's
host backend, where impl receives Tensors over host memory.

* circ_pad: circular padding of the last axes, the output extents computed from the input's (shape expressions).
* add_scalar: y = x + alpha; the attribute tag is used by register only, so the plan does not keep it.
* scale_tactics: y = factor * x with an autotune function that offers FP32 and FP16 and two custom tactics.
* nonzero: the indices of the non-zero elements of a 2-D tensor and their count (a data-dependent output and its
  size tensor).
* add_inplace: x += 1 in place (an output aliased to its input).
* add_inplace_tuned: x += delta in place with the autotune of TensorRT's quickly_deployable_plugins sample
  (elemwise_add_plugin_): FP32 in LINEAR and HWC, FP16 in LINEAR.
* failing: raises ValueError from the function that fail_in names ("register", "autotune" or "impl").
"""

from typing import List, Tuple

import numpy as np
import numpy.typing as npt

import kiln as trt
import kiln.plugin as trtp

NAMESPACE = "kiln_qdp"

CALLS = []  # (plugin, what) for the impl calls, with the tactic where there is one


# ---- circ_pad -----------------------------------------------------------------------------------------------------


@trtp.register("kiln_qdp::circ_pad")
def circ_pad_desc(x: trtp.TensorDesc, pads: npt.NDArray[np.int32]) -> trtp.TensorDesc:
    out = x.like()
    ndim = x.ndim
    for i in range(len(pads) // 2):
        axis = ndim - len(pads) // 2 + i
        out.shape_expr[axis] = x.shape_expr[axis] + int(pads[2 * i] + pads[2 * i + 1])
    return out


@trtp.impl("kiln_qdp::circ_pad")
def circ_pad_impl(x: trtp.Tensor, pads: npt.NDArray[np.int32], outputs: Tuple[trtp.Tensor], stream: int) -> None:
    CALLS.append(("circ_pad", "impl"))
    array = np.asarray(x)  # __array_interface__
    assert not array.flags.writeable, "inputs are read-only"
    width = [(0, 0)] * (array.ndim - len(pads) // 2) + [(int(pads[2 * i]), int(pads[2 * i + 1]))
                                                          for i in range(len(pads) // 2)]
    outputs[0].numpy()[...] = np.pad(array, width, mode="wrap")


def circ_pad_reference(x, pads):
    width = [(0, 0)] * (x.ndim - len(pads) // 2) + [(pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2)]
    return np.pad(x, width, mode="wrap")


# ---- add_scalar ---------------------------------------------------------------------------------------------------


@trtp.register("kiln_qdp::add_scalar")
def add_scalar_desc(x: trtp.TensorDesc, alpha: float, tag: str) -> trtp.TensorDesc:
    assert tag == "only-in-register", tag
    return x.like()


@trtp.impl("kiln_qdp::add_scalar")
def add_scalar_impl(x: trtp.Tensor, alpha: float, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    CALLS.append(("add_scalar", "impl"))
    assert stream == 0 and x.on_host and x.shape == outputs[0].shape
    np.add(x.numpy(), np.float32(alpha), out=outputs[0].numpy())


# ---- scale_tactics ------------------------------------------------------------------------------------------------


@trtp.register("kiln_qdp::scale_tactics")
def scale_tactics_desc(x: trtp.TensorDesc, factor: float) -> trtp.TensorDesc:
    return x.like()


@trtp.autotune("kiln_qdp::scale_tactics")
def scale_tactics_tune(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    assert x.has_shape and len(x.shape) == x.ndim
    return [trtp.AutoTuneCombination("FP32|FP16, FP32|FP16", "LINEAR", [1, 2])]


@trtp.impl("kiln_qdp::scale_tactics")
def scale_tactics_impl(x: trtp.Tensor, factor: float, outputs: Tuple[trtp.Tensor], stream: int,
                       tactic: int) -> None:
    CALLS.append(("scale_tactics", tactic))
    source, target = x.numpy(), outputs[0].numpy()
    if tactic == 1:
        np.multiply(source, source.dtype.type(factor), out=target)
    else:
        for i in range(source.shape[0]):
            target[i] = source[i] * source.dtype.type(factor)


# ---- nonzero ------------------------------------------------------------------------------------------------------


@trtp.register("kiln_qdp::nonzero")
def nonzero_desc(x: trtp.TensorDesc) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
    upper = x.shape_expr.numel()
    count = trtp.size_tensor(upper // 2, upper)
    count.dtype = trt.int64
    return trtp.from_shape_expr((count.expr(), 2), dtype=trt.int32), count


@trtp.impl("kiln_qdp::nonzero")
def nonzero_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    CALLS.append(("nonzero", "impl"))
    indices = np.argwhere(x.numpy() != 0).astype(np.int32)
    assert outputs[0].is_data_dependent and tuple(outputs[0].shape) == (-1, 2)
    outputs[0].aliased(indices.shape).numpy()[...] = indices
    outputs[1].numpy()[...] = len(indices)


# ---- add_inplace --------------------------------------------------------------------------------------------------


@trtp.register("kiln_qdp::add_inplace")
def add_inplace_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.aliased()


@trtp.impl("kiln_qdp::add_inplace")
def add_inplace_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    CALLS.append(("add_inplace", "impl"))
    assert outputs[0].data_ptr == x.data_ptr
    view = x.numpy()  # writable: an output aliases it
    view += 1


# ---- add_inplace_tuned ----------------------------------------------------------------------------------------------


@trtp.register("kiln_qdp::add_inplace_tuned")
def add_inplace_tuned_desc(x: trtp.TensorDesc, delta: int) -> trtp.TensorDesc:
    return x.aliased()


@trtp.autotune("kiln_qdp::add_inplace_tuned")
def add_inplace_tuned_autotune(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    return [
        trtp.AutoTuneCombination("FP32, FP32", "LINEAR*HWC"),
        trtp.AutoTuneCombination("FP32|FP16, FP32|FP16", "LINEAR"),
    ]


@trtp.impl("kiln_qdp::add_inplace_tuned")
def add_inplace_tuned_impl(x: trtp.Tensor, delta: int, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    CALLS.append(("add_inplace_tuned", x.dtype, x.format))
    # The output aliases x (in the engine the same memory; the build times it on buffers of its own).
    assert outputs[0].dtype == x.dtype and outputs[0].format == x.format
    view = x.numpy()
    view += view.dtype.type(delta)


# ---- failing ------------------------------------------------------------------------------------------------------


class Failing:
    fail_in = None

    @staticmethod
    def check(where):
        if Failing.fail_in == where:
            raise ValueError(f"boom in {where}")


@trtp.register("kiln_qdp::failing")
def failing_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    Failing.check("register")
    return x.like()


@trtp.autotune("kiln_qdp::failing")
def failing_tune(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    Failing.check("autotune")
    return [trtp.AutoTuneCombination("FP32, FP32")]


@trtp.impl("kiln_qdp::failing")
def failing_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    Failing.check("impl")
    outputs[0].numpy()[...] = x.numpy()
