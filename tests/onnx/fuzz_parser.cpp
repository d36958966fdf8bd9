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
// Otherwise (the default, and the ctest onnx.fuzz_smoke) it runs under the fuzz targets' own mutation driver
// (tests/fuzz/driver.h), seeded with the models given or ten of ONNX's node test models:
//     kiln_onnx_fuzz [--iterations N] [--seed S] [--replay] [model.onnx or directory ...]
#include "NvInfer.h"
#include "NvOnnxParser.h"
#include "fuzz/driver.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
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
int main(int argc, char** argv)
{
    std::vector<std::filesystem::path> seeds;
    std::filesystem::path const node = "/usr/share/libonnx-testdata/data/node";
    for (char const* test : {"test_conv_with_strides_padding", "test_gemm_default_matrix_bias", "test_slice",
             "test_layer_normalization_4d_axis1_expanded", "test_if", "test_reshape_reordered_all_dims",
             "test_maxpool_2d_pads", "test_where_example", "test_constant", "test_split_equal_parts_1d"})
    {
        seeds.push_back(node / test / "model.onnx");
    }
    int const status = kiln::fuzz::runFuzzDriver(argc, argv, "kiln_onnx_fuzz", seeds);
    std::printf("kiln_onnx_fuzz: %ld inputs parsed without errors\n", gParsed);
    return status;
}
#endif
