// SPDX-License-Identifier: Apache-2.0
// Test support for the kiln tool's tests: small ONNX models written at test time (with tests/onnx's ModelBuilder), a
// scratch folder per test, and two ways to run the tool: in-process through kiln_tool::buildAndRun (arguments in, a
// result and text out) and as the kiln binary through popen (exit status, stdout and stderr).
//
//     ScratchDir dir;
//     writeDenseModel(dir / "dense.onnx");                        // Y = Relu(X W + B), X [N, 4]
//     ToolRun const run = runTool({"--onnx=" + (dir / "dense.onnx").string(), "--shapes=X:2x4", "--duration=0"});
//     ProcessRun const process = runBinary({"--bogus"});          // process.status == 2
#pragma once

#include "build_and_run.h"
#include "onnx/model_builder.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kiln_tool_test
{

namespace fs = std::filesystem;
using kiln::onnx_test::ModelBuilder;

//! An empty folder of the running test's own, removed afterwards.
class ScratchDir
{
public:
    ScratchDir()
    {
        testing::TestInfo const* test = testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(test->test_suite_name()) + "_" + test->name();
        std::replace(name.begin(), name.end(), '/', '_');
        mPath = fs::temp_directory_path() / ("kiln_tool_test_" + std::to_string(getpid()) + "_" + name);
        fs::remove_all(mPath);
        fs::create_directories(mPath);
    }
    ~ScratchDir() { fs::remove_all(mPath); }
    ScratchDir(ScratchDir const&) = delete;
    ScratchDir& operator=(ScratchDir const&) = delete;

    fs::path operator/(std::string const& file) const { return mPath / file; }

private:
    fs::path mPath;
};

// The dense model's weights: W is [4, 3], B is [3].
inline std::vector<float> const kDenseW{0.5F, -1.0F, 0.25F, 1.0F, 0.5F, -0.5F, -0.25F, 2.0F, 1.0F, 0.75F, 0.0F, -1.5F};
inline std::vector<float> const kDenseB{0.1F, -0.2F, 0.3F};

//! Y = Relu(X W + B) with X [N, 4] (N dynamic), in three named nodes: matmul, add, relu.
inline void writeDenseModel(fs::path const& path)
{
    ModelBuilder m;
    m.input("X", {-1, 4});
    m.initializer(kiln::onnx_test::floatTensor("W", {4, 3}, kDenseW));
    m.initializer(kiln::onnx_test::floatTensor("B", {3}, kDenseB));
    m.node("MatMul", {"X", "W"}, {"XW"}, "matmul");
    m.node("Add", {"XW", "B"}, {"XWB"}, "add");
    m.node("Relu", {"XWB"}, {"Y"}, "relu");
    m.output("Y");
    m.writeTo(path);
}

//! The dense model's output for x ([rows, 4]), computed here.
inline std::vector<float> denseReference(std::vector<float> const& x)
{
    std::size_t const rows = x.size() / 4;
    std::vector<float> y(rows * 3);
    for (std::size_t r = 0; r < rows; ++r)
    {
        for (std::size_t c = 0; c < 3; ++c)
        {
            float sum = kDenseB[c];
            for (std::size_t k = 0; k < 4; ++k)
            {
                sum += x[r * 4 + k] * kDenseW[k * 3 + c];
            }
            y[r * 3 + c] = std::max(sum, 0.0F);
        }
    }
    return y;
}

//! Y = KilnToolDouble(X) with X [N, 4]: a custom node that only tests/tools' plugin library provides.
inline void writePluginModel(fs::path const& path)
{
    ModelBuilder m;
    m.input("X", {-1, 4});
    kiln::onnx_test::attrString(m.node("KilnToolDouble", {"X"}, {"Y"}, "double"), "plugin_namespace", "");
    m.output("Y");
    m.writeTo(path);
}

//! A model whose second node has an op type no ONNX opset has.
inline void writeBrokenModel(fs::path const& path)
{
    ModelBuilder m;
    m.input("X", {2, 4});
    m.node("Relu", {"X"}, {"R"}, "relu");
    m.node("NoSuchOperator", {"R"}, {"Y"}, "mystery_node");
    m.output("Y");
    m.writeTo(path);
}

template <typename T>
void writeRaw(fs::path const& path, std::vector<T> const& values)
{
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<char const*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
}

inline std::vector<char> readAll(fs::path const& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

struct ToolRun
{
    kiln_tool::RunResult result;
    std::string out;
    std::string err;
};

//! The build-and-run mode in this process.
inline ToolRun runTool(std::vector<std::string> const& args)
{
    std::ostringstream out;
    std::ostringstream err;
    ToolRun run;
    run.result = kiln_tool::buildAndRun(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
}

struct ProcessRun
{
    int status{-1};
    std::string out;
    std::string err;
};

inline std::string shellQuoted(std::string const& text)
{
    std::string quoted = "'";
    for (char const c : text)
    {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

//! The kiln binary with args: its exit status, stdout and stderr.
inline ProcessRun runBinary(std::vector<std::string> const& args, fs::path const& stderrFile)
{
    std::string command = shellQuoted(KILN_TOOL_BINARY);
    for (std::string const& arg : args)
    {
        command += " " + shellQuoted(arg);
    }
    command += " 2>" + shellQuoted(stderrFile.string());
    ProcessRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
    {
        return run;
    }
    std::array<char, 4096> buffer{};
    std::size_t read = 0;
    while ((read = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    {
        run.out.append(buffer.data(), read);
    }
    int const status = pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::vector<char> const err = readAll(stderrFile);
    run.err.assign(err.begin(), err.end());
    return run;
}

//! The labels of trtexec's performance summary, each at the start of its line after "[I] ".
inline std::vector<std::string> const kSummaryLabels{
    "=== Performance summary ===", "Throughput: ", "Latency: ", "Enqueue Time: ", "H2D Latency: ", "GPU Compute Time: ",
    "D2H Latency: ", "Total Host Walltime: ", "Total GPU Compute Time: "};

inline bool hasLine(std::string const& text, std::string const& start)
{
    return text.find("\n[I] " + start) != std::string::npos || text.rfind("[I] " + start, 0) == 0;
}

} // namespace kiln_tool_test
