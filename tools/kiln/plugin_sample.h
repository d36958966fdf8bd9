// SPDX-License-Identifier: Apache-2.0
// Sample inputs for `kiln check-plugin`. A creator does not say how many inputs its plugin takes, of which types or
// shapes, so the tool finds a configuration the plugin accepts, the way TensorRT's format negotiation asks:
// - input counts: --inputs=N, or the count of --shapes, or else 1, 2, 3, 4 in turn;
// - shapes: --shapes for every input, or else every input 2x3x4x5, then 2x3x4, 2x3 and 6;
// - types, linear format only: position by position, the first of FP32, FP16, BF16, INT32, INT64, INT8, UINT8, BOOL,
//   FP8 that supportsFormatCombination accepts given the positions before it; the outputs take the types
//   getOutputDataTypes gives, which supportsFormatCombination must accept too;
// - output shapes: getOutputShapes (getOutputDimensions for V2) through a constant-folding IExprBuilder.
// The first configuration whose output shapes come back as constants wins. Failing that, one whose getOutputShapes
// returned success with outputs that break its contract (the output-shapes rule reports it), then one it refused
// (an error status: the rules that need output shapes are skipped with the reason).
//
//     ProbeResult const probe = findSample(queries, options);
//     if (probe.sample) std::cout << probe.sample->text();   // "1 input FP32 2x3x4x5 -> 1 output FP32 2x3x4x5"
#pragma once

#include "constant_exprs.h"

#include "NvInferRuntime.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln_tool
{

//! What the user said about samples: --field NAME=VALUES, --inputs=N, --shapes=AxB,CxD.
struct SampleOptions
{
    std::map<std::string, std::string> fields;
    std::optional<int32_t> nbInputs;
    std::vector<nvinfer1::Dims> shapes;
};

//! One tensor of a sample: its type and shape (linear format).
struct TensorSample
{
    nvinfer1::DataType type{};
    nvinfer1::Dims dims{};
};

//! A configuration the plugin accepted: inputs, and the outputs it declared for them.
struct SampleIO
{
    std::vector<TensorSample> inputs;
    std::vector<TensorSample> outputs; //!< Types always; dims when shapesKnown.
    bool shapesKnown{};                //!< Every output extent is a constant.
    std::string shapesProblem;         //!< getOutputShapes succeeded with outputs that break its contract.
    std::string shapesRefusal;         //!< Why shapes are unknown otherwise (an error status, size tensors).

    //! "2 inputs FP32 2x3x4x5, FP32 3x1x1x1 -> 1 output FP32 2x3x4x5".
    std::string text() const;
    nlohmann::json toJson() const;
    static SampleIO fromJson(nlohmann::json const& value);

    //! The inputs and then the outputs as descriptors (unknown output extents: -1).
    std::vector<nvinfer1::PluginTensorDesc> descriptors() const;
};

//! What a plugin answered about its output shapes at one sample.
struct ShapeAnswer
{
    bool refused{};       //!< It returned an error status (allowed: it does not take these inputs).
    std::string problem;  //!< It succeeded but broke the contract (an output unwritten, a bad rank or extent...).
    bool dataDependent{}; //!< Some extent is not a constant (size tensors).
    std::vector<nvinfer1::Dims> dims;
    std::string refusalText; //!< What it said when refused.
};

//! Reads the output shapes a plugin wrote into outputs (pre-filled by blankShapes()) through builder.
ShapeAnswer readShapes(std::vector<nvinfer1::DimsExprs> const& outputs, ConstantExprBuilder const& builder);
//! nbOutputs shapes marked as not written (rank -1).
std::vector<nvinfer1::DimsExprs> blankShapes(int32_t nbOutputs);
//! The inputs' shapes as constant expressions of builder.
std::vector<nvinfer1::DimsExprs> constantShapes(std::vector<nvinfer1::Dims> const& dims, ConstantExprBuilder& builder);

//! The questions the probe asks, whichever plugin family answers them.
struct PluginQueries
{
    int32_t nbOutputs{};
    //! supportsFormatCombination(pos, inOut, nbInputs, inOut.size() - nbInputs).
    std::function<bool(int32_t pos, std::vector<nvinfer1::PluginTensorDesc> const& inOut, int32_t nbInputs)> supports;
    //! getOutputDataTypes; false when it fails.
    std::function<bool(std::vector<nvinfer1::DataType> const& inputs, std::vector<nvinfer1::DataType>& outputs)>
        outputTypes;
    //! getOutputShapes (or getOutputDimensions) at concrete input shapes.
    std::function<ShapeAnswer(std::vector<nvinfer1::Dims> const& inputs)> outputShapes;
};

struct ProbeResult
{
    std::optional<SampleIO> sample;
    std::string why; //!< When there is none.
};

//! The sample configuration (see the file comment), or why none was found.
ProbeResult findSample(PluginQueries const& queries, SampleOptions const& options);

//! The candidate types, in the order they are tried.
std::vector<nvinfer1::DataType> const& candidateTypes();

} // namespace kiln_tool
