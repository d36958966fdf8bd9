// SPDX-License-Identifier: Apache-2.0
// The executor's shape values (runtime/executor.h, "Shape values"): the inputs a run was last given, the precomputed
// layers run once per set of input shapes on the host, and their device copies.
#include "runtime/executor.h"

#include "runtime/executor_support.h"

#include <algorithm>
#include <cstring>

namespace kiln
{

using namespace executor_detail;
using nvinfer1::Dims;
using nvinfer1::ErrorCode;

namespace
{

bool sameDims(Dims const& a, Dims const& b) noexcept
{
    return a.nbDims == b.nbDims && std::equal(a.d, a.d + std::max(a.nbDims, 0), b.d);
}

//! The bytes of the values of an input shape tensor of type and shape (0 for a shape not set).
int64_t valueBytes(DataType type, Dims const& shape)
{
    auto const bytes = tensorBytes(type, shape);
    return bytes ? bytes.value() : 0;
}

//! Whether a constant layer's output is its weights as they are (no conversion): its host view may be the weights.
bool plainConstant(LayerRecord const& layer, TensorRecord const& out)
{
    auto const* constant = std::get_if<ConstantParams>(&layer.params);
    return constant != nullptr && constant->weights.values != nullptr && constant->weights.type == out.type
        && out.scale == 1.F && dataTypeBits(out.type) % 8 == 0 && out.format == nvinfer1::TensorFormat::kLINEAR;
}

} // namespace

bool Executor::sameInputs(Bindings const& bindings) const
{
    if (bindings.profile != mInputKey.profile || bindings.shapes.size() < mInputKey.shapes.size())
    {
        return false;
    }
    for (std::size_t p = 0; p < mInputKey.shapes.size(); ++p)
    {
        if (!sameDims(bindings.shapes[p], mInputKey.shapes[p]))
        {
            return false;
        }
    }
    EngineModel const& model = mProgram.model();
    for (std::size_t k = 0; k < mShapeTensorInputs.size(); ++k)
    {
        auto const p = static_cast<std::size_t>(mShapeTensorInputs[k]);
        std::vector<std::byte> const& saved = mInputKey.values[k];
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(mProgram.ioTensors()[p].tensor)];
        if (bindings.addresses[p] == nullptr
            || static_cast<int64_t>(saved.size()) != valueBytes(tensor.type, bindings.shapes[p])
            || (!saved.empty() && std::memcmp(saved.data(), bindings.addresses[p], saved.size()) != 0))
        {
            return false;
        }
    }
    return true;
}

void Executor::rememberInputs(Bindings const& bindings)
{
    EngineModel const& model = mProgram.model();
    ++mInputsGeneration;
    mInputKey.profile = bindings.profile;
    mInputKey.shapes.assign(bindings.shapes.begin(), bindings.shapes.begin() + model.nbInputs);
    for (std::size_t k = 0; k < mShapeTensorInputs.size(); ++k)
    {
        auto const p = static_cast<std::size_t>(mShapeTensorInputs[k]);
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(mProgram.ioTensors()[p].tensor)];
        auto const* bytes = static_cast<std::byte const*>(bindings.addresses[p]);
        auto const size = static_cast<std::size_t>(valueBytes(tensor.type, bindings.shapes[p]));
        mInputKey.values[k].assign(bytes, bytes == nullptr ? bytes : bytes + size);
    }
}

host::Status Executor::prepareInputs(Bindings const& bindings)
{
    if (mInputsKnown && sameInputs(bindings))
    {
        if (mValuesExtended)
        {
            mValues = *mStaticValues;
            mValuesExtended = false;
        }
        return host::Done{};
    }
    mInputsKnown = false;
    mShapeValuesReady = false;
    auto const evaluated = evaluateStatic(bindings);
    if (!evaluated)
    {
        return evaluated;
    }
    rememberInputs(bindings);
    mInputsKnown = true;
    mValuesExtended = false;
    return host::Done{};
}

host::Status Executor::prepareShapeValues(Bindings const& bindings)
{
    if (mPrecomputedLayers.empty())
    {
        return host::Done{};
    }
    auto const prepared = prepareInputs(bindings);
    if (!prepared || mShapeValuesReady)
    {
        return prepared;
    }
    return computeShapeValues(bindings, mLastStream);
}

host::Status Executor::computeShapeValues(Bindings const& bindings, cudaStream_t stream)
{
    EngineModel const& model = mProgram.model();
    Backend& hostBackend = mHostBackend != nullptr ? *mHostBackend : *mBackend;
    mShapeValuesReady = false;
    mPendingUploads.clear();
    std::vector<host::HostTensor> given;
    std::vector<host::HostTensor const*> inputs;
    std::vector<host::HostTensor> outputs;
    for (int32_t index : mPrecomputedLayers)
    {
        LayerRecord const& layer = model.layers[static_cast<std::size_t>(index)];
        // Inputs: other shape values, input shape tensors in the application's host memory, and shapes alone.
        given.assign(layer.inputs.size(), host::HostTensor{});
        inputs.clear();
        for (std::size_t i = 0; i < layer.inputs.size(); ++i)
        {
            int32_t const input = layer.inputs[i];
            if (input == kNoTensor)
            {
                inputs.push_back(nullptr);
                continue;
            }
            auto const t = static_cast<std::size_t>(input);
            TensorRecord const& record = model.tensors[t];
            int32_t const position = mProgram.ioPositionOfTensor(input);
            if (position >= 0 && record.isInput)
            {
                auto const p = static_cast<std::size_t>(position);
                given[i] = host::HostTensor{bindings.addresses[p], record.type, bindings.shapes[p], record.scale};
            }
            else if (record.producer >= 0 && mProgram.precomputed(record.producer))
            {
                given[i] = mViews[t];
            }
            else
            {
                given[i] = host::HostTensor{nullptr, record.type, mStaticShapes[t], record.scale}; // Its shape only.
            }
            inputs.push_back(&given[i]);
        }
        // Outputs in memory the executor keeps (a plain constant's view is its weights).
        outputs.clear();
        bool const plain = layer.outputs.size() == 1
            && plainConstant(layer, model.tensors[static_cast<std::size_t>(layer.outputs[0])]);
        for (int32_t output : layer.outputs)
        {
            auto const t = static_cast<std::size_t>(output);
            TensorRecord const& record = model.tensors[t];
            auto const bytes = tensorBytes(record.type, mStaticShapes[t]);
            if (!bytes)
            {
                return failure(
                    bytes.error().code, layerText(layer) + ": tensor " + q(record.name) + ": " + bytes.error().message);
            }
            void* data = nullptr;
            if (plain)
            {
                data = const_cast<void*>(std::get<ConstantParams>(layer.params).weights.values);
            }
            else
            {
                mOwned[t].reserve(bytes.value());
                data = mOwned[t].data();
            }
            mShapes[t] = mStaticShapes[t];
            mViews[t] = host::HostTensor{data, record.type, mStaticShapes[t], record.scale};
            outputs.push_back(mViews[t]);
        }
        if (!plain)
        {
            auto const ran = hostBackend.runLayer(layer, model, inputs, outputs, nullptr);
            if (!ran)
            {
                return failure(
                    ran.error().code == ErrorCode::kSUCCESS ? ErrorCode::kFAILED_EXECUTION : ran.error().code,
                    layerText(layer) + " failed: " + ran.error().message);
            }
        }
        // Device copies: a constant's is the engine's device weights; the others are written by the next run.
        for (int32_t output : layer.outputs)
        {
            auto const t = static_cast<std::size_t>(output);
            if (!mProgram.mirrored(output))
            {
                continue;
            }
            TensorRecord const& record = model.tensors[t];
            void const* weights = plain ? mBackend->constantData(layer, model) : nullptr;
            if (weights == nullptr)
            {
                mMirrorOwned[t].reserve(storageBytes(record.type, host::elementCount(mStaticShapes[t])), stream);
                mPendingUploads.push_back(output);
            }
            mMirrors[t] = host::HostTensor{weights != nullptr ? const_cast<void*>(weights) : mMirrorOwned[t].data(),
                record.type, mStaticShapes[t], record.scale};
        }
    }
    ++mShapeValueRuns;
    mShapeValuesReady = true;
    return host::Done{};
}

host::Status Executor::uploadShapeValues(cudaStream_t stream)
{
#if KILN_WITH_CUDA
    EngineModel const& model = mProgram.model();
    for (int32_t tensor : mPendingUploads)
    {
        auto const t = static_cast<std::size_t>(tensor);
        TensorRecord const& record = model.tensors[t];
        auto const bytes = static_cast<std::size_t>(storageBytes(record.type, host::elementCount(mStaticShapes[t])));
        if (bytes == 0)
        {
            continue;
        }
        // From memory the executor keeps unchanged until the inputs change: a graph that captured the copy may replay
        // it while the shapes stay.
        cudaError_t const status
            = cudaMemcpyAsync(mMirrors[t].data, mViews[t].data, bytes, cudaMemcpyHostToDevice, stream);
        if (status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return failure(ErrorCode::kFAILED_EXECUTION,
                "copying the shape values " + q(record.name) + " to the device failed: " + cudaGetErrorString(status));
        }
    }
    mPendingUploads.clear();
    return host::Done{};
#else
    static_cast<void>(stream);
    if (!mPendingUploads.empty())
    {
        return failure(ErrorCode::kINTERNAL_ERROR,
            "tensor " + q(mProgram.model().tensors[static_cast<std::size_t>(mPendingUploads.front())].name)
                + " has a copy in device memory");
    }
    return host::Done{};
#endif
}

} // namespace kiln
