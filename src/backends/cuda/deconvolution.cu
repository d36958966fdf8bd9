// SPDX-License-Identifier: Apache-2.0
// The direct deconvolution kernel (deconvolution_direct.h). A 2-D deconvolution is a 3-D one of depth 1 (kernel,
// stride and dilation 1, no padding on the extra axis). Thread o owns output element o = [n, k, z, y, x]: it walks the
// kernel taps of each axis, keeps those that reach an input position (o + pre - tap * dilation a non-negative multiple
// of the stride, below the input's extent), and sums input * kernel over the input channels of k's group.
#include "backends/cuda/deconvolution_direct.h"
#include "backends/cuda/elements.cuh"

#include <algorithm>
#include <string>

namespace kiln::cuda
{

namespace
{

constexpr int64_t kMaxBlocks = 65535;
constexpr uint32_t kThreads = 256;

//! The geometry as a kernel argument; a 2-D deconvolution has extent 1 on axis 0.
struct DeconvolutionShape
{
    int64_t batch{};
    int64_t channels{};
    int64_t maps{};
    int64_t channelsPerGroup{};
    int64_t mapsPerGroup{};
    int64_t in[3]{1, 1, 1};
    int64_t out[3]{1, 1, 1};
    int64_t kernel[3]{1, 1, 1};
    int64_t stride[3]{1, 1, 1};
    int64_t dilation[3]{1, 1, 1};
    int64_t pre[3]{};
};

//! Element i of a floating tensor of type (kFLOAT, kHALF or kBF16) as a float.
__device__ __forceinline__ float loadFloating(void const* p, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kHALF: return loadFloat<DataType::kHALF>(static_cast<__half const*>(p), i);
    case DataType::kBF16: return loadFloat<DataType::kBF16>(static_cast<__nv_bfloat16 const*>(p), i);
    default: return loadFloat<DataType::kFLOAT>(static_cast<float const*>(p), i);
    }
}

template <DataType T>
__global__ void deconvolve(Storage<T> const* in, void const* kernel, DataType kernelType, void const* bias,
    DataType biasType, Storage<T>* out, DeconvolutionShape const s)
{
    int64_t const outVolume = s.out[0] * s.out[1] * s.out[2];
    int64_t const inVolume = s.in[0] * s.in[1] * s.in[2];
    int64_t const taps = s.kernel[0] * s.kernel[1] * s.kernel[2];
    int64_t const total = s.batch * s.maps * outVolume;
    for (int64_t o = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < total; o += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const x = o % s.out[2];
        int64_t const y = o / s.out[2] % s.out[1];
        int64_t const z = o / (s.out[2] * s.out[1]) % s.out[0];
        int64_t const k = o / outVolume % s.maps;
        int64_t const n = o / (outVolume * s.maps);
        int64_t const group = k / s.mapsPerGroup;
        int64_t const mapInGroup = k % s.mapsPerGroup;
        float sum = bias == nullptr ? 0.F : loadFloating(bias, biasType, k);
        for (int64_t tz = 0; tz < s.kernel[0]; ++tz)
        {
            int64_t const rz = z + s.pre[0] - tz * s.dilation[0];
            if (rz < 0 || rz % s.stride[0] != 0 || rz / s.stride[0] >= s.in[0])
            {
                continue;
            }
            for (int64_t ty = 0; ty < s.kernel[1]; ++ty)
            {
                int64_t const ry = y + s.pre[1] - ty * s.dilation[1];
                if (ry < 0 || ry % s.stride[1] != 0 || ry / s.stride[1] >= s.in[1])
                {
                    continue;
                }
                for (int64_t tx = 0; tx < s.kernel[2]; ++tx)
                {
                    int64_t const rx = x + s.pre[2] - tx * s.dilation[2];
                    if (rx < 0 || rx % s.stride[2] != 0 || rx / s.stride[2] >= s.in[2])
                    {
                        continue;
                    }
                    int64_t const at = (rz / s.stride[0] * s.in[1] + ry / s.stride[1]) * s.in[2] + rx / s.stride[2];
                    int64_t const tap = (tz * s.kernel[1] + ty) * s.kernel[2] + tx;
                    for (int64_t c = 0; c < s.channelsPerGroup; ++c)
                    {
                        int64_t const channel = group * s.channelsPerGroup + c;
                        float const value = loadFloat<T>(in, (n * s.channels + channel) * inVolume + at);
                        float const weight
                            = loadFloating(kernel, kernelType, (channel * s.mapsPerGroup + mapInGroup) * taps + tap);
                        sum += value * weight;
                    }
                }
            }
        }
        storeFloat<T>(out, o, sum);
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "deconvolution: " + message};
}

bool floating(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

} // namespace

Status runDeconvolutionDirect(host::DeconvolutionGeometry const& g, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, DeviceTensor const& out, cudaStream_t stream)
{
    if (!floating(in.type) || out.type != in.type || !floating(kernel.type)
        || (bias != nullptr && !floating(bias->type)))
    {
        return invalid("the direct kernel takes kFLOAT, kHALF and kBF16 tensors (input and output of one type)");
    }
    if (g.nbSpatial < 2 || g.nbSpatial > 3 || g.groups < 1)
    {
        return invalid("the direct kernel takes 2-D and 3-D deconvolutions");
    }
    DeconvolutionShape shape;
    shape.batch = g.batch;
    shape.channels = g.channels;
    shape.maps = g.maps;
    shape.channelsPerGroup = g.channels / g.groups;
    shape.mapsPerGroup = g.maps / g.groups;
    for (int32_t i = 0; i < g.nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        int32_t const at = 3 - g.nbSpatial + i;
        shape.in[at] = g.in[a];
        shape.out[at] = g.out[a];
        shape.kernel[at] = g.kernel[a];
        shape.stride[at] = g.stride[a];
        shape.dilation[at] = g.dilation[a];
        shape.pre[at] = g.pre[a];
    }
    int64_t const total = host::elementCount(g.outputDims);
    if (total == 0)
    {
        return host::Done{};
    }
    int64_t const blocks = std::min(kMaxBlocks, (total + kThreads - 1) / kThreads);
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16)
        {
            deconvolve<T>
                <<<static_cast<uint32_t>(blocks), kThreads, 0, stream>>>(static_cast<Storage<T> const*>(in.data),
                    kernel.data, kernel.type, bias == nullptr ? nullptr : bias->data,
                    bias == nullptr ? DataType::kFLOAT : bias->type, static_cast<Storage<T>*>(out.data), shape);
        }
    });
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess)
    {
        return cudaFailure(status, "launching the deconvolution kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
