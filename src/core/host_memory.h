// SPDX-License-Identifier: Apache-2.0
// An IHostMemory that owns its bytes: what buildSerializedNetwork and ICudaEngine::serialize return. It holds a byte
// vector, or bytes inside an object it keeps alive (a plan left in the encoder's buffer, so that it is not copied).
//
//     nvinfer1::IHostMemory* memory = new HostMemory(std::move(bytes));   // the application deletes it
//     nvinfer1::IHostMemory* plan = new HostMemory(owner, span);           // span lies in *owner
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <memory>
#include <span>
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

    //! bytes, which lie in the memory that owner keeps.
    HostMemory(std::shared_ptr<void const> owner, std::span<uint8_t const> bytes) noexcept
        : mImplObject(std::move(owner), bytes)
    {
        mImpl = &mImplObject;
    }

private:
    class Impl final : public nvinfer1::apiv::VHostMemory
    {
    public:
        explicit Impl(std::vector<uint8_t> bytes) noexcept
            : mBytes(std::move(bytes))
            , mView(mBytes)
        {
        }
        Impl(std::shared_ptr<void const> owner, std::span<uint8_t const> bytes) noexcept
            : mOwner(std::move(owner))
            , mView(bytes)
        {
        }
        void* data() const noexcept override { return const_cast<uint8_t*>(mView.data()); }
        std::size_t size() const noexcept override { return mView.size(); }
        nvinfer1::DataType type() const noexcept override { return nvinfer1::DataType::kUINT8; }

    private:
        std::vector<uint8_t> mBytes;        //!< The bytes, when the memory owns a vector.
        std::shared_ptr<void const> mOwner; //!< What holds the bytes otherwise.
        std::span<uint8_t const> mView;     //!< The bytes, wherever they are.
    };

    Impl mImplObject;
};

} // namespace kiln
