// SPDX-License-Identifier: Apache-2.0
// The ONNX parser's fuzz target: any bytes go to IParser::parse, which must return (true or false, with errors)
// without crashing, hanging or leaking.
//
// With clang (Debian's clang 14 will do), -DKILN_FUZZ=ON builds it against libFuzzer, every library instrumented for
// coverage (docs/reliability.md has the campaign's figures):
//     CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DKILN_FUZZ=ON "-DKILN_SANITIZE=address;undefined"
//         -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_BENCH_ONNX=OFF    (one command)
//     ninja -C build-fuzz kiln_onnx_fuzz
//     KILN_BACKEND=host UBSAN_OPTIONS=halt_on_error=1 build-fuzz/tests/onnx/kiln_onnx_fuzz corpus/ SEEDS/
//         -max_len=65536 -rss_limit_mb=4096    (one command; SEEDS: ONNX's node test models, libonnx-testdata's)
// What a run finds goes to tests/onnx/fuzz_regressions, which Malformed.WhatFuzzingFoundParsesWithoutCrashing parses.
// Otherwise (the default, and the ctest onnx.fuzz_smoke) it is a small mutation driver of its own: it takes seed
// models (arguments, or ONNX's node test models), and parses deterministic mutations of them (bit flips, byte
// overwrites, truncations, insertions, duplicated ranges):
//     kiln_onnx_fuzz [--iterations N] [--seed S] [model.onnx ...]
#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

class SilentLogger : public nvinfer1::ILogger
{
public:
    void log(Severity, char const*) noexcept override {}
};

long gParsed = 0; //!< Inputs that parsed without errors.

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static SilentLogger logger;
    static std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    bool const parsed = parser->parse(data, size);
    gParsed += parsed ? 1 : 0;
    // A failed parse must say why; a successful one has no errors.
    if (parsed != (parser->getNbErrors() == 0))
    {
        std::fprintf(stderr, "parse returned %d with %d errors\n", parsed, parser->getNbErrors());
        std::abort();
    }
    for (int i = 0; i < parser->getNbErrors(); ++i)
    {
        nvonnxparser::IParserError const* error = parser->getError(i);
        if (error == nullptr || error->desc() == nullptr || error->desc()[0] == '\0')
        {
            std::fprintf(stderr, "error %d has no description\n", i);
            std::abort();
        }
    }
    return 0;
}

#ifndef KILN_LIBFUZZER
namespace
{

std::vector<uint8_t> readFile(std::filesystem::path const& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<uint8_t> mutate(std::vector<uint8_t> bytes, std::mt19937_64& random)
{
    auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(random() % n); };
    int const edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e)
    {
        switch (random() % 6)
        {
        case 0: // flip a bit
            if (!bytes.empty())
            {
                bytes[pick(bytes.size())] ^= static_cast<uint8_t>(1U << (random() % 8));
            }
            break;
        case 1: // overwrite a byte with an interesting value
            if (!bytes.empty())
            {
                uint8_t const values[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x10, 0x12, 0x1a, 0x22};
                bytes[pick(bytes.size())] = values[pick(sizeof values)];
            }
            break;
        case 2: // truncate
            bytes.resize(pick(bytes.size() + 1));
            break;
        case 3: // insert random bytes
        {
            size_t const at = pick(bytes.size() + 1);
            size_t const n = 1 + pick(8);
            for (size_t i = 0; i < n; ++i)
            {
                bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(random()));
            }
            break;
        }
        case 4: // duplicate a range
            if (!bytes.empty() && bytes.size() < (1U << 20))
            {
                size_t const from = pick(bytes.size());
                size_t const n = 1 + pick(std::min<size_t>(64, bytes.size() - from));
                std::vector<uint8_t> chunk(bytes.begin() + static_cast<std::ptrdiff_t>(from),
                    bytes.begin() + static_cast<std::ptrdiff_t>(from + n));
                bytes.insert(
                    bytes.begin() + static_cast<std::ptrdiff_t>(pick(bytes.size() + 1)), chunk.begin(), chunk.end());
            }
            break;
        default: // erase a range
            if (!bytes.empty())
            {
                size_t const from = pick(bytes.size());
                size_t const n = 1 + pick(std::min<size_t>(16, bytes.size() - from));
                bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(from),
                    bytes.begin() + static_cast<std::ptrdiff_t>(from + n));
            }
            break;
        }
    }
    return bytes;
}

} // namespace

int main(int argc, char** argv)
{
    long iterations = 2000;
    uint64_t seed = 2026;
    std::vector<std::filesystem::path> seeds;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "--iterations" && i + 1 < argc)
        {
            iterations = std::stol(argv[++i]);
        }
        else if (arg == "--seed" && i + 1 < argc)
        {
            seed = std::stoull(argv[++i]);
        }
        else
        {
            seeds.emplace_back(arg);
        }
    }
    if (seeds.empty())
    {
        std::filesystem::path const node = "/usr/share/libonnx-testdata/data/node";
        for (char const* test : {"test_conv_with_strides_padding", "test_gemm_default_matrix_bias", "test_slice",
                 "test_layer_normalization_4d_axis1_expanded", "test_if", "test_reshape_reordered_all_dims",
                 "test_maxpool_2d_pads", "test_where_example", "test_constant", "test_split_equal_parts_1d"})
        {
            if (std::filesystem::exists(node / test / "model.onnx"))
            {
                seeds.push_back(node / test / "model.onnx");
            }
        }
    }
    std::vector<std::vector<uint8_t>> corpus;
    for (auto const& path : seeds)
    {
        corpus.push_back(readFile(path));
        LLVMFuzzerTestOneInput(corpus.back().data(), corpus.back().size());
    }
    corpus.emplace_back(); // the empty input
    std::mt19937_64 random(seed);
    for (long i = 0; i < iterations; ++i)
    {
        std::vector<uint8_t> input = mutate(corpus[static_cast<size_t>(random() % corpus.size())], random);
        LLVMFuzzerTestOneInput(input.data(), input.size());
    }
    std::printf("kiln_onnx_fuzz: %ld mutated inputs from %zu seeds (seed %llu) went through the parser without a "
                "crash; %ld parsed without errors\n",
        iterations, seeds.size(), static_cast<unsigned long long>(seed), gParsed);
    return 0;
}
#endif
