// SPDX-License-Identifier: Apache-2.0
// The kiln tool's build-and-run mode (trtexec's one mode): options parsed, the engine built from --onnx (or read from
// --loadEngine), deserialized, and timed; the report goes to out and the messages to err. Callable without a process:
// arguments in, a result and text out.
//
//     std::ostringstream out, err;
//     RunResult const result = buildAndRun({"--onnx=m.onnx", "--shapes=x:2x4", "--duration=0"}, out, err);
//     // result.exitStatus: 0 success, 1 failure (parse, build, load or run), 2 usage error
#pragma once

#include "report.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

struct RunResult
{
    int exitStatus{0};
    bool built{};                              //!< An engine was built (not loaded with --loadEngine).
    std::optional<PerformanceSummary> summary; //!< Present when inference ran.
};

//! Runs the mode on args (the command line without the program's name).
RunResult buildAndRun(std::vector<std::string> const& args, std::ostream& out, std::ostream& err);

} // namespace kiln_tool
