// SPDX-License-Identifier: Apache-2.0
// ModelSession: an engine deserialized from a plan, one execution context, and a buffer bound to each I/O tensor
// where ICudaEngine::getTensorLocation puts it (device memory for a CUDA engine, host memory for a host engine), so
// kiln_model_bench runs on both backends. Inputs are copied in once, converted to the engine's types where the files
// hold another (fp32 to fp16, int64 to int32, ...).
//
//     kiln_bench::ModelSession session(logger, plan, inputs, /*device=*/true);
//     session.enqueue(stream);
//     std::vector<kiln_bench::HostTensor> outputs = session.outputs();
#pragma once

#include "bench_logger.h"
#include "bench_support.h"
#include "tensor_files.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln_bench
{

//! Element i of a buffer of type as a double (the types of tensor_files.h's kDtypes).
inline double loadElement(std::byte const* data, nvinfer1::DataType type, std::size_t i)
{
    auto const load = [&](auto zero) {
        decltype(zero) value{};
        std::memcpy(&value, data + i * sizeof(value), sizeof(value));
        return value;
    };
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return load(float{});
    case nvinfer1::DataType::kHALF: return fromHalf(load(uint16_t{}));
    case nvinfer1::DataType::kINT64: return static_cast<double>(load(int64_t{}));
    case nvinfer1::DataType::kINT32: return load(int32_t{});
    case nvinfer1::DataType::kINT8: return load(int8_t{});
    case nvinfer1::DataType::kUINT8: return load(uint8_t{});
    case nvinfer1::DataType::kBOOL: return load(uint8_t{}) != 0 ? 1.0 : 0.0;
    default: throw BenchError("kiln_model_bench cannot read a tensor of this type");
    }
}

inline void storeElement(std::byte* data, nvinfer1::DataType type, std::size_t i, double value)
{
    auto const store = [&](auto typed) { std::memcpy(data + i * sizeof(typed), &typed, sizeof(typed)); };
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: store(static_cast<float>(value)); break;
    case nvinfer1::DataType::kHALF: store(toHalf(static_cast<float>(value))); break;
    case nvinfer1::DataType::kINT64: store(static_cast<int64_t>(value)); break;
    case nvinfer1::DataType::kINT32: store(static_cast<int32_t>(value)); break;
    case nvinfer1::DataType::kINT8: store(static_cast<int8_t>(value)); break;
    case nvinfer1::DataType::kUINT8: store(static_cast<uint8_t>(value)); break;
    case nvinfer1::DataType::kBOOL: store(static_cast<uint8_t>(value != 0.0 ? 1 : 0)); break;
    default: throw BenchError("kiln_model_bench cannot write a tensor of this type");
    }
}

//! tensor's values in type (a copy when the type already matches).
inline HostTensor convertTensor(HostTensor const& tensor, nvinfer1::DataType type)
{
    if (tensor.type == type)
    {
        return tensor;
    }
    std::optional<DtypeName> const to = dtypeByType(type);
    if (!to)
    {
        throw BenchError("the engine's input " + tensor.name + " has a type kiln_model_bench cannot fill");
    }
    auto const count = static_cast<std::size_t>(volume(tensor.dims));
    HostTensor converted{tensor.name, type, tensor.dims, std::vector<std::byte>(count * to->size)};
    for (std::size_t i = 0; i < count; ++i)
    {
        storeElement(converted.bytes.data(), type, i, loadElement(tensor.bytes.data(), tensor.type, i));
    }
    return converted;
}

class ModelSession
{
public:
    //! Deserializes plan, creates a context, sets every input's shape to its tensor's and binds the buffers.
    ModelSession(BenchLogger& logger, std::vector<char> const& plan, std::vector<HostTensor> const& inputs)
        : mLogger(logger)
    {
        mRuntime.reset(nvinfer1::createInferRuntime(logger));
        mEngine.reset(mRuntime ? mRuntime->deserializeCudaEngine(plan.data(), plan.size()) : nullptr);
        mContext.reset(mEngine ? mEngine->createExecutionContext() : nullptr);
        if (mContext == nullptr)
        {
            throw BenchError(logger.takeLastError("deserializing the plan or creating the context failed"));
        }
        for (int32_t i = 0; i < mEngine->getNbIOTensors(); ++i)
        {
            char const* name = mEngine->getIOTensorName(i);
            if (mEngine->getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
            {
                bindInput(name, inputs);
            }
        }
        for (int32_t i = 0; i < mEngine->getNbIOTensors(); ++i)
        {
            char const* name = mEngine->getIOTensorName(i);
            if (mEngine->getTensorIOMode(name) == nvinfer1::TensorIOMode::kOUTPUT)
            {
                nvinfer1::Dims const dims = mContext->getTensorShape(name);
                if (std::any_of(dims.d, dims.d + std::max(dims.nbDims, 0), [](int64_t d) { return d < 0; })
                    || dims.nbDims < 0)
                {
                    throw BenchError(std::string("the output ") + name
                        + " has a data-dependent shape; kiln_model_bench binds outputs of known shapes only");
                }
                bind(HostTensor{name, mEngine->getTensorDataType(name), dims, {}}, false);
            }
        }
    }

    ModelSession(ModelSession const&) = delete;
    ModelSession& operator=(ModelSession const&) = delete;

    //! Whether the engine's I/O lives in device memory (a CUDA engine).
    bool onDevice() const noexcept { return mOnDevice; }

    nvinfer1::ICudaEngine& engine() const noexcept { return *mEngine; }
    nvinfer1::IExecutionContext& context() const noexcept { return *mContext; }
    int64_t ioBytes() const noexcept { return mIoBytes; }

    void enqueue(cudaStream_t stream) const
    {
        if (!mContext->enqueueV3(stream))
        {
            throw BenchError(mLogger.takeLastError("enqueueV3 failed"));
        }
    }

    //! Every output, copied to host memory (after the device's queued work).
    std::vector<HostTensor> outputs() const
    {
        std::vector<HostTensor> result;
        for (Buffer const& buffer : mBuffers)
        {
            if (buffer.input)
            {
                continue;
            }
            HostTensor tensor = buffer.shape;
            tensor.bytes.resize(static_cast<std::size_t>(buffer.bytes));
            if (buffer.device)
            {
                cudaCheck(
                    cudaMemcpy(tensor.bytes.data(), buffer.device.get(), tensor.bytes.size(), cudaMemcpyDeviceToHost),
                    "cudaMemcpy of an output");
            }
            else
            {
                std::memcpy(tensor.bytes.data(), buffer.host.data(), tensor.bytes.size());
            }
            result.push_back(std::move(tensor));
        }
        return result;
    }

private:
    struct Buffer
    {
        HostTensor shape; //!< name, type and dims; no bytes
        bool input{};
        int64_t bytes{};
        DeviceBuffer device;
        std::vector<std::byte> host;
    };

    void bindInput(char const* name, std::vector<HostTensor> const& inputs)
    {
        auto const found
            = std::find_if(inputs.begin(), inputs.end(), [&](HostTensor const& t) { return t.name == name; });
        if (found == inputs.end())
        {
            throw BenchError(std::string("the engine's input ") + name + " is not in the inputs' manifest");
        }
        if (!mContext->setInputShape(name, found->dims))
        {
            throw BenchError(mLogger.takeLastError(
                std::string("setInputShape(") + name + ", " + shapeText(found->dims) + ") failed"));
        }
        nvinfer1::DataType const type = mEngine->getTensorDataType(name);
        if (type != found->type)
        {
            std::cerr << "kiln_model_bench: converting the input " << name << " to the engine's type\n";
        }
        HostTensor const data = convertTensor(*found, type);
        Buffer& buffer = bind(data, true);
        if (buffer.device)
        {
            cudaCheck(cudaMemcpy(buffer.device.get(), data.bytes.data(), data.bytes.size(), cudaMemcpyHostToDevice),
                "cudaMemcpy of an input");
        }
        else
        {
            std::memcpy(buffer.host.data(), data.bytes.data(), data.bytes.size());
        }
    }

    Buffer& bind(HostTensor shape, bool input)
    {
        std::optional<DtypeName> const dtype = dtypeByType(shape.type);
        if (!dtype)
        {
            throw BenchError("the I/O tensor " + shape.name + " has a type kiln_model_bench does not handle");
        }
        Buffer buffer;
        buffer.input = input;
        buffer.bytes = volume(shape.dims) * dtype->size;
        shape.bytes.clear();
        buffer.shape = std::move(shape);
        char const* name = buffer.shape.name.c_str();
        mOnDevice = mEngine->getTensorLocation(name) == nvinfer1::TensorLocation::kDEVICE;
        void* address = nullptr;
        if (mOnDevice)
        {
            buffer.device = deviceAlloc(static_cast<std::size_t>(buffer.bytes));
            cudaCheck(cudaMemset(buffer.device.get(), 0, static_cast<std::size_t>(buffer.bytes)), "cudaMemset");
            address = buffer.device.get();
        }
        else
        {
            buffer.host.resize(static_cast<std::size_t>(std::max<int64_t>(buffer.bytes, 1)));
            address = buffer.host.data();
        }
        if (!mContext->setTensorAddress(name, address))
        {
            throw BenchError(mLogger.takeLastError("setTensorAddress(" + buffer.shape.name + ") failed"));
        }
        mIoBytes += buffer.bytes;
        mBuffers.push_back(std::move(buffer));
        return mBuffers.back();
    }

    BenchLogger& mLogger;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::unique_ptr<nvinfer1::ICudaEngine> mEngine;
    std::unique_ptr<nvinfer1::IExecutionContext> mContext;
    std::vector<Buffer> mBuffers; //!< Moving a Buffer keeps its memory where it is, so bound addresses stay valid.
    int64_t mIoBytes{};
    bool mOnDevice{};
};

} // namespace kiln_bench
