// SPDX-License-Identifier: Apache-2.0
// `kiln compare`'s runners: what runs the model and hands back its outputs.
// - cuda and host (compare_kiln.cpp): kiln itself, through the build-and-run mode's modules: the plan built for that
//   backend (KILN_BACKEND set for the build), deserialized, its inputs filled by IoBindings (--loadInputs, else random
//   from the seed), one inference run by runInference. The cuda runner needs a tool built with CUDA and a usable GPU.
// - onnxruntime (compare_onnxruntime.cpp): ONNX Runtime's CPU execution provider through Python. The tool writes a
//   small script, the inputs kiln made (raw files) and a JSON manifest to a temporary folder, runs the script with the
//   Python interpreter, and reads the outputs back as float64 raw files described by a result manifest.
//
//     KilnRun const host = runKiln("host", options, /*seed=*/1, log);
//     OnnxRuntimeRun const ort = runOnnxRuntime("model.onnx", host.inputs, "python3");
//     if (!ort.ran) ...   // ort.reason: python or onnxruntime missing, or ONNX Runtime refused the model
#pragma once

#include "compare_values.h"
#include "options.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

//! What a kiln runner made and produced.
struct KilnRun
{
    std::vector<InputTensor> inputs;
    std::vector<TensorValues> outputs;
    std::string detail; //!< "kiln's host backend" or "kiln's CUDA backend on device 0: NAME".
};

//! Empty when kiln's backend ("cuda" or "host") can run here; else why not.
std::string kilnBackendUnusable(std::string const& backend);

//! Builds options.onnx for kiln's backend ("cuda" or "host") with options' shapes, precisions and plugins (loaded
//! already), runs one inference on inputs filled from options.loadInputs and seed, and returns the inputs and the
//! outputs. The build's messages go to log. A Failure names what failed.
KilnRun runKiln(std::string const& backend, Options const& options, uint32_t seed, std::ostream& log);

struct OnnxRuntimeRun
{
    bool ran{};
    std::string reason; //!< Why it did not run: Python, numpy or onnxruntime missing, or ONNX Runtime's refusal.
    std::string version;
    std::vector<TensorValues> outputs;
    std::vector<std::string> notes; //!< Inputs cast to the model's types, and the like.
};

//! Runs model on ONNX Runtime (CPUExecutionProvider) with inputs, through the Python interpreter python. Not ran, with
//! the reason, when python cannot run or import onnxruntime and numpy, when an input's type has no numpy type, or when
//! ONNX Runtime refuses the model (a custom-domain plugin node, say: its message is the reason). A Failure when the
//! model loads but the run fails.
OnnxRuntimeRun runOnnxRuntime(
    std::string const& model, std::vector<InputTensor> const& inputs, std::string const& python);

} // namespace kiln_tool
