// SPDX-License-Identifier: Apache-2.0
// The executor's loops (runtime/executor.h, "Loops"): a loop's block run once per iteration, its boundary layers done
// here with the backends' slice, copy and shuffle kernels.
#include "runtime/executor.h"

#include "backends/host/if_conditional.h"
#include "runtime/executor_support.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace kiln
{

using namespace executor_detail;
using nvinfer1::Dims;
using nvinfer1::ErrorCode;

namespace
{

//! dims with the extent at axis set to 1 (a slice of one iteration, in its input's rank).
Dims oneAt(Dims dims, int32_t axis) noexcept
{
    dims.d[axis] = 1;
    return dims;
}

//! A slice layer that takes index idx of axis of a tensor of shape in (from tensor `from` into tensor `to`).
LayerRecord sliceAt(Dims const& in, int32_t axis, int64_t idx, int32_t from, int32_t to)
{
    LayerRecord record;
    record.name = "iterator slice";
    record.type = LayerType::kSLICE;
    SliceParams params;
    params.start = Dims{in.nbDims, {}};
    params.size = oneAt(in, axis);
    params.stride = Dims{in.nbDims, {}};
    for (int32_t j = 0; j < in.nbDims; ++j)
    {
        params.stride.d[j] = 1;
    }
    params.start.d[axis] = idx;
    record.params = params;
    record.inputs = {from};
    record.outputs = {to};
    return record;
}

//! A shuffle that moves axis 0 of a tensor of rank `rank` to position axis (tensor `to`, read from a stack of the
//! iterations of tensor `from`).
LayerRecord moveFirstAxisTo(int32_t rank, int32_t axis, int32_t from, int32_t to)
{
    LayerRecord record;
    record.name = "loop output transpose";
    record.type = LayerType::kSHUFFLE;
    ShuffleParams params;
    for (int32_t j = 0, k = 1; j < rank; ++j)
    {
        params.firstTranspose.order[j] = j == axis ? 0 : k++;
    }
    record.params = params;
    record.inputs = {from};
    record.outputs = {to};
    return record;
}

} // namespace

host::Status Executor::copyOnSide(void* to, void const* from, int64_t bytes, Side side, cudaStream_t stream)
{
    if (bytes <= 0 || to == from)
    {
        return host::Done{};
    }
    if (side == Side::kHOST)
    {
        std::memmove(to, from, static_cast<std::size_t>(bytes));
        return host::Done{};
    }
#if KILN_WITH_CUDA
    cudaError_t const status
        = cudaMemcpyAsync(to, from, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, stream);
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return failure(
            ErrorCode::kFAILED_EXECUTION, std::string("a loop's copy failed: ") + cudaGetErrorString(status));
    }
    return host::Done{};
#else
    static_cast<void>(stream);
    return failure(ErrorCode::kINTERNAL_ERROR, "a loop's copy in device memory without CUDA");
#endif
}

host::Status Executor::placeBoundaryOutput(
    int32_t tensor, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    auto const completed = completeShape(tensor, mValues);
    if (!completed)
    {
        return completed;
    }
    return placeOutput(tensor, bindings, memory, stream);
}

host::Status Executor::refreshMirror(int32_t tensor, Bindings const& bindings, cudaStream_t stream, bool& copiedToHost)
{
    return mProgram.mirrored(tensor) ? mirror(tensor, bindings, stream, copiedToHost) : host::Status{host::Done{}};
}

host::Status Executor::runLoop(
    LoopBlock const& loop, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream, bool& copiedToHost)
{
    EngineModel const& model = mProgram.model();
    auto const layerAt = [&](int32_t l) -> LayerRecord const& { return model.layers[static_cast<std::size_t>(l)]; };
    auto const fail = [&](int32_t l, host::Status const& status) -> host::Status {
        return failure(status.error().code == ErrorCode::kSUCCESS ? ErrorCode::kFAILED_EXECUTION : status.error().code,
            layerText(layerAt(l)) + ": " + status.error().message);
    };
    auto const backendOf = [&](int32_t l) -> Backend& {
        return mProgram.layerSide(l) == Side::kHOST && mHostBackend != nullptr ? *mHostBackend : *mBackend;
    };
    auto const bytesOf = [&](int32_t tensor) { return currentBytes(tensor); };

    // The trip limits: a count read now, a condition read each iteration.
    int64_t count = std::numeric_limits<int64_t>::max();
    int32_t condition = kNoTensor;
    for (int32_t l : loop.tripLimits)
    {
        LayerRecord const& layer = layerAt(l);
        if (std::get<TripLimitParams>(layer.params).kind == nvinfer1::TripLimit::kWHILE)
        {
            condition = layer.inputs[0];
            continue;
        }
        auto const t = static_cast<std::size_t>(layer.inputs[0]);
        auto const value = readShapeValue(viewOn(layer.inputs[0], Side::kHOST), 0, model.tensors[t].name);
        if (!value)
        {
            return fail(l, value.error());
        }
        if (value.value() < 0)
        {
            return fail(l,
                failure(ErrorCode::kINVALID_ARGUMENT,
                    "the trip count is " + std::to_string(value.value()) + "; it must be at least 0"));
        }
        count = value.value();
    }
    if (condition == kNoTensor && count == std::numeric_limits<int64_t>::max())
    {
        return fail(loop.members.front(), failure(ErrorCode::kINVALID_ARGUMENT, "the loop has no trip limit"));
    }

    // A loop output's shape may depend on values the body computes: it is placed once the first iteration has made
    // its value (or after the last one).
    std::vector<int32_t> placedOutputs;
    auto const placeLoopOutput = [&](int32_t l) -> host::Status {
        if (std::find(placedOutputs.begin(), placedOutputs.end(), l) != placedOutputs.end())
        {
            return host::Done{};
        }
        LayerRecord const& layer = layerAt(l);
        int32_t const out = layer.outputs[0];
        if (auto const placed = placeBoundaryOutput(out, bindings, memory, stream); !placed)
        {
            return fail(l, placed);
        }
        auto const& params = std::get<LoopOutputParams>(layer.params);
        if (params.kind != nvinfer1::LoopOutput::kLAST_VALUE && params.axis != 0)
        {
            auto const bytes = bytesOf(out);
            if (!bytes)
            {
                return fail(l, bytes.error());
            }
            mLoopBuffers[static_cast<std::size_t>(out)].reserve(bytes.value(), stream);
        }
        placedOutputs.push_back(l);
        return host::Done{};
    };

    // The iterators' and recurrences' outputs, and the recurrences' initial values.
    for (int32_t l : loop.members)
    {
        LayerRecord const& layer = layerAt(l);
        if (layer.type != LayerType::kRECURRENCE && layer.type != LayerType::kITERATOR)
        {
            continue;
        }
        int32_t const out = layer.outputs[0];
        if (auto const placed = placeBoundaryOutput(out, bindings, memory, stream); !placed)
        {
            return fail(l, placed);
        }
        auto const bytes = bytesOf(out);
        if (!bytes)
        {
            return fail(l, bytes.error());
        }
        Side const side = mProgram.layerSide(l);
        auto const o = static_cast<std::size_t>(out);
        if (layer.type == LayerType::kRECURRENCE)
        {
            host::HostTensor const& initial = viewOn(layer.inputs[0], side);
            if (host::elementCount(initial.dims) != host::elementCount(mShapes[o]))
            {
                return fail(l,
                    failure(ErrorCode::kINVALID_ARGUMENT,
                        "the initial value has shape " + dimsText(initial.dims) + " but the recurrence "
                            + dimsText(mShapes[o])));
            }
            mLoopBuffers[o].reserve(bytes.value(), stream);
            if (auto const copied = copyOnSide(mViews[o].data, initial.data, bytes.value(), side, stream); !copied)
            {
                return fail(l, copied);
            }
            if (auto const mirrored = refreshMirror(out, bindings, stream, copiedToHost); !mirrored)
            {
                return fail(l, mirrored);
            }
        }
    }
    if (auto const synced = synchronize(copiedToHost, stream); !synced)
    {
        return synced;
    }

    int64_t iteration = 0;
    for (; iteration < count; ++iteration)
    {
        // Each iterator's slice of this iteration.
        for (int32_t l : loop.iterators)
        {
            LayerRecord const& layer = layerAt(l);
            auto const& params = std::get<IteratorParams>(layer.params);
            host::HostTensor const& data = viewOn(layer.inputs[0], mProgram.layerSide(l));
            int64_t const extent = data.dims.d[params.axis];
            int64_t const index = params.reverse ? extent - 1 - iteration : iteration;
            if (index < 0 || index >= extent)
            {
                return fail(l,
                    failure(ErrorCode::kINVALID_ARGUMENT,
                        "iteration " + std::to_string(iteration) + " is past the extent " + std::to_string(extent)
                            + " of axis " + std::to_string(params.axis) + " of the iterated tensor"));
            }
            int32_t const out = layer.outputs[0];
            host::HostTensor slice = mViews[static_cast<std::size_t>(out)];
            slice.dims = oneAt(data.dims, params.axis);
            host::HostTensor const* in[1]{&data};
            auto const ran = backendOf(l).runLayer(
                sliceAt(data.dims, params.axis, index, layer.inputs[0], out), model, in, {&slice, 1}, stream);
            if (!ran)
            {
                return fail(l, ran);
            }
            if (auto const mirrored = refreshMirror(out, bindings, stream, copiedToHost); !mirrored)
            {
                return fail(l, mirrored);
            }
        }
        // A kWHILE condition: what it depends on, then its value.
        if (condition != kNoTensor)
        {
            for (int32_t l : loop.conditionLayers)
            {
                if (auto const ran = runLayerAt(static_cast<std::size_t>(l), bindings, memory, stream, copiedToHost);
                    !ran)
                {
                    return ran;
                }
            }
            if (auto const synced = synchronize(copiedToHost, stream); !synced)
            {
                return synced;
            }
            if (!host::conditionalBranch(viewOn(condition, Side::kHOST)))
            {
                break;
            }
        }
        // The body, and each concatenating output's slice of the iteration.
        for (int32_t l : loop.members)
        {
            LayerRecord const& layer = layerAt(l);
            bool const boundary = layer.type == LayerType::kTRIP_LIMIT || layer.type == LayerType::kITERATOR
                || layer.type == LayerType::kRECURRENCE;
            bool const ranForCondition = condition != kNoTensor
                && std::find(loop.conditionLayers.begin(), loop.conditionLayers.end(), l) != loop.conditionLayers.end();
            if (boundary || ranForCondition)
            {
                continue;
            }
            if (layer.type != LayerType::kLOOP_OUTPUT)
            {
                if (auto const ran = runLayerAt(static_cast<std::size_t>(l), bindings, memory, stream, copiedToHost);
                    !ran)
                {
                    return ran;
                }
                continue;
            }
            auto const& params = std::get<LoopOutputParams>(layer.params);
            if (params.kind == nvinfer1::LoopOutput::kLAST_VALUE)
            {
                continue;
            }
            if (auto const placed = placeLoopOutput(l); !placed)
            {
                return placed;
            }
            auto const o = static_cast<std::size_t>(layer.outputs[0]);
            int64_t const length = mShapes[o].d[params.axis];
            if (iteration >= length)
            {
                return fail(l,
                    failure(ErrorCode::kINVALID_ARGUMENT,
                        "the loop runs more than the output's length of " + std::to_string(length) + " iterations"));
            }
            Side const side = mProgram.layerSide(l);
            host::HostTensor const& value = viewOn(layer.inputs[0], side);
            auto const bytes = tensorBytes(value.type, value.dims);
            if (!bytes)
            {
                return fail(l, bytes.error());
            }
            int64_t const slot = params.kind == nvinfer1::LoopOutput::kREVERSE ? length - 1 - iteration : iteration;
            auto* base = static_cast<std::byte*>(params.axis == 0 ? mViews[o].data : mLoopBuffers[o].data());
            if (auto const copied = copyOnSide(base + slot * bytes.value(), value.data, bytes.value(), side, stream);
                !copied)
            {
                return fail(l, copied);
            }
        }
        // Double buffering: every recurrence's next value into its second buffer, then each into its current one (a
        // recurrence may read another's current value).
        for (int32_t l : loop.recurrences)
        {
            LayerRecord const& layer = layerAt(l);
            auto const o = static_cast<std::size_t>(layer.outputs[0]);
            Side const side = mProgram.layerSide(l);
            host::HostTensor const& next = viewOn(layer.inputs[1], side);
            if (host::elementCount(next.dims) != host::elementCount(mShapes[o]))
            {
                return fail(l,
                    failure(ErrorCode::kINVALID_ARGUMENT,
                        "the next value has shape " + dimsText(next.dims) + " but the recurrence "
                            + dimsText(mShapes[o])));
            }
            auto const bytes = bytesOf(layer.outputs[0]);
            if (!bytes)
            {
                return fail(l, bytes.error());
            }
            if (auto const copied = copyOnSide(mLoopBuffers[o].data(), next.data, bytes.value(), side, stream); !copied)
            {
                return fail(l, copied);
            }
        }
        for (int32_t l : loop.recurrences)
        {
            int32_t const out = layerAt(l).outputs[0];
            auto const o = static_cast<std::size_t>(out);
            auto const bytes = bytesOf(out);
            if (!bytes)
            {
                return fail(l, bytes.error());
            }
            if (auto const copied
                = copyOnSide(mViews[o].data, mLoopBuffers[o].data(), bytes.value(), mProgram.layerSide(l), stream);
                !copied)
            {
                return fail(l, copied);
            }
            if (auto const mirrored = refreshMirror(out, bindings, stream, copiedToHost); !mirrored)
            {
                return fail(l, mirrored);
            }
        }
        if (auto const synced = synchronize(copiedToHost, stream); !synced)
        {
            return synced;
        }
    }

    // The outputs: a recurrence's last value, a stack transposed into place.
    for (int32_t l : loop.outputs)
    {
        if (auto const placed = placeLoopOutput(l); !placed)
        {
            return placed;
        }
        LayerRecord const& layer = layerAt(l);
        auto const& params = std::get<LoopOutputParams>(layer.params);
        int32_t const out = layer.outputs[0];
        auto const o = static_cast<std::size_t>(out);
        Side const side = mProgram.layerSide(l);
        if (params.kind == nvinfer1::LoopOutput::kLAST_VALUE)
        {
            host::HostTensor const& value = viewOn(layer.inputs[0], side);
            auto const bytes = bytesOf(out);
            if (!bytes)
            {
                return fail(l, bytes.error());
            }
            if (auto const copied = copyOnSide(mViews[o].data, value.data, bytes.value(), side, stream); !copied)
            {
                return fail(l, copied);
            }
        }
        else if (params.axis != 0)
        {
            Dims stacked{mShapes[o].nbDims, {}};
            stacked.d[0] = mShapes[o].d[params.axis];
            for (int32_t j = 0, k = 1; j < mShapes[o].nbDims; ++j)
            {
                if (j != params.axis)
                {
                    stacked.d[k++] = mShapes[o].d[j];
                }
            }
            host::HostTensor const stack{mLoopBuffers[o].data(), mViews[o].type, stacked, mViews[o].scale};
            host::HostTensor const* in[1]{&stack};
            auto const ran = backendOf(l).runLayer(
                moveFirstAxisTo(stacked.nbDims, params.axis, layer.inputs[0], out), model, in, {&mViews[o], 1}, stream);
            if (!ran)
            {
                return fail(l, ran);
            }
        }
        if (auto const mirrored = refreshMirror(out, bindings, stream, copiedToHost); !mirrored)
        {
            return fail(l, mirrored);
        }
        int32_t const position = mProgram.ioPositionOfTensor(out);
        if (position >= 0 && bindings.allocators[static_cast<std::size_t>(position)] != nullptr)
        {
            bindings.allocators[static_cast<std::size_t>(position)]->notifyShape(
                model.tensors[o].name.c_str(), mShapes[o]);
        }
    }
    return synchronize(copiedToHost, stream);
}

} // namespace kiln
