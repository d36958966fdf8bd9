// SPDX-License-Identifier: Apache-2.0
// The NonZero importer through the public API: FLOAT and UINT8 (through INT32) inputs become an INonZeroLayer with
// INT64 indices, run end to end on the host backend with the data-dependent output's shape read after the run; a
// NonZero output feeding a Gather; and an empty result.
#include "model_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

//! x [2, 3] -> (Cast to inputType) -> NonZero -> Cast FLOAT -> y.
ModelBuilder nonZeroModel(int32_t inputType, int64_t opset)
{
    ModelBuilder m(opset);
    m.input("x", {2, 3});
    std::string source = "x";
    if (inputType != ::onnx::TensorProto::FLOAT)
    {
        attrInt(m.node("Cast", {"x"}, {"xc"}, "to_input"), "to", inputType);
        source = "xc";
    }
    m.node("NonZero", {source}, {"indices"}, "nonzero");
    attrInt(m.node("Cast", {"indices"}, {"y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
    m.output("y");
    return m;
}

TEST(OnnxNonZero, FloatAndUint8InputsAtOpsets9And13)
{
    for (int32_t type : {::onnx::TensorProto::FLOAT, ::onnx::TensorProto::UINT8})
    {
        for (int64_t opset : {9, 13})
        {
            SCOPED_TRACE("type " + std::to_string(type) + " opset " + std::to_string(opset));
            Harness h;
            ASSERT_TRUE(h.parse(nonZeroModel(type, opset))) << h.errors();
            auto const layers = h.layers(nvinfer1::LayerType::kNON_ZERO);
            ASSERT_EQ(layers.size(), 1U);
            auto* nonZero = static_cast<nvinfer1::INonZeroLayer*>(layers.front());
            EXPECT_EQ(nonZero->getIndicesType(), nvinfer1::DataType::kINT64);
            EXPECT_EQ(nonZero->getNbOutputs(), 1);
            auto out = h.run({{"x", {{2, 3}, {0, 3, 0, 7, 0, 1}}}});
            ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
            EXPECT_EQ(out["y"].shape, (Shape{2, 3}));
            EXPECT_EQ(out["y"].values, (std::vector<float>{0, 1, 1, 1, 0, 2}));
        }
    }
}

TEST(OnnxNonZero, FeedsAGatherAndMayBeEmpty)
{
    // The columns of x's non-zero elements gather from a row of weights: [2, 3] -> NonZero -> row 1 -> Gather.
    ModelBuilder m(13);
    m.input("x", {2, 3});
    m.initializer(int64Tensor("row", {}, {1}));
    m.initializer(floatTensor("w", {3}, {10, 20, 30}));
    m.node("NonZero", {"x"}, {"indices"}, "nonzero");
    attrInt(m.node("Gather", {"indices", "row"}, {"columns"}, "column_of"), "axis", 0);
    attrInt(m.node("Gather", {"w", "columns"}, {"y"}, "pick"), "axis", 0);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, {1, 0, 1, 0, 1, 0}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{3}));
    EXPECT_EQ(out["y"].values, (std::vector<float>{10, 30, 20}));

    Harness empty;
    ASSERT_TRUE(empty.parse(m)) << empty.errors();
    out = empty.run({{"x", {{2, 3}, {0, 0, 0, 0, 0, 0}}}});
    ASSERT_EQ(out.count("y"), 1U) << empty.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{0}));
}

} // namespace
} // namespace kiln::onnx_test
