// SPDX-License-Identifier: Apache-2.0
// What the CUDA kernel tests share: a fixture that skips without a GPU and owns a stream and the context's libraries,
// device copies of host tensors (in any format: formatted, linearCopy), random values, and the comparison of a device
// result with the host reference within a tolerance per type.
//
//     host::HostBuffer in(DataType::kHALF, Dims{2, {3, 4}});
//     randomize(in, rng, -2.0, 2.0);
//     DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
//     DeviceBuffer dout(out.tensor());                        // same type, shape and scale, zeroed
//     ASSERT_TRUE(cuda::runUnary(params, din.tensor(), dout.tensor(), launch()));
//     expectNear(dout.download(mStream), expected.tensor());   // tolerance of kHALF
#pragma once

#include "backends/cuda/kernels.h"
#include "backends/host/reformat.h"
#include "backends/host/tensor_view.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

namespace kiln::cuda::test
{

using host::HostBuffer;
using host::HostTensor;
using nvinfer1::DataType;
using nvinfer1::Dims;

//! Device memory holding a tensor of the host view's type, shape and scale.
class DeviceBuffer
{
public:
    //! Zeroed device storage for tensors like like (its data is not read).
    explicit DeviceBuffer(HostTensor const& like)
        : mTensor(like)
        , mBytes(static_cast<size_t>(HostBuffer(like.type, like.dims).bytes().size()))
    {
        mTensor.data = nullptr;
        if (cudaMalloc(&mTensor.data, mBytes == 0 ? 1 : mBytes) != cudaSuccess
            || cudaMemset(mTensor.data, 0, mBytes == 0 ? 1 : mBytes) != cudaSuccess)
        {
            ADD_FAILURE() << "cudaMalloc of " << mBytes << " bytes failed";
            mTensor.data = nullptr;
        }
    }
    //! A device copy of host.
    static DeviceBuffer upload(HostTensor const& host)
    {
        DeviceBuffer buffer(host);
        if (buffer.mTensor.data != nullptr && buffer.mBytes != 0)
        {
            EXPECT_EQ(cudaMemcpy(buffer.mTensor.data, host.data, buffer.mBytes, cudaMemcpyHostToDevice), cudaSuccess);
        }
        return buffer;
    }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : mTensor(other.mTensor)
        , mBytes(other.mBytes)
    {
        other.mTensor.data = nullptr;
    }
    DeviceBuffer& operator=(DeviceBuffer&&) = delete;
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;
    ~DeviceBuffer()
    {
        if (mTensor.data != nullptr)
        {
            static_cast<void>(cudaFree(mTensor.data));
        }
    }

    //! The device view.
    HostTensor const& tensor() const noexcept { return mTensor; }

    //! The contents, after the work queued on stream has finished.
    HostBuffer download(cudaStream_t stream) const
    {
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        HostBuffer host(mTensor.type, mTensor.dims, mTensor.scale);
        if (mBytes != 0)
        {
            EXPECT_EQ(cudaMemcpy(host.bytes().data(), mTensor.data, mBytes, cudaMemcpyDeviceToHost), cudaSuccess);
        }
        return host;
    }

private:
    HostTensor mTensor;
    size_t mBytes{};
};

//! A tensor laid out in a format that may pad it (kHWC8 pads channels to a multiple of 8): its storage, a flat buffer
//! of the format's padded element count, and the view with the tensor's logical dims over it.
struct FormattedBuffer
{
    HostBuffer storage;
    HostTensor view;
};

//! linear (kLINEAR) laid out in format, padding zero (backends/host/reformat.h).
inline FormattedBuffer formatted(HostTensor const& linear, nvinfer1::TensorFormat format)
{
    Expected<host::FormatLayout> const layout = host::formatLayout(format, linear.type, linear.dims);
    EXPECT_TRUE(layout.ok()) << layout.error().message;
    int64_t const count = layout.ok() ? layout.value().paddedCount : 0;
    FormattedBuffer result{HostBuffer(linear.type, Dims{1, {count}}, linear.scale), {}};
    result.view = HostTensor{result.storage.tensor().data, linear.type, linear.dims, linear.scale};
    Status const done = host::reformat(linear, nvinfer1::TensorFormat::kLINEAR, result.view, format);
    EXPECT_TRUE(done.ok()) << done.error().message;
    return result;
}

//! The kLINEAR copy of stored, a tensor of type, dims and scale laid out in format (a flat buffer: formatted()).
inline HostBuffer linearCopy(
    HostBuffer const& stored, nvinfer1::TensorFormat format, DataType type, Dims const& dims, float scale = 1.F)
{
    HostBuffer linear(type, dims, scale);
    HostTensor const view{stored.tensor().data, type, dims, scale};
    Status const done = host::reformat(view, format, linear.tensor(), nvinfer1::TensorFormat::kLINEAR);
    EXPECT_TRUE(done.ok()) << done.error().message;
    return linear;
}

//! Random values in [lo, hi) in every element of t (integers rounded, kBOOL 0 or 1).
inline void randomize(HostBuffer& t, std::mt19937_64& rng, double lo, double hi)
{
    std::uniform_real_distribution<double> uniform(lo, hi);
    int64_t const n = host::elementCount(t.tensor());
    for (int64_t i = 0; i < n; ++i)
    {
        double const v = uniform(rng);
        switch (host::numberKind(t.tensor().type))
        {
        case host::NumberKind::kFLOATING: host::storeFloat(t.tensor(), i, v); break;
        case host::NumberKind::kBOOL: host::storeInteger(t.tensor(), i, v < (lo + hi) / 2 ? 0 : 1); break;
        default: host::storeInteger(t.tensor(), i, static_cast<int64_t>(std::floor(v))); break;
        }
    }
}

//! The absolute-plus-relative tolerance of results stored in type, computed in float on the device and double on the
//! host: a few units in the last place of the type (one quantization step for kINT8 and kFP8 relative to scale).
inline double tolerance(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return 1e-5;
    case DataType::kHALF: return 2e-3;
    case DataType::kBF16: return 1.6e-2;
    case DataType::kFP8: return 1.3e-1;
    default: return 0.0; // Integers and kINT8 (checked to within one step) compare exactly or by one step.
    }
}

//! Expects actual (downloaded) and expected (host reference) to agree elementwise: floating types within
//! tolerance(type) * (1 + |expected|) (times extra), kINT8 within one quantization step, integers and kBOOL exactly.
inline void expectNear(
    HostBuffer const& actual, HostBuffer const& expected, double extra = 1.0, std::string const& what = {})
{
    HostTensor const& a = actual.tensor();
    HostTensor const& e = expected.tensor();
    ASSERT_EQ(a.type, e.type) << what;
    ASSERT_TRUE(host::sameShape(a.dims, e.dims))
        << what << ": " << host::shapeString(a.dims) << " vs " << host::shapeString(e.dims);
    int64_t const n = host::elementCount(e);
    int failures = 0;
    for (int64_t i = 0; i < n && failures < 10; ++i)
    {
        if (host::numberKind(e.type) == host::NumberKind::kFLOATING)
        {
            double const x = host::loadFloat(a, i);
            double const y = host::loadFloat(e, i);
            if (std::isnan(y) && std::isnan(x))
            {
                continue;
            }
            if (std::isinf(y) && x == y)
            {
                continue;
            }
            double const bound = e.type == DataType::kINT8 ? 1.0001 * static_cast<double>(e.scale) * extra
                                                           : tolerance(e.type) * extra * (1.0 + std::fabs(y));
            if (!(std::fabs(x - y) <= bound))
            {
                ADD_FAILURE() << what << " element " << i << ": device " << x << ", host " << y << " (tolerance "
                              << bound << ")";
                ++failures;
            }
        }
        else if (host::loadInteger(a, i) != host::loadInteger(e, i))
        {
            ADD_FAILURE() << what << " element " << i << ": device " << host::loadInteger(a, i) << ", host "
                          << host::loadInteger(e, i);
            ++failures;
        }
    }
}

//! A fixture that skips without a usable GPU, with a stream and the libraries of one context.
class CudaKernelTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        int count = 0;
        cudaError_t const status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0)
        {
            static_cast<void>(cudaGetLastError());
            GTEST_SKIP() << "no usable GPU: " << (status != cudaSuccess ? cudaGetErrorString(status) : "no devices");
        }
        ASSERT_EQ(cudaStreamCreate(&mStream), cudaSuccess);
        mLibraries = std::make_unique<Libraries>();
    }
    void TearDown() override
    {
        if (mStream != nullptr)
        {
            EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        }
        mLibraries.reset(); // After the work that uses its memory.
        if (mStream != nullptr)
        {
            EXPECT_EQ(cudaStreamDestroy(mStream), cudaSuccess);
        }
    }

    //! How kernels run in the test: on the stream, with the libraries, tactic as given.
    Launch launch(int32_t tactic = 0) const { return Launch{mStream, mLibraries.get(), tactic}; }

    cudaStream_t mStream{};
    std::unique_ptr<Libraries> mLibraries;
    std::mt19937_64 mRng{20261121};
};

} // namespace kiln::cuda::test
