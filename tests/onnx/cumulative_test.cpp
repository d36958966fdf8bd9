// SPDX-License-Identifier: Apache-2.0
// The CumSum importer through the public API: the axis as a 0-D or one-element 1-D initializer (INT64 or INT32,
// negative too), exclusive and reverse, FLOAT and INT32 data, run end to end on the host backend; and each refusal
// with its code and message.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

//! x [2, 3] -> CumSum(axis) -> y.
ModelBuilder cumsumModel(int32_t type = ::onnx::TensorProto::FLOAT, Shape const& shape = {2, 3})
{
    ModelBuilder m(14);
    m.input("x", shape, type);
    m.node("CumSum", {"x", "axis"}, {"y"}, "cumsum");
    m.output("y", type);
    return m;
}

::onnx::NodeProto& cumsumNode(ModelBuilder& m)
{
    return *m.graph().mutable_node(0);
}

std::vector<float> const kX{1, 2, 3, 4, 5, 6};

TEST(OnnxCumSum, EveryDirectionAlongTheLastAxis)
{
    std::vector<std::vector<float>> const expected{
        {1, 3, 6, 4, 9, 15}, {0, 1, 3, 0, 4, 9}, {6, 5, 3, 15, 11, 6}, {5, 3, 0, 11, 6, 0}};
    for (int32_t variant = 0; variant < 4; ++variant)
    {
        ModelBuilder m = cumsumModel();
        m.initializer(int64Tensor("axis", {}, {1}));
        attrInt(cumsumNode(m), "exclusive", variant & 1);
        attrInt(cumsumNode(m), "reverse", (variant >> 1) & 1);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto const layers = h.layers(nvinfer1::LayerType::kCUMULATIVE);
        ASSERT_EQ(layers.size(), 1U);
        auto* cumulative = static_cast<nvinfer1::ICumulativeLayer*>(layers.front());
        EXPECT_EQ(cumulative->getOperation(), nvinfer1::CumulativeOperation::kSUM);
        EXPECT_EQ(cumulative->getExclusive(), (variant & 1) != 0);
        EXPECT_EQ(cumulative->getReverse(), (variant & 2) != 0);
        EXPECT_EQ(cumulative->getInput(1)->getDimensions().nbDims, 0);
        auto out = h.run({{"x", {{2, 3}, kX}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{2, 3}));
        EXPECT_EQ(out["y"].values, expected[static_cast<std::size_t>(variant)]) << "variant " << variant;
    }
}

TEST(OnnxCumSum, NegativeOneElementAxisAndIntegers)
{
    // Axis [-2] (INT32, 1-D) on INT32 data: sums down the columns; the result cast to FLOAT for the harness.
    ModelBuilder m(14);
    m.input("x", {2, 3});
    m.initializer(int32Tensor("axis", {1}, {-2}));
    attrInt(m.node("Cast", {"x"}, {"xi"}, "to_int"), "to", ::onnx::TensorProto::INT32);
    m.node("CumSum", {"xi", "axis"}, {"yi"}, "cumsum");
    attrInt(m.node("Cast", {"yi"}, {"y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, kX}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{1, 2, 3, 5, 7, 9}));
}

//! The model fails to parse with code, its first error from the CumSum node containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment)
{
    expectRefused(m, code, fragment, "CumSum");
}

TEST(OnnxCumSum, Refusals)
{
    {
        ModelBuilder m = cumsumModel();
        m.input("axis", {}, ::onnx::TensorProto::INT64);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_INPUT, "input 1 (axis) must be known when the model is parsed");
    }
    {
        ModelBuilder m = cumsumModel();
        m.initializer(int64Tensor("axis", {2}, {0, 1}));
        refused(m, ErrorCode::kINVALID_NODE, "input 1 (axis) has 2 values; it must have one");
    }
    {
        ModelBuilder m = cumsumModel();
        m.initializer(int64Tensor("axis", {}, {2}));
        refused(m, ErrorCode::kINVALID_NODE, "the axis is 2; for an input of rank 2 it must be in [-2, 1]");
    }
    {
        ModelBuilder m = cumsumModel();
        m.initializer(int64Tensor("axis", {}, {0}));
        attrInt(cumsumNode(m), "exclusive", 2);
        refused(m, ErrorCode::kINVALID_NODE, "attribute exclusive is 2; it must be 0 or 1");
    }
    {
        ModelBuilder m = cumsumModel(::onnx::TensorProto::UINT8);
        m.initializer(int64Tensor("axis", {}, {0}));
        refused(
            m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "CumSum takes FLOAT, FLOAT16, BFLOAT16, INT32 or INT64 inputs");
    }
    {
        ModelBuilder m = cumsumModel(::onnx::TensorProto::FLOAT, {});
        m.initializer(int64Tensor("axis", {}, {0}));
        refused(m, ErrorCode::kINVALID_NODE, "CumSum needs an input of rank 1 or more");
    }
}

} // namespace
} // namespace kiln::onnx_test
