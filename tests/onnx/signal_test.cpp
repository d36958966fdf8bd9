// SPDX-License-Identifier: Apache-2.0
// HannWindow, HammingWindow, BlackmanWindow and STFT through the public API: windows of a size known at parse time
// (folded to constants) and at run time (a fill), STFT against a direct DFT of random signals, and the refusals.
#include "checks.h"

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

//! ONNX's definitions: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1.
std::vector<float> referenceWindow(std::string const& op, int64_t size, bool periodic)
{
    double a0 = 0.5;
    double a1 = 0.5;
    double a2 = 0.0;
    if (op == "HammingWindow")
    {
        a0 = 25.0 / 46.0;
        a1 = 1.0 - a0;
    }
    else if (op == "BlackmanWindow")
    {
        a0 = 0.42;
        a2 = 0.08;
    }
    std::vector<float> values(static_cast<size_t>(size));
    for (int64_t n = 0; n < size; ++n)
    {
        double const angle
            = 2.0 * std::numbers::pi * static_cast<double>(n) / static_cast<double>(periodic ? size : size - 1);
        values[static_cast<size_t>(n)] = static_cast<float>(a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle));
    }
    return values;
}

TEST(OnnxWindows, SizeFromAnInitializerFoldsToAConstant)
{
    for (std::string const op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    {
        for (int64_t periodic : {0, 1})
        {
            ModelBuilder m(17);
            m.input("x", {1});
            m.initializer(int64Tensor("size", {}, {12}));
            attrInt(m.node(op, {"size"}, {"w"}, "window"), "periodic", periodic);
            m.node("Add", {"w", "x"}, {"y"}, "add");
            m.output("y");
            Harness h;
            ASSERT_TRUE(h.parse(m)) << h.errors();
            EXPECT_TRUE(h.layers(nvinfer1::LayerType::kFILL).empty()) << op;
            EXPECT_TRUE(h.layers(nvinfer1::LayerType::kUNARY).empty()) << op;
            auto out = h.run({{"x", {{1}, {0.0F}}}});
            ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
            expectClose(out["y"].values, referenceWindow(op, 12, periodic != 0), 1e-6F);
        }
    }
}

TEST(OnnxWindows, SizeAtRunTimeBecomesAFill)
{
    // The size is the element count of a dynamic input (Size), so it is known only at run time.
    for (std::string const op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    {
        for (int64_t periodic : {0, 1})
        {
            ModelBuilder m(17);
            m.input("x", {-1});
            m.node("Size", {"x"}, {"size"}, "size");
            attrInt(m.node(op, {"size"}, {"w"}, "window"), "periodic", periodic);
            m.output("w");
            Harness h;
            ASSERT_TRUE(h.parse(m)) << h.errors();
            EXPECT_EQ(h.layers(nvinfer1::LayerType::kFILL).size(), 1U) << op;
            auto out = h.run({{"x", {{10}, std::vector<float>(10, 0.0F)}}});
            ASSERT_EQ(out.count("w"), 1U) << h.lastFailure();
            EXPECT_EQ(out["w"].shape, (Shape{10})) << op;
            expectClose(out["w"].values, referenceWindow(op, 10, periodic != 0), 1e-5F);
        }
    }
}

TEST(OnnxWindows, Refusals)
{
    ModelBuilder m(17);
    m.initializer(int64Tensor("size", {}, {8}));
    attrInt(m.node("HannWindow", {"size"}, {"w"}, "window"), "output_datatype", ::onnx::TensorProto::INT32);
    m.output("w");
    expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute output_datatype 6 is not a floating-point type",
        "HannWindow", "window");

    ModelBuilder floating(17);
    floating.input("size", {}, ::onnx::TensorProto::FLOAT);
    floating.node("BlackmanWindow", {"size"}, {"w"}, "window");
    floating.output("w");
    expectRefused(floating, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "input size is float32; it must be INT32 or INT64",
        "BlackmanWindow", "window");
}

//! The STFT of signal [batch, length] by a direct DFT: [batch, frames, bins, 2].
std::vector<float> referenceSTFT(std::vector<float> const& signal, int64_t batch, int64_t length, int64_t step,
    std::vector<float> const& window, bool onesided)
{
    auto const frameLength = static_cast<int64_t>(window.size());
    int64_t const frames = (length - frameLength) / step + 1;
    int64_t const bins = onesided ? frameLength / 2 + 1 : frameLength;
    std::vector<float> out;
    for (int64_t b = 0; b < batch; ++b)
    {
        for (int64_t f = 0; f < frames; ++f)
        {
            for (int64_t k = 0; k < bins; ++k)
            {
                double real = 0.0;
                double imaginary = 0.0;
                for (int64_t n = 0; n < frameLength; ++n)
                {
                    double const x
                        = signal[static_cast<size_t>(b * length + f * step + n)] * window[static_cast<size_t>(n)];
                    double const angle
                        = 2.0 * std::numbers::pi * static_cast<double>(k * n) / static_cast<double>(frameLength);
                    real += x * std::cos(angle);
                    imaginary -= x * std::sin(angle);
                }
                out.push_back(static_cast<float>(real));
                out.push_back(static_cast<float>(imaginary));
            }
        }
    }
    return out;
}

TEST(OnnxSTFT, WindowedOnesidedFrames)
{
    ModelBuilder m(17);
    m.input("signal", {2, 64, 1});
    m.initializer(int64Tensor("step", {}, {8}));
    std::vector<float> const window = referenceWindow("HannWindow", 16, true);
    m.initializer(floatTensor("window", {16}, window));
    m.initializer(int64Tensor("length", {}, {16}));
    m.node("STFT", {"signal", "step", "window", "length"}, {"y"}, "stft");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const signal = randomValues(128, 5);
    auto out = h.run({{"signal", {{2, 64, 1}, signal}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 7, 9, 2}));
    expectClose(out["y"].values, referenceSTFT(signal, 2, 64, 8, window, true), 1e-4F);
}

TEST(OnnxSTFT, TwoSidedWithoutWindowOnARank2Signal)
{
    ModelBuilder m(17);
    m.input("signal", {1, 40});
    m.initializer(int64Tensor("step", {}, {5}));
    m.initializer(int64Tensor("length", {}, {10}));
    attrInt(m.node("STFT", {"signal", "step", "", "length"}, {"y"}, "stft"), "onesided", 0);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const signal = randomValues(40, 6);
    auto out = h.run({{"signal", {{1, 40}, signal}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{1, 7, 10, 2}));
    expectClose(out["y"].values, referenceSTFT(signal, 1, 40, 5, std::vector<float>(10, 1.0F), false), 1e-4F);
}

TEST(OnnxSTFT, Refusals)
{
    {
        ModelBuilder m(17);
        m.input("signal", {1, 32, 1});
        m.input("step", {}, ::onnx::TensorProto::INT64);
        m.initializer(int64Tensor("length", {}, {8}));
        m.node("STFT", {"signal", "step", "", "length"}, {"y"}, "stft");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_INPUT, "input 1 (frame_step) must be known", "STFT", "stft");
    }
    {
        ModelBuilder m(17);
        m.input("signal", {1, 32, 2});
        m.initializer(int64Tensor("step", {}, {4}));
        m.initializer(int64Tensor("length", {}, {8}));
        m.node("STFT", {"signal", "step", "", "length"}, {"y"}, "stft");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "it must be real-valued", "STFT", "stft");
    }
    {
        ModelBuilder m(17);
        m.input("signal", {1, 32, 1});
        m.initializer(int64Tensor("step", {}, {4}));
        m.initializer(floatTensor("window", {6}, std::vector<float>(6, 1.0F)));
        m.initializer(int64Tensor("length", {}, {8}));
        m.node("STFT", {"signal", "step", "window", "length"}, {"y"}, "stft");
        m.output("y");
        expectRefused(m, ErrorCode::kINVALID_NODE, "the window has 6 values and frame_length is 8", "STFT", "stft");
    }
}

} // namespace
} // namespace kiln::onnx_test
