// SPDX-License-Identifier: Apache-2.0
// CUDA IEinsumLayer, with the semantics of the host reference (backends/host/einsum.h): one thread per output element
// (a grid-stride loop) walks every combination of the summed labels, finds each input's element with
// host::einsumOffsets (the same function, compiled for the device) and sums the products in float (the host in
// double). Simple on purpose: no tiling, no shared memory; large contractions are better written as matrix multiplies.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/einsum.h"

#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

template <DataType T>
inline constexpr bool kSums = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16;

template <DataType T>
__global__ void einsumKernel(Storage<T> const* __restrict__ a, Storage<T> const* __restrict__ b,
    Storage<T>* __restrict__ out, host::EinsumGeometry g)
{
    for (int64_t o = firstIndex(); o < g.outputCount; o += gridStride())
    {
        float sum = 0.F;
        for (int64_t s = 0; s < g.sumCount; ++s)
        {
            int64_t offsets[host::kMaxEinsumInputs];
            host::einsumOffsets(g, o, s, offsets);
            float product = loadFloat<T>(a, offsets[0]);
            if (g.nbInputs > 1)
            {
                product *= loadFloat<T>(b, offsets[1]);
            }
            sum += product;
        }
        storeFloat<T>(out, o, sum);
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "einsum: " + message};
}

} // namespace

Status runEinsum(
    EinsumParams const& params, std::span<DeviceTensor const> inputs, DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    std::vector<host::TensorDesc> descs;
    std::vector<Dims> shapes;
    for (DeviceTensor const& input : inputs)
    {
        descs.push_back({input.type, input.dims});
        shapes.push_back(input.dims);
    }
    Expected<host::TensorDesc> const desc = host::inferEinsum(params, descs);
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (std::optional<Error> const error = host::checkTensor(inputs[i], "input " + std::to_string(i)))
        {
            return invalid(error->message);
        }
    }
    if (std::optional<Error> const error = host::checkTensor(out, "output"))
    {
        return invalid(error->message);
    }
    host::EinsumGeometry const g = host::einsumGeometry(params, shapes).value();
    if (g.outputCount == 0)
    {
        return host::Done{};
    }
    void const* second = inputs.size() > 1 ? inputs[1].data : inputs[0].data;
    dispatchType(out.type, [&]<DataType T>() {
        if constexpr (kSums<T>)
        {
            einsumKernel<T>
                <<<gridFor(g.outputCount), kBlock, 0, launch.stream>>>(static_cast<Storage<T> const*>(inputs[0].data),
                    static_cast<Storage<T> const*>(second), static_cast<Storage<T>*>(out.data), g);
        }
    });
    return launched("einsum: kernel launch");
}

} // namespace kiln::cuda
