// SPDX-License-Identifier: Apache-2.0
// kiln: kiln's command-line tool. Without a subcommand, trtexec's build-and-run mode with trtexec's flags
// (`kiln --help`; build_and_run.cpp); `kiln inspect FILE` reports what a plan, an ONNX model or a plugin library
// holds (`kiln inspect --help`; inspect.cpp); `kiln check-plugin LIBRARY` proves a plugin library's creators keep
// the plugin contract, rule by rule, without a GPU where it can (`kiln check-plugin --help`; check_plugin.cpp);
// `kiln compare MODEL` runs an ONNX model through kiln's CUDA and host backends and ONNX Runtime on the same inputs
// and compares the outputs against a reference, exit status 1 on a mismatch (`kiln compare --help`; compare.cpp).
//
//     kiln --onnx=model.onnx --shapes=input:8x3x224x224 --fp16 --saveEngine=model.plan
//     kiln --loadEngine=model.plan --shapes=input:8x3x224x224 --iterations=100
//     kiln inspect model.plan --json
//     kiln check-plugin libmy_plugins.so
//     kiln compare model.onnx --fp16 --atol=1e-2 --rtol=1e-2
#include "build_and_run.h"
#include "check_plugin.h"
#include "compare.h"
#include "inspect.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::string> const args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "inspect")
    {
        return kiln_tool::runInspect(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);
    }
    if (!args.empty() && args.front() == "check-plugin")
    {
        return kiln_tool::runCheckPlugin(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);
    }
    if (!args.empty() && args.front() == "compare")
    {
        return kiln_tool::runCompare(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr)
            .exitStatus;
    }
    return kiln_tool::buildAndRun(args, std::cout, std::cerr).exitStatus;
}
