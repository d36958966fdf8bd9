// SPDX-License-Identifier: Apache-2.0
// An engine's I/O bound to host vectors wherever the engine wants its memory, as a TensorRT application binds it:
// a tensor that ICudaEngine::getTensorLocation places in host memory (every I/O tensor of an engine built for kiln's
// host backend, and shape tensors everywhere) is bound to the vector itself; one in device memory (the other I/O
// tensors of a CUDA engine) to a cudaMalloc'd buffer, filled from the vector before enqueueV3 and copied back after
// it, on a stream of IoBuffers' own. An output whose size is known only once the engine has run goes through an
// OutputAllocator, which returns memory of the same kind and keeps a host copy of the result. Header-only.
//
// The CUDA parts exist only with KILN_EXAMPLE_CUDA, which the examples' CMake defines when it finds the CUDA toolkit;
// without it, a tensor in device memory is an error that says to set KILN_BACKEND=host.
//
//     example::IoBuffers io(kExample, *engine, *context);
//     example::OutputAllocator allocator(kExample, *engine, "Z"); // Z's shape depends on X's values
//     bool const ran = context->setInputShape("X", shape) && io.input("X", x) && io.output("Y", y)
//         && io.output("Z", allocator) && io.enqueue();          // y and allocator.data() hold the results
#pragma once

#include "NvInferRuntime.h"

#ifdef KILN_EXAMPLE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace example
{

//! Whether engine takes I/O tensor name in device memory.
inline bool inDeviceMemory(nvinfer1::ICudaEngine const& engine, char const* name)
{
    return engine.getTensorLocation(name) == nvinfer1::TensorLocation::kDEVICE;
}

#ifdef KILN_EXAMPLE_CUDA

//! True when status is cudaSuccess; otherwise prints "<example>: <what>: <error>" and returns false.
inline bool cudaOk(char const* example, cudaError_t status, std::string const& what)
{
    if (status != cudaSuccess)
    {
        std::fprintf(
            stderr, "%s: %s: %s (%s)\n", example, what.c_str(), cudaGetErrorName(status), cudaGetErrorString(status));
    }
    return status == cudaSuccess;
}

//! Frees device memory.
struct CudaFree
{
    void operator()(void* memory) const noexcept { static_cast<void>(cudaFree(memory)); }
};
using DeviceMemory = std::unique_ptr<void, CudaFree>;

//! Destroys a stream.
struct StreamDestroy
{
    void operator()(cudaStream_t stream) const noexcept { static_cast<void>(cudaStreamDestroy(stream)); }
};
using Stream = std::unique_ptr<CUstream_st, StreamDestroy>;

#else

//! What a tensor in device memory is without the CUDA toolkit: an error, after saying why.
inline bool noDeviceMemory(char const* example, char const* name)
{
    std::fprintf(stderr,
        "%s: tensor '%s' lives in device memory (a CUDA engine), but this example was built without CUDA; set "
        "KILN_BACKEND=host\n",
        example, name);
    return false;
}

#endif

//! An IOutputAllocator for one output of data-dependent shape: host memory when the engine takes the output in host
//! memory, else device memory whose contents download() copies to the host. data() is the result in host memory.
class OutputAllocator final : public nvinfer1::IOutputAllocator
{
public:
    OutputAllocator(char const* example, nvinfer1::ICudaEngine const& engine, char const* tensorName)
        : mExample(example)
        , mName(tensorName)
        , mDevice(inDeviceMemory(engine, tensorName))
    {
    }

    void* reallocateOutputAsync(char const* tensorName, void* /*currentMemory*/, uint64_t size, uint64_t alignment,
        cudaStream_t /*stream*/) override
    {
        size = std::max<uint64_t>(size, 1);
        if (size <= mCapacity)
        {
            return mMemory;
        }
        mCapacity = 0;
        mMemory = nullptr;
        if (!mDevice)
        {
            uint64_t const align = std::max<uint64_t>(alignment, alignof(std::max_align_t));
            mHostBuffer.reset(static_cast<std::byte*>(std::aligned_alloc(align, (size + align - 1) / align * align)));
            mMemory = mHostBuffer.get();
        }
        else
        {
#ifdef KILN_EXAMPLE_CUDA
            // cudaMalloc's memory is aligned to at least 256 bytes, what kiln and TensorRT ask for.
            mDeviceBuffer.reset();
            void* memory = nullptr;
            if (cudaOk(mExample, cudaMalloc(&memory, size), std::string("cudaMalloc for output '") + tensorName + "'"))
            {
                mDeviceBuffer.reset(memory);
                mMemory = memory;
            }
#else
            noDeviceMemory(mExample, tensorName);
#endif
        }
        mCapacity = mMemory != nullptr ? size : 0;
        return mMemory;
    }

    void notifyShape(char const* /*tensorName*/, nvinfer1::Dims const& dims) noexcept override
    {
        mShape = dims;
    }

    //! Whether the output is in device memory (then download() must run once the engine has finished).
    bool onDevice() const
    {
        return mDevice;
    }

#ifdef KILN_EXAMPLE_CUDA
    //! Copies the output from device memory into data() on stream and waits for it; nothing for host memory.
    bool download(cudaStream_t stream)
    {
        if (!mDevice || mCapacity == 0)
        {
            return true;
        }
        mHostCopy.resize(static_cast<std::size_t>(mCapacity));
        return cudaOk(mExample,
                   cudaMemcpyAsync(
                       mHostCopy.data(), mDeviceBuffer.get(), mHostCopy.size(), cudaMemcpyDeviceToHost, stream),
                   "copying output '" + mName + "' to the host")
            && cudaOk(mExample, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
#endif

    //! The output in host memory (after download() for device memory); null before the engine has run.
    void const* data() const
    {
        return mDevice ? static_cast<void const*>(mHostCopy.data()) : mHostBuffer.get();
    }
    //! The shape notifyShape reported.
    nvinfer1::Dims const& shape() const
    {
        return mShape;
    }

private:
    struct Free
    {
        void operator()(std::byte* p) const { std::free(p); }
    };

    char const* mExample;
    std::string mName;
    bool mDevice;
    uint64_t mCapacity{0};
    std::unique_ptr<std::byte, Free> mHostBuffer; //!< The output, when in host memory.
    std::vector<std::byte> mHostCopy;             //!< The output's copy, when in device memory.
#ifdef KILN_EXAMPLE_CUDA
    DeviceMemory mDeviceBuffer; //!< The output, when in device memory.
#endif
    void* mMemory{nullptr}; //!< What reallocateOutputAsync returned last.
    nvinfer1::Dims mShape{-1, {}};
};

//! Binds an execution context's I/O tensors to host memory that the caller owns (see the top of this file) and runs
//! it. The host memory must outlive enqueue(); outputs hold their results once enqueue() has returned true.
class IoBuffers
{
public:
    IoBuffers(char const* example, nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context)
        : mExample(example)
        , mEngine(engine)
        , mContext(context)
    {
    }

    //! Binds input name to the bytes bytes at data.
    bool input(char const* name, void const* data, std::size_t bytes)
    {
        if (!inDeviceMemory(mEngine, name))
        {
            return mContext.setInputTensorAddress(name, data);
        }
        return bindDevice(name, const_cast<void*>(data), bytes, /* isInput */ true);
    }
    template <typename T>
    bool input(char const* name, std::vector<T> const& values)
    {
        return input(name, values.data(), values.size() * sizeof(T));
    }

    //! Binds output name to the bytes bytes at data, which hold the output once enqueue() has returned true.
    bool output(char const* name, void* data, std::size_t bytes)
    {
        if (!inDeviceMemory(mEngine, name))
        {
            return mContext.setTensorAddress(name, data);
        }
        return bindDevice(name, data, bytes, /* isInput */ false);
    }
    template <typename T>
    bool output(char const* name, std::vector<T>& values)
    {
        return output(name, values.data(), values.size() * sizeof(T));
    }

    //! Gives output name allocator's memory; allocator.data() holds the output once enqueue() has returned true.
    bool output(char const* name, OutputAllocator& allocator)
    {
        mAllocators.push_back(&allocator);
        return mContext.setOutputAllocator(name, &allocator);
    }

    //! Copies the inputs to device memory, runs enqueueV3 and copies the outputs back to host memory, waiting for
    //! all of it; on an engine with all its I/O in host memory, just enqueueV3.
    bool enqueue()
    {
#ifdef KILN_EXAMPLE_CUDA
        bool const device = !mBuffers.empty()
            || std::any_of(mAllocators.begin(), mAllocators.end(), [](auto* a) { return a->onDevice(); });
        if (!device)
        {
            return mContext.enqueueV3(nullptr);
        }
        if (mStream == nullptr)
        {
            cudaStream_t stream = nullptr;
            if (!cudaOk(mExample, cudaStreamCreate(&stream), "cudaStreamCreate"))
            {
                return false;
            }
            mStream.reset(stream);
        }
        bool ok = true;
        for (Buffer const& buffer : mBuffers)
        {
            ok = ok && (!buffer.isInput || copy(buffer, buffer.device.get(), buffer.host, cudaMemcpyHostToDevice));
        }
        ok = ok && mContext.enqueueV3(mStream.get());
        for (Buffer const& buffer : mBuffers)
        {
            ok = ok && (buffer.isInput || copy(buffer, buffer.host, buffer.device.get(), cudaMemcpyDeviceToHost));
        }
        for (OutputAllocator* allocator : mAllocators)
        {
            ok = ok && allocator->download(mStream.get());
        }
        // Wait even after a failure: the stream may still be using the host memory.
        return cudaOk(mExample, cudaStreamSynchronize(mStream.get()), "cudaStreamSynchronize") && ok;
#else
        return mContext.enqueueV3(nullptr);
#endif
    }

private:
#ifdef KILN_EXAMPLE_CUDA
    //! A tensor in device memory and the host memory it is copied from (an input) or to (an output).
    struct Buffer
    {
        std::string name;
        void* host;
        std::size_t bytes;
        bool isInput;
        DeviceMemory device;
    };

    //! Copies buffer's bytes from source to destination on the stream.
    bool copy(Buffer const& buffer, void* destination, void const* source, cudaMemcpyKind kind)
    {
        std::string const what = kind == cudaMemcpyHostToDevice ? "copying input '" + buffer.name + "' to the device"
                                                                : "copying output '" + buffer.name + "' to the host";
        return cudaOk(mExample, cudaMemcpyAsync(destination, source, buffer.bytes, kind, mStream.get()), what);
    }
#endif

    //! Binds tensor name to a device buffer of bytes bytes, copied from (an input) or to (an output) host.
    bool bindDevice(char const* name, void* host, std::size_t bytes, bool isInput)
    {
#ifdef KILN_EXAMPLE_CUDA
        void* memory = nullptr;
        if (!cudaOk(mExample, cudaMalloc(&memory, std::max<std::size_t>(bytes, 1)),
                std::string("cudaMalloc for tensor '") + name + "'"))
        {
            return false;
        }
        mBuffers.push_back(Buffer{name, host, bytes, isInput, DeviceMemory(memory)});
        return mContext.setTensorAddress(name, memory);
#else
        static_cast<void>(host), static_cast<void>(bytes), static_cast<void>(isInput);
        return noDeviceMemory(mExample, name);
#endif
    }

    char const* mExample;
    nvinfer1::ICudaEngine const& mEngine;
    nvinfer1::IExecutionContext& mContext;
    std::vector<OutputAllocator*> mAllocators;
#ifdef KILN_EXAMPLE_CUDA
    std::vector<Buffer> mBuffers;
    Stream mStream;
#endif
};

} // namespace example
