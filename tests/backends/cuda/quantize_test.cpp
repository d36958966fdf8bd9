// SPDX-License-Identifier: Apache-2.0
// The CUDA quantize and dequantize against the host reference, bit for bit (both compute in IEEE float: x / s rounded
// half to even and saturated, E4M3 with saturation, (q - z) * s rounded once): every input, scale, code and output
// type, per tensor, per axis (positive and negative axes) and per block (with and without a block shape), zero points
// (zeros, and others: the kernels compute the definition for any), special values (NaN, infinities, signed zeros,
// rounding ties, values beyond the types' ranges), packed kINT4 with odd counts, a tensor larger than one grid (the
// grid-stride loops), empty tensors, and the refusals (the host's messages).
#include "backends/host/quantize.h"

#include "cuda_test_util.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

constexpr std::array kFloatTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16};
constexpr std::array kCodeTypes{DataType::kINT8, DataType::kFP8, DataType::kINT4};

//! How a scale maps onto an input: its shape, the layer's axis and block shape.
struct Mapping
{
    Dims scale{0, {}};
    int32_t axis{-1};
    Dims blockShape{-1, {}};
};

class CudaQuantize : public CudaKernelTest
{
protected:
    //! A random shape of rank 0 to 4 with at most about 300 elements (sometimes an extent of 0).
    Dims randomShape()
    {
        Dims dims{static_cast<int32_t>(mRng() % 5), {}};
        int64_t count = 1;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            int64_t extent = 1 + static_cast<int64_t>(mRng() % 7);
            if (mRng() % 50 == 0)
            {
                extent = 0;
            }
            if (count * extent > 300)
            {
                extent = 1;
            }
            dims.d[i] = extent;
            count *= std::max<int64_t>(extent, 1);
        }
        return dims;
    }

    //! A random mapping of a scale onto an input of shape dims: per tensor, per axis, or per block.
    Mapping randomMapping(Dims const& dims)
    {
        Mapping m;
        uint32_t const kind = dims.nbDims == 0 ? 0 : mRng() % 4;
        if (kind == 1)
        {
            auto const axis = static_cast<int32_t>(mRng() % static_cast<uint32_t>(dims.nbDims));
            m.axis = mRng() % 2 == 0 ? axis : axis - dims.nbDims;
            m.scale = Dims{1, {dims.d[axis]}};
        }
        else if (kind >= 2)
        {
            bool const explicitShape = kind == 3 || dims.nbDims == 1;
            m.scale = Dims{dims.nbDims, {}};
            if (explicitShape)
            {
                m.blockShape = Dims{dims.nbDims, {}};
            }
            for (int32_t i = 0; i < dims.nbDims; ++i)
            {
                int64_t const extent = dims.d[i];
                if (explicitShape)
                {
                    int64_t const block = mRng() % 4 == 0 ? -1 : 1 + static_cast<int64_t>(mRng() % 3);
                    m.blockShape.d[i] = block;
                    m.scale.d[i] = block == -1 ? 1 : (extent + block - 1) / block;
                }
                else
                {
                    int64_t scales = 1;
                    for (int64_t d = std::max<int64_t>(extent, 1); d >= 1; --d)
                    {
                        if (extent % d == 0 && mRng() % 2 == 0)
                        {
                            scales = d;
                            break;
                        }
                    }
                    m.scale.d[i] = extent == 0 ? 1 : scales;
                }
            }
        }
        return m;
    }

    //! Input values: mostly in [-range, range], some special (NaN, infinities, signed zeros, halves for ties).
    void fillInput(HostBuffer& in, double range)
    {
        std::uniform_real_distribution<double> uniform(-range, range);
        double const specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity(), 0.0, -0.0, 0.5, -2.5, 1e6, -1e6};
        for (int64_t i = 0; i < host::elementCount(in.tensor()); ++i)
        {
            double const v = mRng() % 8 == 0 ? specials[mRng() % 9]
                                             : std::nearbyint(uniform(mRng) * 4.0) / 4.0; // quarters: many ties
            host::storeFloat(in.tensor(), i, v);
        }
    }

    //! Positive scales, some of them powers of two (exact quotients, so ties survive).
    void fillScale(HostBuffer& scale)
    {
        double const choices[] = {0.5, 1.0, 2.0, 0.25, 0.3, 1.7, 0.0625, 3.0};
        for (int64_t i = 0; i < host::elementCount(scale.tensor()); ++i)
        {
            host::storeFloat(scale.tensor(), i, choices[mRng() % 8]);
        }
    }

    //! Zero points of type and shape: zeros, or random codes (nonZero).
    static HostBuffer zeroPoint(DataType type, Dims const& dims, bool nonZero, std::mt19937_64& rng)
    {
        HostBuffer zero(type, dims);
        if (nonZero)
        {
            auto* bytes = reinterpret_cast<uint8_t*>(zero.bytes().data());
            for (std::size_t i = 0; i < zero.bytes().size(); ++i)
            {
                bytes[i] = static_cast<uint8_t>(rng() % 256);
                if (type == DataType::kFP8 && (bytes[i] & 0x7FU) == 0x7FU)
                {
                    bytes[i] = 0x38; // 1.0 instead of NaN
                }
            }
        }
        return zero;
    }

    //! The bytes of a buffer.
    static std::vector<uint8_t> bytesOf(HostBuffer& buffer)
    {
        auto const* data = reinterpret_cast<uint8_t const*>(buffer.bytes().data());
        return std::vector<uint8_t>(data, data + buffer.bytes().size());
    }

    //! Quantizes in on both backends (and dequantizes the codes back to outType), expecting the same bytes.
    void compare(HostBuffer& in, HostBuffer& scale, HostBuffer* zero, Mapping const& m, DataType codeType,
        DataType outType, std::string const& what)
    {
        SCOPED_TRACE(what);
        Dims const& dims = in.tensor().dims;
        HostTensor const zeroView = zero != nullptr ? zero->tensor() : HostTensor{};
        HostTensor const* zeroHost = zero != nullptr ? &zeroView : nullptr;

        QuantizeParams const qParams{m.axis, m.blockShape, codeType};
        HostBuffer codes(codeType, dims);
        host::Status const done = host::runQuantize(qParams, in.tensor(), scale.tensor(), zeroHost, codes.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;

        DeviceBuffer const dIn = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dScale = DeviceBuffer::upload(scale.tensor());
        std::optional<DeviceBuffer> dZero;
        if (zero != nullptr)
        {
            dZero.emplace(DeviceBuffer::upload(zero->tensor()));
        }
        DeviceBuffer const dCodes(codes.tensor());
        host::Status const ran = cuda::runQuantize(
            qParams, dIn.tensor(), dScale.tensor(), dZero ? &dZero->tensor() : nullptr, dCodes.tensor(), launch());
        ASSERT_TRUE(ran.ok()) << ran.error().message;
        HostBuffer deviceCodes = dCodes.download(mStream);
        ASSERT_EQ(bytesOf(deviceCodes), bytesOf(codes));

        DequantizeParams const dqParams{m.axis, m.blockShape, outType};
        HostBuffer back(outType, dims);
        host::Status const undone
            = host::runDequantize(dqParams, codes.tensor(), scale.tensor(), zeroHost, back.tensor());
        ASSERT_TRUE(undone.ok()) << undone.error().message;
        DeviceBuffer const dBack(back.tensor());
        host::Status const ranBack = cuda::runDequantize(
            dqParams, dCodes.tensor(), dScale.tensor(), dZero ? &dZero->tensor() : nullptr, dBack.tensor(), launch());
        ASSERT_TRUE(ranBack.ok()) << ranBack.error().message;
        HostBuffer deviceBack = dBack.download(mStream);
        expectSameValues(deviceBack, back);
    }

    //! The same value in every element, the sign of zero included; NaN matches NaN (the payloads of NaN may differ:
    //! CUDA's half and bfloat16 conversions make a canonical NaN).
    static void expectSameValues(HostBuffer const& actual, HostBuffer const& expected)
    {
        int failures = 0;
        for (int64_t i = 0; i < host::elementCount(expected.tensor()) && failures < 10; ++i)
        {
            double const a = host::loadFloat(actual.tensor(), i);
            double const e = host::loadFloat(expected.tensor(), i);
            bool const same = (std::isnan(a) && std::isnan(e)) || (a == e && std::signbit(a) == std::signbit(e));
            if (!same)
            {
                ADD_FAILURE() << "element " << i << ": device " << a << ", host " << e;
                ++failures;
            }
        }
    }
};

TEST_F(CudaQuantize, MatchesTheHostOnRandomShapesTypesAndGranularities)
{
    for (int32_t round = 0; round < 400; ++round)
    {
        Dims const dims = randomShape();
        Mapping const m = randomMapping(dims);
        DataType const inType = kFloatTypes[mRng() % 3];
        DataType const scaleType = kFloatTypes[mRng() % 3];
        DataType const codeType = kCodeTypes[mRng() % 3];
        DataType const outType = kFloatTypes[mRng() % 3];
        HostBuffer in(inType, dims);
        fillInput(in, codeType == DataType::kINT4 ? 20.0 : 600.0);
        HostBuffer scale(scaleType, m.scale);
        fillScale(scale);
        uint32_t const zeroKind = static_cast<uint32_t>(mRng() % 3); // none, zeros, random codes
        std::optional<HostBuffer> zero;
        if (zeroKind != 0)
        {
            zero.emplace(zeroPoint(codeType, m.scale, zeroKind == 2, mRng));
        }
        std::string const what = "round " + std::to_string(round) + ": " + host::shapeString(dims) + " scale "
            + host::shapeString(m.scale) + " axis " + std::to_string(m.axis) + " block shape "
            + host::shapeString(m.blockShape) + " " + dataTypeName(inType) + "/" + dataTypeName(scaleType) + " -> "
            + dataTypeName(codeType) + " -> " + dataTypeName(outType) + " zero point " + std::to_string(zeroKind);
        compare(in, scale, zero ? &*zero : nullptr, m, codeType, outType, what);
        if (HasFatalFailure())
        {
            return;
        }
    }
}

TEST_F(CudaQuantize, ALargeTensorPerChannelRunsTheGridStrideLoops)
{
    // 3 * 701 * 703 elements: more than the 4096 blocks of 256 threads cover, so each thread loops.
    Dims const dims{3, {3, 701, 703}};
    for (DataType const codeType : kCodeTypes)
    {
        HostBuffer in(DataType::kHALF, dims);
        fillInput(in, 300.0);
        HostBuffer scale(DataType::kFLOAT, Dims{1, {701}});
        fillScale(scale);
        compare(in, scale, nullptr, Mapping{Dims{1, {701}}, 1, Dims{-1, {}}}, codeType, DataType::kFLOAT,
            dataTypeName(codeType));
    }
}

TEST_F(CudaQuantize, OddInt4CountsAndEmptyTensors)
{
    for (int64_t const n : {1, 3, 5, 257})
    {
        HostBuffer in(DataType::kFLOAT, Dims{1, {n}});
        fillInput(in, 10.0);
        HostBuffer scale(DataType::kFLOAT, Dims{0, {}});
        fillScale(scale);
        compare(in, scale, nullptr, Mapping{}, DataType::kINT4, DataType::kBF16, "int4 x" + std::to_string(n));
    }
    HostBuffer empty(DataType::kFLOAT, Dims{2, {0, 4}});
    HostBuffer scale(DataType::kFLOAT, Dims{1, {4}});
    fillScale(scale);
    compare(empty, scale, nullptr, Mapping{Dims{1, {4}}, 1, Dims{-1, {}}}, DataType::kINT8, DataType::kFLOAT, "empty");
}

// A 1-D scale of one element is the tensor's one scale whatever the axis (TensorRT's per-tensor scale), on the device
// as on the host.
TEST_F(CudaQuantize, AOneElementScaleIsPerTensorOnEveryAxis)
{
    for (Dims const& dims : {Dims{2, {1, 8}}, Dims{3, {3, 5, 7}}, Dims{1, {9}}})
    {
        for (int32_t axis = -1; axis < dims.nbDims; ++axis)
        {
            HostBuffer in(DataType::kFLOAT, dims);
            fillInput(in, 600.0);
            HostBuffer scale(DataType::kFLOAT, Dims{1, {1}});
            fillScale(scale);
            compare(in, scale, nullptr, Mapping{Dims{1, {1}}, axis, Dims{-1, {}}}, DataType::kINT8, DataType::kFLOAT,
                host::shapeString(dims) + " axis " + std::to_string(axis));
        }
    }
}

TEST_F(CudaQuantize, RefusalsAreTheHosts)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer scale(DataType::kFLOAT, Dims{1, {2}});
    DeviceBuffer const dIn = DeviceBuffer::upload(in.tensor());
    DeviceBuffer const dScale = DeviceBuffer::upload(scale.tensor());
    HostBuffer codes(DataType::kINT8, Dims{2, {2, 3}});
    DeviceBuffer const dCodes(codes.tensor());
    // The 1-D scale has 2 elements but axis 1 has 3.
    QuantizeParams const params{1, Dims{-1, {}}, DataType::kINT8};
    host::Status const refused
        = cuda::runQuantize(params, dIn.tensor(), dScale.tensor(), nullptr, dCodes.tensor(), launch());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(
        refused.error().message.find("quantize: the 1-D scale has 2 elements but the input [2, 3] has 3 along axis 1"),
        std::string::npos)
        << refused.error().message;
    // An output of another type.
    QuantizeParams const axis0{0, Dims{-1, {}}, DataType::kFP8};
    host::Status const mismatch
        = cuda::runQuantize(axis0, dIn.tensor(), dScale.tensor(), nullptr, dCodes.tensor(), launch());
    ASSERT_FALSE(mismatch.ok());
    EXPECT_NE(mismatch.error().message.find("the output is kINT8 [2, 3] but must be kFP8 [2, 3]"), std::string::npos)
        << mismatch.error().message;
    // A dequantize of a float input.
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    DeviceBuffer const dOut(out.tensor());
    host::Status const floating = cuda::runDequantize(DequantizeParams{0, Dims{-1, {}}, DataType::kFLOAT}, dIn.tensor(),
        dScale.tensor(), nullptr, dOut.tensor(), launch());
    ASSERT_FALSE(floating.ok());
    EXPECT_NE(floating.error().message.find("dequantize: the input is kFLOAT"), std::string::npos)
        << floating.error().message;
}

} // namespace
} // namespace kiln::cuda::test
