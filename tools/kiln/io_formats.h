// SPDX-License-Identifier: Apache-2.0
// trtexec's --inputIOFormats and --outputIOFormats: "type:format[+format...]", comma-separated, one spec per network
// input (output) in the network's order, or one spec for all of them. Each spec is applied to its tensor before the
// build with ITensor::setType and ITensor::setAllowedFormats, so the engine's I/O tensors have that type and the tool
// binds, fills and exports them in it (tensors.h reads the engine's types).
//
// Where a spec's type is not the one the model gives the tensor, TensorRT's builder inserts a reformat between the I/O
// tensor and the layers; kiln's builder does not (its layers take the types their inputs have), so the tool inserts
// the conversion into the network itself: an input gets a cast (ICastLayer) back to the model's type that feeds its
// readers ("X from FP16 (--inputIOFormats)"), and an output becomes a cast to the spec's type that carries the
// output's name ("Y to FP16 (--outputIOFormats)"; the model's tensor is renamed "Y (FP32)"). Outputs keep their order.
//
// The names are data (io_formats.cpp): types fp32, fp16, bf16, int32, int64, int8, fp8, bool, uint8; formats chw,
// chw2, chw4, hwc8, chw16, chw32, dhwc8, cdhw32, hwc, dla_linear, dla_hwc4, hwc16, dhwc. kiln's builder gives network
// inputs and outputs the linear format only (kLINEAR, trtexec's chw): a spec that names any other format is refused
// with that reason, naming the format. A type kiln's cast layer cannot convert (FP8, which takes Q/DQ) fails the
// build with kiln's error naming the cast.
//
//     std::vector<IoFormat> const inputs = parseIoFormats("fp16:chw,int32:chw");   // SpecError on bad syntax
//     applyIoFormats(network, inputs, outputs);   // a Failure naming the counts when they differ from the network's

#pragma once

#include "NvInfer.h"

#include <string>
#include <string_view>
#include <vector>

namespace kiln_tool
{

//! One tensor's type and allowed formats, as given.
struct IoFormat
{
    nvinfer1::DataType type{};
    nvinfer1::TensorFormats formats{}; //!< A mask of 1 << TensorFormat bits.
    std::string text;                  //!< The spec as given, for messages: "fp16:chw".
};

//! "type:format[+format...][,type:format...]"; a SpecError quoting the entry for an unknown type or format, or a
//! format kiln's builder does not give network I/O tensors (every one but chw), with the reason.
std::vector<IoFormat> parseIoFormats(std::string_view text);

//! trtexec's name of format ("chw", "hwc8", ...).
std::string_view formatName(nvinfer1::TensorFormat format) noexcept;

//! Sets the type and allowed formats of network's inputs from inputs and of its outputs from outputs (either may be
//! empty: those tensors keep the model's types), with the casts the file comment describes. One spec applies to every
//! tensor of its side; otherwise the counts must match, else a Failure naming both counts. A Failure when the network
//! refuses a type or a cast (kiln's error says why).
void applyIoFormats(
    nvinfer1::INetworkDefinition& network, std::vector<IoFormat> const& inputs, std::vector<IoFormat> const& outputs);

} // namespace kiln_tool
