// SPDX-License-Identifier: Apache-2.0
// An IHostMemory that owns a byte vector: what buildSerializedNetwork and ICudaEngine::serialize return.
//
//     nvinfer1::IHostMemory* memory = new HostMemory(std::move(bytes));   // the application deletes it
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln
{

class HostMemory final : public nvinfer1::IHostMemory
{
public:
    explicit HostMemory(std::vector<uint8_t> bytes) noexcept
        : mImplObject(std::move(bytes))
    {
        mImpl = &mImplObject;
    }

private:
    class Impl final : public nvinfer1::apiv::VHostMemory
    {
    public:
        explicit Impl(std::vector<uint8_t> bytes) noexcept
            : mBytes(std::move(bytes))
        {
        }
        void* data() const noexcept override { return const_cast<uint8_t*>(mBytes.data()); }
        std::size_t size() const noexcept override { return mBytes.size(); }
        nvinfer1::DataType type() const noexcept override { return nvinfer1::DataType::kUINT8; }

    private:
        std::vector<uint8_t> mBytes;
    };

    Impl mImplObject;
};

} // namespace kiln
