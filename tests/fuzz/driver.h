// SPDX-License-Identifier: Apache-2.0
// The mutation driver of kiln's fuzz targets when they are not built against libFuzzer (the default, and CI's smoke
// runs): each target defines LLVMFuzzerTestOneInput, and its main calls runFuzzDriver. The driver reads seeds (files,
// or every file of a directory), runs each once, then runs deterministic mutations of them (bit flips, byte
// overwrites, truncations, insertions, duplicated and erased ranges). With --replay it runs each input once and stops:
// the regression inputs a campaign found.
//
//     kiln_plan_fuzz [--iterations N] [--seed S] [--replay] [seed-file-or-directory ...]
//
//     int main(int argc, char** argv) { return kiln::fuzz::runFuzzDriver(argc, argv, "kiln_plan_fuzz", {}); }
#pragma once

#include "NvInferRuntime.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size);

namespace kiln::fuzz
{

//! Counts the errors it is told (messages of kERROR and worse that say something); prints nothing. The targets check
//! that a refusal (nullptr) came with an error.
class CountingLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kERROR && message != nullptr && message[0] != '\0')
        {
            ++errors;
        }
    }

    long errors{0};
};

//! Runs the driver over argv's options and seeds (defaultSeeds when argv names none); returns main's exit status
//! (1 when no seed could be read, or an option is malformed). Prints one line of what it ran.
int runFuzzDriver(int argc, char** argv, char const* name, std::vector<std::filesystem::path> const& defaultSeeds);

} // namespace kiln::fuzz
