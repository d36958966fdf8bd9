// SPDX-License-Identifier: Apache-2.0
// The RNN, GRU and LSTM importers (ILoop per direction) through the public API, run on the host backend against
// values worked out by hand: a bidirectional RNN, sequence_lens honoured in the forward direction, and the refusals.
// The ONNX node tests (test_simple_rnn_*, test_rnn_seq_length, test_gru_*, test_lstm_*) cover the cells' formulas.
#include "model_builder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

//! An RNN with hidden size 1 and Relu, one input feature: W, R per direction as given, no bias.
ModelBuilder reluRnn(std::string const& direction, std::vector<float> const& w, std::vector<float> const& r,
    Shape const& x, bool withLengths)
{
    ModelBuilder m(14);
    m.input("X", x);
    auto const dirs = static_cast<int64_t>(w.size());
    m.initializer(floatTensor("W", {dirs, 1, 1}, w));
    m.initializer(floatTensor("R", {dirs, 1, 1}, r));
    std::vector<std::string> inputs{"X", "W", "R"};
    if (withLengths)
    {
        m.input("lengths", {x[1]}, ::onnx::TensorProto::INT32);
        inputs.insert(inputs.end(), {"", "lengths"});
    }
    ::onnx::NodeProto& node = m.node("RNN", inputs, {"Y", "Y_h"}, "rnn");
    attrInt(node, "hidden_size", 1);
    attrString(node, "direction", direction);
    attrStrings(node, "activations", std::vector<std::string>(static_cast<std::size_t>(dirs), "Relu"));
    m.output("Y");
    m.output("Y_h");
    return m;
}

TEST(Rnn, BidirectionalRunsBothDirectionsAndStacksThem)
{
    // x = 1, 2. Forward (W 1, R 0.5): 1, 2.5. Reverse (W 2, R 0.25), from the end: 4 at t = 1, then 2 + 1 = 3 at t = 0.
    ModelBuilder m = reluRnn("bidirectional", {1.0F, 2.0F}, {0.5F, 0.25F}, {2, 1, 1}, false);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kITERATOR).size(), 2U); // one loop per direction
    auto outputs = h.run({{"X", {{2, 1, 1}, {1.0F, 2.0F}}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, (std::vector<int64_t>{2, 2, 1, 1}));
    EXPECT_EQ(outputs["Y"].values, (std::vector<float>{1.0F, 3.0F, 2.5F, 4.0F}));
    EXPECT_EQ(outputs["Y_h"].values, (std::vector<float>{2.5F, 3.0F}));
}

TEST(Rnn, SequenceLengthsStopEachSequence)
{
    // Two sequences of lengths 1 and 2, x = 1 then 2 for both: the first keeps h = 1 and gives 0 at t = 1.
    ModelBuilder m = reluRnn("forward", {1.0F}, {0.5F}, {2, 2, 1}, true);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    // The harness gives every input as floats: the lengths go through their bits, so give them as INT32 bit patterns.
    int32_t const lengths[2]{1, 2};
    std::vector<float> bits(2);
    std::memcpy(bits.data(), lengths, sizeof(lengths));
    auto outputs = h.run({{"X", {{2, 2, 1}, {1.0F, 1.0F, 2.0F, 2.0F}}}, {"lengths", {{2}, bits}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].values, (std::vector<float>{1.0F, 1.0F, 0.0F, 2.5F}));
    EXPECT_EQ(outputs["Y_h"].values, (std::vector<float>{1.0F, 2.5F}));
}

TEST(Rnn, Refusals)
{
    {
        ModelBuilder m = reluRnn("reverse", {1.0F}, {0.5F}, {2, 2, 1}, true);
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_NE(std::string(h.firstError()->desc()).find("sequence_lens is supported by kiln for the forward"),
            std::string::npos)
            << h.errors();
    }
    {
        ModelBuilder m = reluRnn("forward", {1.0F}, {0.5F}, {2, 1, 1}, false);
        attrFloat(*m.graph().mutable_node(0), "clip", 1.0F);
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_NE(std::string(h.firstError()->desc()).find("clip"), std::string::npos) << h.errors();
    }
    {
        ModelBuilder m = reluRnn("bidirectional", {1.0F, 2.0F}, {0.5F, 0.25F}, {2, 1, 1}, false);
        attrStrings(*m.graph().mutable_node(0), "activations", {"Relu", "Tanh"});
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_NE(std::string(h.firstError()->desc()).find("must be the same"), std::string::npos) << h.errors();
    }
}

} // namespace
} // namespace kiln::onnx_test
