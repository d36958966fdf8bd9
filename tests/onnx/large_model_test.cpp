// SPDX-License-Identifier: Apache-2.0
// Models over 2 GB: their weights live in external data files (a protobuf cannot exceed 2 GB), which the parser maps
// instead of reading. A sparse 2.5 GB file stands in for real weights (no disk or memory is used for its holes): the
// model's big initializer imports without being read, and a small initializer past the 2 GiB offset reaches the
// engine with its value.
#include "onnx/model_builder.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

namespace kiln::onnx_test
{
namespace
{

namespace fs = std::filesystem;

//! An initializer of type and shape whose data is at offset of location.
::onnx::TensorProto externalTensor(
    std::string const& name, Shape const& dims, std::string const& location, int64_t offset, int64_t length)
{
    ::onnx::TensorProto tensor;
    tensor.set_name(name);
    tensor.set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
    {
        tensor.add_dims(d);
    }
    tensor.set_data_location(::onnx::TensorProto::EXTERNAL);
    auto add = [&](char const* key, std::string const& value) {
        auto* entry = tensor.add_external_data();
        entry->set_key(key);
        entry->set_value(value);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(length));
    return tensor;
}

TEST(LargeModel, WeightsBeyondTwoGigabytesImportFromAMappedFile)
{
    fs::path const dir = fs::temp_directory_path() / ("kiln_large_model_" + std::to_string(getpid()));
    fs::create_directories(dir);
    int64_t const bigCount = int64_t{600} * 1000 * 1000; // 2.4 GB of FLOAT
    int64_t const smallOffset = bigCount * 4;            // 2 400 000 000: past 2^31
    float const smallValues[3] = {3.0F, -1.5F, 0.25F};
    {
        int fd = open((dir / "weights.bin").c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(ftruncate(fd, smallOffset + static_cast<int64_t>(sizeof smallValues)), 0);
        ASSERT_EQ(pwrite(fd, smallValues, sizeof smallValues, smallOffset), static_cast<ssize_t>(sizeof smallValues));
        close(fd);
    }
    ModelBuilder m;
    m.input("x", {3});
    m.initializer(externalTensor("big", {bigCount}, "weights.bin", 0, bigCount * 4));
    m.initializer(externalTensor("small", {3}, "weights.bin", smallOffset, sizeof smallValues));
    m.node("Add", {"x", "small"}, {"y"}, "add");
    m.node("Identity", {"big"}, {"unused"}, "pass"); // reads "big": imported and passed on, never read
    m.output("y");
    fs::path const model = dir / "model.onnx";
    m.writeTo(model);

    Harness h;
    ASSERT_TRUE(h.mParser->parseFromFile(model.c_str(), 0)) << h.errors();
    // Only y is an output; the big weights never become a layer.
    auto out = h.run({{"x", {{3}, {1.0F, 2.0F, 3.0F}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{4.0F, 0.5F, 3.25F}));
    fs::remove_all(dir);
}

TEST(LargeModel, AnOffsetPastTheFileIsRefusedNamingTheInitializer)
{
    fs::path const dir = fs::temp_directory_path() / ("kiln_large_offset_" + std::to_string(getpid()));
    fs::create_directories(dir);
    {
        int fd = open((dir / "weights.bin").c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(ftruncate(fd, 16), 0);
        close(fd);
    }
    ModelBuilder m;
    m.input("x", {1});
    m.initializer(externalTensor("far", {1}, "weights.bin", int64_t{3} << 31, 4));
    m.node("Add", {"x", "far"}, {"y"}, "add");
    m.output("y");
    fs::path const model = dir / "model.onnx";
    m.writeTo(model);
    Harness h;
    EXPECT_FALSE(h.mParser->parseFromFile(model.c_str(), 0));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), nvonnxparser::ErrorCode::kINVALID_VALUE);
    EXPECT_NE(std::string(h.firstError()->desc()).find("'far'"), std::string::npos) << h.errors();
    fs::remove_all(dir);
}

} // namespace
} // namespace kiln::onnx_test
