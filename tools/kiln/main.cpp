// SPDX-License-Identifier: Apache-2.0
// kiln: kiln's command-line tool, trtexec's build-and-run mode with trtexec's flags (`kiln --help`). The work is in
// build_and_run.cpp and the modules it calls.
//
//     kiln --onnx=model.onnx --shapes=input:8x3x224x224 --fp16 --saveEngine=model.plan
//     kiln --loadEngine=model.plan --shapes=input:8x3x224x224 --iterations=100
#include "build_and_run.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::string> const args(argv + 1, argv + argc);
    return kiln_tool::buildAndRun(args, std::cout, std::cerr).exitStatus;
}
