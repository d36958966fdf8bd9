// SPDX-License-Identifier: Apache-2.0
// The CUDA pooling against the host reference: kMAX, kAVERAGE (padding counted and not) and kMAX_AVERAGE_BLEND, in
// kFLOAT, kHALF, kBF16 and kINT8, over fixed and random 2-D and 3-D windows with stride and padding, empty tensors,
// NaN, a grid larger than one pass, and the refusals (the host's messages). Channels-last (kHWC8, kDHWC8) in kHALF and
// kBF16, channels padded or not, against the host's linear result, and the padding left zero.
//
// Tolerance: tolerance(type) with no extra factor (one quantization step for kINT8): a window sums at most a few
// dozen values here, whose float error stays within a few float ulp of the host's double result.
#include "backends/host/pooling.h"

#include "cuda_test_util.h"

#include <algorithm>
#include <array>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::PoolingType;

constexpr std::array kTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8};

struct Case
{
    Dims dims;
    Dims window;
    Dims stride;
    Dims pre;
    Dims post;
};

//! The pooling variants each case runs: max, average (padding excluded and counted), blends.
std::vector<PoolingParams> variants(Case const& c)
{
    std::vector<PoolingParams> result;
    for (auto const& [type, excludes, blend] : {
             std::tuple{PoolingType::kMAX, true, 0.F},
             std::tuple{PoolingType::kAVERAGE, true, 0.F},
             std::tuple{PoolingType::kAVERAGE, false, 0.F},
             std::tuple{PoolingType::kMAX_AVERAGE_BLEND, true, 0.3F},
             std::tuple{PoolingType::kMAX_AVERAGE_BLEND, false, 0.75F},
         })
    {
        PoolingParams params;
        params.type = type;
        params.windowSize = c.window;
        params.stride = c.stride;
        params.prePadding = c.pre;
        params.postPadding = c.post;
        params.averageCountExcludesPadding = excludes;
        params.blendFactor = blend;
        result.push_back(params);
    }
    return result;
}

class CudaPooling : public CudaKernelTest
{
protected:
    //! Pools in on both backends and compares.
    void compare(PoolingParams const& params, HostBuffer const& in)
    {
        std::ostringstream what;
        what << host::findPoolingType(params.type)->name << " " << dataTypeName(in.tensor().type) << " "
             << host::shapeString(in.tensor().dims) << " window " << host::shapeString(params.windowSize) << " stride "
             << host::shapeString(params.stride) << " padding " << host::shapeString(params.prePadding) << " / "
             << host::shapeString(params.postPadding) << " excludes " << params.averageCountExcludesPadding << " blend "
             << params.blendFactor;
        SCOPED_TRACE(what.str());
        Expected<host::TensorDesc> const desc = host::inferPooling(params, {in.tensor().type, in.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer expected(in.tensor().type, desc.value().dims, 0.04F);
        Status const hostDone = host::runPooling(params, in.tensor(), expected.tensor());
        ASSERT_TRUE(hostDone.ok()) << hostDone.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = cuda::runPooling(params, din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dout.download(mStream), expected);
    }

    //! Every variant of c in every type, on random inputs.
    void check(Case const& c)
    {
        for (DataType const type : kTypes)
        {
            HostBuffer in(type, c.dims, 0.05F);
            randomize(in, mRng, -4.0, 4.0);
            for (PoolingParams const& params : variants(c))
            {
                compare(params, in);
            }
        }
    }
};

TEST_F(CudaPooling, FixedWindows)
{
    std::vector<Case> const cases{
        {Dims{4, {2, 3, 8, 8}}, Dims{2, {2, 2}}, Dims{2, {2, 2}}, Dims{}, Dims{}},
        {Dims{4, {1, 4, 9, 7}}, Dims{2, {3, 3}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}},
        {Dims{4, {2, 2, 10, 11}}, Dims{2, {3, 2}}, Dims{2, {2, 3}}, Dims{2, {2, 1}}, Dims{2, {1, 0}}},
        {Dims{3, {3, 6, 6}}, Dims{2, {4, 4}}, Dims{}, Dims{2, {3, 3}}, Dims{2, {3, 3}}}, // rank 3, wide padding
        {Dims{5, {1, 2, 5, 6, 7}}, Dims{3, {2, 3, 3}}, Dims{3, {1, 2, 2}}, Dims{3, {1, 1, 0}}, Dims{3, {0, 1, 2}}},
        {Dims{5, {2, 3, 4, 4, 4}}, Dims{3, {3, 3, 3}}, Dims{3, {3, 3, 3}}, Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}}},
        {Dims{4, {1, 1, 13, 13}}, Dims{3, {1, 5, 5}}, Dims{}, Dims{}, Dims{}}, // 3-D window, rank 4
        {Dims{4, {4, 16, 64, 64}}, Dims{2, {3, 3}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}}, // 65536 outputs
        {Dims{4, {2, 2, 5, 5}}, Dims{2, {5, 5}}, Dims{}, Dims{}, Dims{}}, // global pooling
    };
    for (Case const& c : cases)
    {
        check(c);
    }
}

TEST_F(CudaPooling, EmptyTensors)
{
    check(Case{Dims{4, {0, 3, 4, 4}}, Dims{2, {2, 2}}, Dims{}, Dims{}, Dims{}}); // no planes
    // An empty spatial axis padded to the window: windows with no input element (max NaN, average NaN or 0).
    check(Case{Dims{4, {1, 2, 0, 3}}, Dims{2, {2, 2}}, Dims{}, Dims{2, {1, 1}}, Dims{2, {1, 1}}});
}

TEST_F(CudaPooling, RandomWindows)
{
    std::uniform_int_distribution<int64_t> size(1, 4);
    std::uniform_int_distribution<int64_t> stride(1, 3);
    std::uniform_int_distribution<int64_t> extent(1, 9);
    for (int32_t trial = 0; trial < 40; ++trial)
    {
        int32_t const nbSpatial = trial % 2 == 0 ? 2 : 3;
        int32_t const nbPlanes = 1 + static_cast<int32_t>(mRng() % 2);
        Case c{Dims{nbSpatial + nbPlanes, {}}, Dims{nbSpatial, {}}, Dims{nbSpatial, {}}, Dims{nbSpatial, {}},
            Dims{nbSpatial, {}}};
        for (int32_t i = 0; i < nbPlanes; ++i)
        {
            c.dims.d[i] = 1 + static_cast<int64_t>(mRng() % 3);
        }
        for (int32_t i = 0; i < nbSpatial; ++i)
        {
            c.window.d[i] = size(mRng);
            c.stride.d[i] = stride(mRng);
            c.pre.d[i] = static_cast<int64_t>(mRng() % static_cast<uint64_t>(c.window.d[i]));
            c.post.d[i] = static_cast<int64_t>(mRng() % static_cast<uint64_t>(c.window.d[i]));
            // At least the window once padded.
            c.dims.d[nbPlanes + i] = std::max(extent(mRng), c.window.d[i]);
        }
        check(c);
    }
}

TEST_F(CudaPooling, NanIsIgnoredByMaxUnlessEverywhere)
{
    constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        HostBuffer in(type, Dims{3, {1, 6, 6}});
        randomize(in, mRng, -4.0, 4.0);
        host::storeFloat(in.tensor(), 7, kNan); // one NaN in the first 2x2 window
        for (int64_t i : {2, 3, 8, 9})
        {
            host::storeFloat(in.tensor(), i, kNan); // the second window all NaN
        }
        for (PoolingParams const& params : variants(Case{Dims{}, Dims{2, {2, 2}}, Dims{2, {2, 2}}, Dims{}, Dims{}}))
        {
            compare(params, in);
        }
    }
}

TEST_F(CudaPooling, GridLargerThanOnePass)
{
    // 4200 x 4100 outputs: more than 65535 blocks of 256 threads take at once.
    HostBuffer in(DataType::kFLOAT, Dims{3, {1, 4200, 4100}});
    randomize(in, mRng, -4.0, 4.0);
    PoolingParams params;
    params.type = PoolingType::kMAX;
    params.windowSize = Dims{2, {1, 1}};
    compare(params, in);
}

TEST_F(CudaPooling, ChannelsLastMatchesTheHost)
{
    // kHWC8 over 2-D windows (16 channels, 3 padded to 8, 24), kDHWC8 over a 3-D one; strides and padding.
    std::vector<Case> const cases{
        {Dims{4, {2, 16, 9, 9}}, Dims{2, {3, 3}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}},
        {Dims{4, {2, 3, 8, 7}}, Dims{2, {2, 2}}, Dims{2, {2, 2}}, Dims{}, Dims{2, {0, 1}}},
        {Dims{4, {1, 24, 7, 7}}, Dims{2, {3, 3}}, Dims{2, {1, 1}}, Dims{2, {1, 0}}, Dims{2, {2, 1}}},
        {Dims{4, {3, 64, 56, 56}}, Dims{2, {3, 3}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}}, // ResNet's
        {Dims{5, {1, 8, 4, 5, 6}}, Dims{3, {3, 3, 3}}, Dims{3, {2, 2, 2}}, Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}}},
        {Dims{5, {2, 5, 3, 4, 4}}, Dims{3, {2, 2, 2}}, Dims{}, Dims{}, Dims{}},
    };
    for (Case const& c : cases)
    {
        nvinfer1::TensorFormat const format
            = c.window.nbDims == 3 ? nvinfer1::TensorFormat::kDHWC8 : nvinfer1::TensorFormat::kHWC8;
        for (DataType const type : {DataType::kHALF, DataType::kBF16})
        {
            HostBuffer in(type, c.dims);
            randomize(in, mRng, -4.0, 4.0);
            for (PoolingParams const& params : variants(c))
            {
                SCOPED_TRACE(std::string(host::findPoolingType(params.type)->name) + " " + dataTypeName(type) + " "
                    + host::shapeString(c.dims) + " in " + host::formatName(format));
                Expected<host::TensorDesc> const desc = host::inferPooling(params, {type, c.dims});
                ASSERT_TRUE(desc.ok()) << desc.error().message;
                HostBuffer expected(type, desc.value().dims);
                ASSERT_TRUE(host::runPooling(params, in.tensor(), expected.tensor()).ok());
                FormattedBuffer const input = formatted(in.tensor(), format);
                FormattedBuffer like = formatted(expected.tensor(), format);
                DeviceBuffer const din = DeviceBuffer::upload(input.storage.tensor());
                DeviceBuffer const dout(like.storage.tensor());
                // NaN everywhere first (0xFF bytes), so that an element left unwritten, padding included, fails.
                ASSERT_EQ(cudaMemset(dout.tensor().data, 0xFF, like.storage.bytes().size()), cudaSuccess);
                HostTensor const inView{din.tensor().data, type, c.dims, 1.F};
                HostTensor const outView{dout.tensor().data, type, desc.value().dims, 1.F};
                Status const done = cuda::runPooling(params, inView, outView, launch(), format);
                ASSERT_TRUE(done.ok()) << done.error().message;
                HostBuffer const stored = dout.download(mStream);
                expectNear(linearCopy(stored, format, type, desc.value().dims), expected);
                // The padded channels of the stored result are zero, as the reformat from kLINEAR writes them.
                int64_t const channels = desc.value().dims.d[1];
                int64_t const padded = (channels + 7) / 8 * 8;
                int64_t const positions = host::elementCount(stored.tensor()) / padded;
                for (int64_t p = 0; p < positions && channels != padded; ++p)
                {
                    for (int64_t ch = channels; ch < padded; ++ch)
                    {
                        ASSERT_EQ(host::loadFloat(stored.tensor(), p * padded + ch), 0.0) << "position " << p;
                    }
                }
            }
        }
    }
}

TEST_F(CudaPooling, ChannelsLastRefusals)
{
    PoolingParams params;
    params.type = PoolingType::kMAX;
    params.windowSize = Dims{2, {2, 2}};
    auto const refused
        = [&](DataType type, Dims const& in, Dims const& out, nvinfer1::TensorFormat format, std::string const& part) {
              DeviceBuffer const din(HostBuffer(type, Dims{1, {1024}}).tensor());
              DeviceBuffer const dout(HostBuffer(type, Dims{1, {1024}}).tensor());
              Status const done = cuda::runPooling(params, HostTensor{din.tensor().data, type, in, 1.F},
                  HostTensor{dout.tensor().data, type, out, 1.F}, launch(), format);
              ASSERT_FALSE(done.ok()) << part;
              EXPECT_NE(done.error().message.find(part), std::string::npos) << done.error().message;
          };
    refused(DataType::kFLOAT, Dims{4, {1, 8, 4, 4}}, Dims{4, {1, 8, 3, 3}}, nvinfer1::TensorFormat::kHWC8,
        "kHWC8 holds kHALF and kBF16 tensors, not kFLOAT");
    refused(DataType::kHALF, Dims{4, {1, 8, 4, 4}}, Dims{4, {1, 8, 3, 3}}, nvinfer1::TensorFormat::kDHWC8,
        "runs in kLINEAR or, at rank 4, kHWC8; not in kDHWC8");
    refused(DataType::kHALF, Dims{5, {1, 2, 8, 4, 4}}, Dims{5, {1, 2, 8, 3, 3}}, nvinfer1::TensorFormat::kHWC8,
        "a 2-D window over a tensor of rank 5");
}

TEST_F(CudaPooling, RefusalsNameTheProblem)
{
    auto const refused
        = [&](PoolingParams const& params, HostTensor const& in, HostTensor const& out, std::string const& part) {
              Status const done = cuda::runPooling(params, in, out, launch());
              ASSERT_FALSE(done.ok()) << part;
              EXPECT_NE(done.error().message.find(part), std::string::npos) << done.error().message;
              EXPECT_EQ(done.error().message, host::runPooling(params, in, out).error().message);
          };
    DeviceBuffer const in(HostBuffer(DataType::kFLOAT, Dims{3, {2, 4, 4}}).tensor());
    DeviceBuffer const out(HostBuffer(DataType::kFLOAT, Dims{3, {2, 2, 2}}).tensor());
    PoolingParams params;
    params.type = PoolingType::kMAX;
    params.windowSize = Dims{2, {2, 2}};
    params.stride = Dims{2, {2, 2}};
    PoolingParams padded = params;
    padded.prePadding = Dims{2, {0, 2}};
    refused(
        padded, in.tensor(), out.tensor(), "pooling: spatial axis 1: padding 2 / 0 must be smaller than the window 2");
    PoolingParams blend = params;
    blend.type = PoolingType::kMAX_AVERAGE_BLEND;
    blend.blendFactor = 1.5F;
    refused(blend, in.tensor(), out.tensor(), "is outside [0, 1]");
    HostTensor integer = in.tensor();
    integer.type = DataType::kINT32;
    refused(params, integer, out.tensor(), "pooling: does not accept kINT32 inputs");
    PoolingParams wide = params;
    wide.stride = Dims{};
    refused(wide, in.tensor(), out.tensor(), "pooling: the output is kFLOAT [2, 2, 2] but must be kFLOAT [2, 3, 3]");
    HostTensor flat = in.tensor();
    flat.dims = Dims{2, {4, 4}};
    refused(params, flat, out.tensor(), "has rank 2 but 2-D pooling needs rank >= 3");
}

} // namespace
} // namespace kiln::cuda::test
