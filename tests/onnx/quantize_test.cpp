// SPDX-License-Identifier: Apache-2.0
// The QuantizeLinear and DequantizeLinear importers through the public API: per-tensor scales (opset 10), per-axis
// scales with positive and negative axes (opset 13), FLOAT8E4M3FN zero points (opset 19), INT4 and blocked
// quantization with output_dtype and block_size (opset 21), weight-only dequantization of INT8 initializers, the layers
// the importer makes, and each refusal with its code and message. Codes are read back through a Cast to FLOAT (the
// harness binds FLOAT outputs).
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

// Element types newer than the libonnx kiln builds with (ONNX 1.14 and 1.16).
constexpr int32_t kFloat8E4M3FN = 17;
constexpr int32_t kInt4 = 22;

::onnx::TensorProto int8Tensor(std::string const& name, Shape const& dims, std::vector<int8_t> const& values)
{
    return rawTensor(name, ::onnx::TensorProto::INT8, dims, values);
}

//! x -> QuantizeLinear(x, scale[, zero]) -> q -> Cast(FLOAT) -> codes; q -> DequantizeLinear(q, scale[, zero]) -> back.
ModelBuilder qdqModel(int64_t opset, Shape const& shape, bool withZero = true)
{
    ModelBuilder m(opset);
    m.input("x", shape);
    std::vector<std::string> inputs{"x", "scale"};
    if (withZero)
    {
        inputs.push_back("zero");
    }
    m.node("QuantizeLinear", inputs, {"q"}, "quantize");
    attrInt(m.node("Cast", {"q"}, {"codes"}, "cast"), "to", ::onnx::TensorProto::FLOAT);
    inputs[0] = "q";
    m.node("DequantizeLinear", inputs, {"back"}, "dequantize");
    m.output("codes");
    m.output("back");
    return m;
}

::onnx::NodeProto& nodeAt(ModelBuilder& m, int index)
{
    return *m.graph().mutable_node(index);
}

TEST(OnnxQuantize, PerTensorInt8Opset10)
{
    ModelBuilder m = qdqModel(10, {6});
    m.initializer(floatTensor("scale", {}, {0.5F}));
    m.initializer(int8Tensor("zero", {}, {0}));
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const quantizers = h.layers(nvinfer1::LayerType::kQUANTIZE);
    ASSERT_EQ(quantizers.size(), 1U);
    auto* q = static_cast<nvinfer1::IQuantizeLayer*>(quantizers.front());
    EXPECT_EQ(q->getToType(), nvinfer1::DataType::kINT8);
    EXPECT_EQ(q->getNbInputs(), 3); // the zero point (zeros) is kept
    auto const dequantizers = h.layers(nvinfer1::LayerType::kDEQUANTIZE);
    ASSERT_EQ(dequantizers.size(), 1U);
    EXPECT_EQ(static_cast<nvinfer1::IDequantizeLayer*>(dequantizers.front())->getToType(), nvinfer1::DataType::kFLOAT);

    auto out = h.run({{"x", {{6}, {0.F, 0.75F, 1.25F, -1.25F, 100.F, -100.F}}}});
    ASSERT_EQ(out.count("codes"), 1U) << h.lastFailure();
    // x / 0.5 rounded half to even, saturated: 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2, 200 -> 127, -200 -> -128.
    EXPECT_EQ(out["codes"].values, (std::vector<float>{0, 2, 2, -2, 127, -128}));
    EXPECT_EQ(out["back"].values, (std::vector<float>{0, 1, 1, -1, 63.5F, -64}));
}

TEST(OnnxQuantize, PerAxisWithPositiveAndNegativeAxes)
{
    for (int64_t const axis : {1, -1})
    {
        ModelBuilder m = qdqModel(13, {2, 3});
        m.initializer(floatTensor("scale", {3}, {1.F, 2.F, 0.25F}));
        m.initializer(int8Tensor("zero", {3}, {0, 0, 0}));
        attrInt(nodeAt(m, 0), "axis", axis);
        attrInt(nodeAt(m, 2), "axis", axis);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto* q = static_cast<nvinfer1::IQuantizeLayer*>(h.layers(nvinfer1::LayerType::kQUANTIZE).front());
        EXPECT_EQ(q->getAxis(), 1);
        auto out = h.run({{"x", {{2, 3}, {1.F, 3.F, 0.3F, -2.5F, 5.F, 40.F}}}});
        ASSERT_EQ(out.count("codes"), 1U) << h.lastFailure();
        EXPECT_EQ(out["codes"].values, (std::vector<float>{1, 2, 1, -2, 2, 127})) << axis;
        EXPECT_EQ(out["back"].values, (std::vector<float>{1, 4, 0.25F, -2, 4, 31.75F})) << axis;
    }
}

TEST(OnnxQuantize, WithoutAZeroPointQuantizesToInt8)
{
    // ONNX would make UINT8 here; kiln, like TensorRT's parser, makes INT8 (it has no UINT8 quantization).
    ModelBuilder m = qdqModel(13, {3}, false);
    m.initializer(floatTensor("scale", {1}, {2.F})); // one value, 1-D: per tensor
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* q = static_cast<nvinfer1::IQuantizeLayer*>(h.layers(nvinfer1::LayerType::kQUANTIZE).front());
    EXPECT_EQ(q->getToType(), nvinfer1::DataType::kINT8);
    EXPECT_EQ(q->getInput(1)->getDimensions().nbDims, 0);
    auto out = h.run({{"x", {{3}, {-7.F, 3.F, 1000.F}}}});
    ASSERT_EQ(out.count("codes"), 1U) << h.lastFailure();
    EXPECT_EQ(out["codes"].values, (std::vector<float>{-4, 2, 127}));
    EXPECT_EQ(out["back"].values, (std::vector<float>{-8, 4, 254}));
}

TEST(OnnxQuantize, Float8ZeroPointOpset19)
{
    ModelBuilder m = qdqModel(19, {5});
    m.initializer(floatTensor("scale", {}, {1.F}));
    m.initializer(rawTensor("zero", kFloat8E4M3FN, {}, std::vector<uint8_t>{0x00}));
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* q = static_cast<nvinfer1::IQuantizeLayer*>(h.layers(nvinfer1::LayerType::kQUANTIZE).front());
    EXPECT_EQ(q->getToType(), nvinfer1::DataType::kFP8);
    auto out = h.run({{"x", {{5}, {1.F, 17.F, 1.1875F, 500.F, -1000.F}}}});
    ASSERT_EQ(out.count("back"), 1U) << h.lastFailure();
    // E4M3, to nearest even, saturated at 448.
    EXPECT_EQ(out["back"].values, (std::vector<float>{1.F, 16.F, 1.25F, 448.F, -448.F}));
    EXPECT_EQ(out["codes"].values, out["back"].values);
}

TEST(OnnxQuantize, Int4BlocksOpset21)
{
    // x [2, 4] in blocks of 2 along axis 1: scale [2, 2]; the output type from output_dtype (no zero point).
    ModelBuilder m(21);
    m.input("x", {2, 4});
    m.initializer(floatTensor("scale", {2, 2}, {1.F, 2.F, 0.5F, 4.F}));
    m.node("QuantizeLinear", {"x", "scale"}, {"q"}, "quantize");
    attrInt(nodeAt(m, 0), "axis", 1);
    attrInt(nodeAt(m, 0), "block_size", 2);
    attrInt(nodeAt(m, 0), "output_dtype", kInt4);
    m.node("DequantizeLinear", {"q", "scale"}, {"back"}, "dequantize");
    attrInt(nodeAt(m, 1), "axis", 1);
    attrInt(nodeAt(m, 1), "block_size", 2);
    m.output("back");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* q = static_cast<nvinfer1::IQuantizeLayer*>(h.layers(nvinfer1::LayerType::kQUANTIZE).front());
    EXPECT_EQ(q->getToType(), nvinfer1::DataType::kINT4);
    nvinfer1::Dims const block = q->getBlockShape();
    ASSERT_EQ(block.nbDims, 2);
    EXPECT_EQ(block.d[0], 1);
    EXPECT_EQ(block.d[1], 2);
    auto out = h.run({{"x", {{2, 4}, {3.F, -20.F, 5.F, 6.F, 1.F, 1.25F, 10.F, -40.F}}}});
    ASSERT_EQ(out.count("back"), 1U) << h.lastFailure();
    // Row 0: 3 / 1, -20 / 1 -> -8; 5 / 2 = 2.5 -> 2, 6 / 2 = 3. Row 1: 1 / 0.5 = 2, 2.5 -> 2; 10 / 4 = 2.5 -> 2,
    // -40 / 4 = -10 -> -8.
    EXPECT_EQ(out["back"].values, (std::vector<float>{3, -8, 4, 6, 1, 1, 8, -32}));

    // An INT4 zero point (packed raw data) gives the type as well.
    ModelBuilder z(21);
    z.input("x", {3});
    z.initializer(floatTensor("scale", {}, {1.F}));
    z.initializer(rawTensor("zero", kInt4, {}, std::vector<uint8_t>{0x00}));
    z.node("QuantizeLinear", {"x", "scale", "zero"}, {"q"}, "quantize");
    z.node("DequantizeLinear", {"q", "scale", "zero"}, {"back"}, "dequantize");
    z.output("back");
    Harness hz;
    ASSERT_TRUE(hz.parse(z)) << hz.errors();
    auto outZ = hz.run({{"x", {{3}, {7.4F, 9.F, -8.6F}}}});
    ASSERT_EQ(outZ.count("back"), 1U) << hz.lastFailure();
    EXPECT_EQ(outZ["back"].values, (std::vector<float>{7, 7, -8}));
}

TEST(OnnxQuantize, WeightOnlyDequantizationOfAnInt8Initializer)
{
    // y = x + DequantizeLinear(W) with W INT8 [2, 3] and one scale per row (axis 0).
    ModelBuilder m(13);
    m.input("x", {2, 3});
    m.initializer(int8Tensor("W", {2, 3}, {1, -2, 3, 127, -128, 0}));
    m.initializer(floatTensor("scale", {2}, {0.5F, 0.25F}));
    m.node("DequantizeLinear", {"W", "scale"}, {"w"}, "dequantize");
    attrInt(nodeAt(m, 0), "axis", 0);
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, {0, 0, 0, 1, 1, 1}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{0.5F, -1.F, 1.5F, 32.75F, -31.F, 1.F}));
}

//! The model fails to parse with code, its first error from op containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment, char const* op = "QuantizeLinear")
{
    expectRefused(m, code, fragment, op);
}

TEST(OnnxQuantize, Refusals)
{
    {
        // TensorRT refuses UINT8 Q/DQ too.
        ModelBuilder m = qdqModel(13, {3});
        m.initializer(floatTensor("scale", {}, {1.F}));
        m.initializer(rawTensor("zero", ::onnx::TensorProto::UINT8, {}, std::vector<uint8_t>{128}));
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "UINT8 quantization is not supported");
    }
    {
        ModelBuilder m = qdqModel(13, {3});
        m.initializer(floatTensor("scale", {}, {1.F}));
        m.initializer(int8Tensor("zero", {}, {3}));
        refused(m, ErrorCode::kUNSUPPORTED_NODE,
            "the zero point holds 3 at index 0; kiln, like TensorRT, supports only symmetric quantization");
    }
    {
        ModelBuilder m = qdqModel(13, {3});
        m.input("scale", {});
        m.initializer(int8Tensor("zero", {}, {0}));
        refused(m, ErrorCode::kUNSUPPORTED_NODE_INPUT, "input 1 (scale) must be an initializer or a Constant");
    }
    {
        ModelBuilder m = qdqModel(13, {3});
        m.initializer(floatTensor("scale", {}, {1.F}));
        m.input("zero", {}, ::onnx::TensorProto::INT8);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_INPUT, "input 2 (zero point) must be an initializer");
    }
    {
        ModelBuilder m = qdqModel(13, {3});
        m.initializer(floatTensor("scale", {}, {-1.F}));
        m.initializer(int8Tensor("zero", {}, {0}));
        refused(m, ErrorCode::kINVALID_NODE, "the scale holds -1 at index 0; scales must be positive and finite");
    }
    {
        ModelBuilder m = qdqModel(13, {2, 3});
        m.initializer(floatTensor("scale", {2}, {1.F, 2.F}));
        m.initializer(int8Tensor("zero", {2}, {0, 0}));
        refused(m, ErrorCode::kINVALID_NODE, "the scale has 2 values but the input [2,3] has 3 along axis 1");
    }
    {
        ModelBuilder m = qdqModel(10, {2, 3});
        m.initializer(floatTensor("scale", {3}, {1.F, 2.F, 3.F}));
        m.initializer(int8Tensor("zero", {3}, {0, 0, 0}));
        refused(m, ErrorCode::kINVALID_NODE, "(per-axis quantization) needs opset 13");
    }
    {
        ModelBuilder m = qdqModel(19, {3});
        m.initializer(floatTensor("scale", {}, {1.F}));
        m.initializer(rawTensor("zero", kFloat8E4M3FN, {}, std::vector<uint8_t>{0x00}));
        attrInt(nodeAt(m, 0), "saturate", 0);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "saturate is 0; kiln's FLOAT8 quantization always saturates");
    }
    {
        ModelBuilder m = qdqModel(21, {3}, false);
        m.initializer(floatTensor("scale", {}, {1.F}));
        attrInt(nodeAt(m, 0), "output_dtype", ::onnx::TensorProto::UINT8);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "output_dtype is UINT8");
    }
    {
        ModelBuilder m = qdqModel(21, {2, 4}, false);
        m.initializer(floatTensor("scale", {2}, {1.F, 2.F}));
        attrInt(nodeAt(m, 0), "block_size", 2);
        refused(m, ErrorCode::kINVALID_NODE, "block_size is 2 but the scale [2] does not have the input's rank");
    }
    {
        ModelBuilder m = qdqModel(21, {2, 4}, false);
        m.initializer(floatTensor("scale", {}, {1.F}));
        attrInt(nodeAt(m, 0), "block_size", -1);
        refused(m, ErrorCode::kINVALID_NODE, "block_size is -1; it must be 0 or positive");
    }
    {
        ModelBuilder m(13);
        m.input("x", {3}, ::onnx::TensorProto::INT32);
        m.initializer(floatTensor("scale", {}, {1.F}));
        m.node("DequantizeLinear", {"x", "scale"}, {"y"}, "dequantize");
        m.output("y");
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "DequantizeLinear's input is kINT32: kiln quantizes to INT8, FLOAT8E4M3FN or INT4 only",
            "DequantizeLinear");
    }
    {
        ModelBuilder m(13);
        m.input("x", {3}, ::onnx::TensorProto::INT32);
        m.initializer(floatTensor("scale", {}, {1.F}));
        m.node("QuantizeLinear", {"x", "scale"}, {"y"}, "quantize");
        m.output("y", ::onnx::TensorProto::INT8);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "QuantizeLinear's input is kINT32");
    }
}

} // namespace
} // namespace kiln::onnx_test
