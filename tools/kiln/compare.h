// SPDX-License-Identifier: Apache-2.0
// `kiln compare MODEL`: runs one ONNX model through several runners on the same inputs and compares every output
// against a reference, as Polygraphy's `run` does with its runners. Runners (compare_runners.h): cuda (kiln's CUDA
// backend, where the tool has CUDA and a GPU is usable), host (kiln's host backend, always) and onnxruntime (ONNX
// Runtime through Python, where onnxruntime and numpy import); --loadOutputs adds a file of expected outputs in
// --exportOutput's layout as one more source, "file". A runner that cannot run is reported as skipped with the reason.
// With a GPU, cuda against host compares each plugin's CUDA enqueue with its enqueueHost.
//
// Inputs: --loadInputs files, else random from --seed, filled once by kiln's input code (the first kiln runner) and
// given to every runner. The reference: --reference, else the file, else onnxruntime, else host, else cuda. Each
// output of every other source is compared with it (compare_stats.h: max and mean absolute error, max relative error,
// the worst index, the elements over atol + rtol * |reference|); text shows a table per output, --json one object.
// Exit status: 0 when every comparison passed, 1 on a mismatch, a runner that failed, a runner named in --runners that
// did not run, or nothing to compare; 2 for usage errors.
//
//     kiln compare model.onnx                                   # every available runner, against ONNX Runtime
//     kiln compare model.onnx --fp16 --atol=1e-2 --rtol=1e-2    # kiln in FP16 against ONNX Runtime in FP32
//     kiln compare identity_conv.onnx --staticPlugins=libkiln_identity_conv_plugin.so --shapes=X:2x3x8x8
//         --loadInputs=X:input.bin --loadOutputs=expected.json --runners=host
#pragma once

#include "compare_report.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

struct CompareRun
{
    int exitStatus{0};
    std::optional<CompareReport> report; //!< Present when the runners ran (not after --help or a usage error).
};

//! Runs `kiln compare` with args (the words after "compare"); the report goes to out, messages to err.
CompareRun runCompare(std::vector<std::string> const& args, std::ostream& out, std::ostream& err);

} // namespace kiln_tool
