// SPDX-License-Identifier: Apache-2.0
// The ReverseSequence importer through the public API: both axis orders with lengths from an initializer and lengths
// computed at run time (ONNX's two examples), run end to end on the host backend; and each refusal with its code and
// message.
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

//! x [4, 4] -> ReverseSequence(batch_axis, time_axis) -> y.
ModelBuilder reverseModel(int64_t batchAxis, int64_t timeAxis, Shape const& shape = {4, 4})
{
    ModelBuilder m(10);
    m.input("x", shape);
    auto& node = m.node("ReverseSequence", {"x", "lengths"}, {"y"}, "reverse");
    attrInt(node, "batch_axis", batchAxis);
    attrInt(node, "time_axis", timeAxis);
    m.output("y");
    return m;
}

TEST(OnnxReverseSequence, OnnxExamples)
{
    // ONNX's examples: time axis 0 and batch axis 1, lengths [4, 3, 2, 1]; batch axis 0 and time axis 1, lengths
    // [1, 2, 3, 4].
    {
        ModelBuilder m = reverseModel(1, 0);
        m.initializer(int64Tensor("lengths", {4}, {4, 3, 2, 1}));
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto const layers = h.layers(nvinfer1::LayerType::kREVERSE_SEQUENCE);
        ASSERT_EQ(layers.size(), 1U);
        auto* reverse = static_cast<nvinfer1::IReverseSequenceLayer*>(layers.front());
        EXPECT_EQ(reverse->getBatchAxis(), 1);
        EXPECT_EQ(reverse->getSequenceAxis(), 0);
        auto out = h.run({{"x", {{4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].values, (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
    }
    {
        ModelBuilder m = reverseModel(0, 1);
        m.initializer(int64Tensor("lengths", {4}, {1, 2, 3, 4}));
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto* reverse
            = static_cast<nvinfer1::IReverseSequenceLayer*>(h.layers(nvinfer1::LayerType::kREVERSE_SEQUENCE).front());
        EXPECT_EQ(reverse->getBatchAxis(), 0);
        EXPECT_EQ(reverse->getSequenceAxis(), 1);
        auto out = h.run({{"x", {{4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].values, (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
    }
}

TEST(OnnxReverseSequence, LengthsComputedAtRunTime)
{
    // The lengths come in as FLOAT and are cast to INT64; a rank-3 input reverses along axis 0 per index of axis 1.
    ModelBuilder m(10);
    m.input("x", {3, 2, 2});
    m.input("n", {2});
    attrInt(m.node("Cast", {"n"}, {"lengths"}, "to_int64"), "to", ::onnx::TensorProto::INT64);
    m.node("ReverseSequence", {"x", "lengths"}, {"y"}, "reverse");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> x(12);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i);
    }
    auto out = h.run({{"x", {{3, 2, 2}, x}}, {"n", {{2}, {3, 2}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    // Batch 0 (x[:, 0, :]) reverses its 3 steps; batch 1 (x[:, 1, :]) its first 2.
    EXPECT_EQ(out["y"].values, (std::vector<float>{8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 10, 11}));
}

//! The model fails to parse with code, its first error from the ReverseSequence node containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment)
{
    expectRefused(m, code, fragment, "ReverseSequence");
}

TEST(OnnxReverseSequence, Refusals)
{
    {
        ModelBuilder m = reverseModel(1, 1);
        m.initializer(int64Tensor("lengths", {4}, {1, 1, 1, 1}));
        refused(m, ErrorCode::kINVALID_NODE, "batch_axis is 1 and time_axis 1; they must be 0 and 1");
    }
    {
        ModelBuilder m = reverseModel(2, 0);
        m.initializer(int64Tensor("lengths", {4}, {1, 1, 1, 1}));
        refused(m, ErrorCode::kINVALID_NODE, "batch_axis is 2 and time_axis 0");
    }
    {
        ModelBuilder m = reverseModel(1, 0, {4});
        m.initializer(int64Tensor("lengths", {4}, {1, 1, 1, 1}));
        refused(m, ErrorCode::kINVALID_NODE, "ReverseSequence needs an input of rank 2 or more");
    }
    {
        ModelBuilder m = reverseModel(1, 0);
        m.initializer(floatTensor("lengths", {4}, {1, 1, 1, 1}));
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "sequence_lens is kFLOAT; it must be INT64 (or INT32)");
    }
    {
        ModelBuilder m = reverseModel(1, 0);
        m.initializer(int64Tensor("lengths", {2, 2}, {1, 1, 1, 1}));
        refused(m, ErrorCode::kINVALID_NODE, "sequence_lens has shape [2,2]; it must be 1-D");
    }
}

} // namespace
} // namespace kiln::onnx_test
