# SPDX-License-Identifier: Apache-2.0
"""A few ONNX models written as protobuf bytes by hand, so the tests need neither the onnx package nor checked-in
binaries. Only the fields these models use are encoded (onnx.proto: ModelProto, GraphProto, NodeProto,
TensorProto, ValueInfoProto)."""

from __future__ import annotations

import struct

FLOAT = 1  # TensorProto.DataType.FLOAT


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, value) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    if isinstance(value, str):
        value = value.encode()
    return _varint(number << 3 | 2) + _varint(len(value)) + bytes(value)


def tensor(name: str, dims, values) -> bytes:
    """A FLOAT TensorProto with raw_data."""
    body = b"".join(_field(1, d) for d in dims) + _field(2, FLOAT) + _field(8, name)
    return body + _field(9, struct.pack(f"<{len(values)}f", *values))


def value_info(name: str, dims) -> bytes:
    shape = b"".join(_field(1, _field(1, d) if isinstance(d, int) else _field(2, d)) for d in dims)
    tensor_type = _field(1, FLOAT) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor_type))


def attribute(name: str, value) -> bytes:
    """An AttributeProto: a float (FLOAT), an int (INT) or a str (STRING)."""
    if isinstance(value, float):
        return _field(1, name) + _varint(2 << 3 | 5) + struct.pack("<f", value) + _field(20, 1)
    if isinstance(value, int):
        return _field(1, name) + _field(3, value) + _field(20, 2)
    return _field(1, name) + _field(4, value) + _field(20, 3)


def node(op_type: str, inputs, outputs, name: str = "", domain: str = "", attributes=()) -> bytes:
    """A NodeProto; attributes are attribute() bytes."""
    body = b"".join(_field(1, i) for i in inputs) + b"".join(_field(2, o) for o in outputs)
    body += _field(3, name or op_type) + _field(4, op_type)
    body += b"".join(_field(5, a) for a in attributes)
    return body + (_field(7, domain) if domain else b"")


def model(nodes, inputs, outputs, initializers=(), opset: int = 17, domains=()) -> bytes:
    """A ModelProto importing the default domain at opset and each of domains (custom ops' domains) at version 1."""
    graph = b"".join(_field(1, n) for n in nodes) + _field(2, "g")
    graph += b"".join(_field(5, t) for t in initializers)
    graph += b"".join(_field(11, v) for v in inputs) + b"".join(_field(12, v) for v in outputs)
    opset_ids = _field(8, _field(1, "") + _field(2, opset))
    opset_ids += b"".join(_field(8, _field(1, domain) + _field(2, 1)) for domain in domains)
    return _field(1, 8) + opset_ids + _field(7, graph)


def matmul_add_relu(weights, bias, batch="N") -> bytes:
    """Y = Relu(X @ W + B) with X of shape [batch, K], W [K, M], B [M]."""
    k, m = weights.shape
    return model(
        nodes=[node("MatMul", ["X", "W"], ["XW"]), node("Add", ["XW", "B"], ["S"]), node("Relu", ["S"], ["Y"])],
        inputs=[value_info("X", [batch, k])],
        outputs=[value_info("Y", [batch, m])],
        initializers=[tensor("W", [k, m], weights.ravel().tolist()), tensor("B", [m], bias.ravel().tolist())],
    )


def relu(batch="N", width: int = 4) -> bytes:
    """Y = Relu(X), X of shape [batch, width]."""
    return model([node("Relu", ["X"], ["Y"])], [value_info("X", [batch, width])], [value_info("Y", [batch, width])])


def custom_op(domain: str = "kiln.test.unknown", op_type: str = "NoSuchOp") -> bytes:
    """Y = op_type(Relu(X)) with X of shape [1, 4]: a node of a domain no runtime knows."""
    nodes = [node("Relu", ["X"], ["T"]), node(op_type, ["T"], ["Y"], domain=domain)]
    return model(nodes, [value_info("X", [1, 4])], [value_info("Y", [1, 4])], domains=[domain])
