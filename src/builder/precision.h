// SPDX-License-Identifier: Apache-2.0
// Reduced precision in a weakly typed network (BuilderFlag::kFP16, kBF16): which layers of the engine compute in the
// 16-bit type, and the casts between them and the rest. builder/build.cpp runs it after the fusions and before the
// convolution layouts, on both backends; strongly typed networks keep the types their tensors have.
//
// - The type: kHALF with kFP16 (also when kBF16 is set too), kBF16 with kBF16 alone.
// - A layer computes in the 16-bit type when its kind has kernels for it and it is not accuracy-sensitive (below), it
//   is not in a loop or if-conditional, and the backend accepts the layer in that type at every profile's kOPT
//   shapes; with kOBEY_PRECISION_CONSTRAINTS or kPREFER_PRECISION_CONSTRAINTS, a precision set with
//   ILayer::setPrecision decides instead (kFLOAT: stays; the 16-bit type: computes in it; with kOBEY, a layer the
//   backend refuses in its precision fails the build, with kPREFER it stays kFLOAT with a warning).
// - Only kFLOAT tensors that carry data change type: shape values, tensors read for their values, network inputs
//   and outputs, outputs whose type was set with ILayer::setOutputType or ITensor::setType, a plugin's data inputs
//   and outputs (the types it negotiated, builder/plugin_build.cpp) and tensors in a format other than kLINEAR keep
//   theirs. A layer that reads or writes such a format (a reformat around a plugin) and an identity between tensors
//   that keep their types (a copy for aliased plugin I/O) keep their types too.
// - Accuracy-sensitive layers stay kFLOAT, as TensorRT keeps them: unfused sums and means (kREDUCE kSUM, kAVG,
//   kPROD), kPOW, kEXP, cumulative sums, and value generators (fills, random). Fused layer norms, fused attention and
//   softmax compute in float inside their kernels and take 16-bit tensors.
// - Constants whose every reader computes in the 16-bit type are stored in it; the kernels of 16-bit convolutions
//   and deconvolutions too, and the bias of 16-bit convolutions (so cuDNN adds it in the convolution's epilogue), when
//   they are not refittable; finite weights beyond the half range are clamped to it.
// - A cast layer (ICastLayer kind) is inserted before the first reader that needs a tensor in the other type (one per
//   tensor and type, shared by later readers), and after a 16-bit layer that makes a network output or an output
//   whose type the application set (the layer writes a 16-bit twin that the cast converts): named
//   "<layer> input <i> to <type>" / "<layer> output <o> to <type>", tensors "<tensor> (<type>)".
//
// - Said, not done: kTF32 (kFLOAT kernels compute in full FP32; kINFO), kINT8, kFP8 and kINT4 in a weakly typed
//   network and an INT8 calibrator (implicit quantization; kWARNING).
//
//     auto const changed = chooseReducedPrecision(model, kept, settings, network.isStronglyTyped(), backend, concrete);
//     // changed.value(): how many layers compute in the 16-bit type
#pragma once

#include "backends/backend.h"
#include "builder/build_passes.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln
{

//! The reduced type of the file comment (kHALF with kFP16, kBF16 with kBF16 alone), or none: neither flag is set, or
//! the network is strongly typed. Plugins may take it for their kFLOAT inputs (plugin_build.cpp).
std::optional<DataType> reducedType(BuildSettings const& settings, bool stronglyTyped);

//! Gives model's layers the reduced precision the flags in settings ask for, as the file comment says; returns the
//! number of layers that compute in it (0 when no flag asks for one or the network is strongly typed), or the error
//! of a layer that kOBEY_PRECISION_CONSTRAINTS cannot satisfy.
Expected<int32_t> chooseReducedPrecision(EngineModel& model, KeptTensors& kept, BuildSettings const& settings,
    bool stronglyTyped, Backend const& backend, std::vector<ConcreteShapes> const& profiles);

} // namespace kiln
