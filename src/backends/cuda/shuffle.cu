// SPDX-License-Identifier: Apache-2.0
// CUDA IShuffleLayer: the host's first transpose, reshape and second transpose (backends/host/shuffle.h) in one pass.
// An output element's source goes through two strided maps: its output coordinates give its row-major index in the
// reshaped tensor (the second transpose), and that index, read as coordinates of the transposed input, gives its
// offset in the input (the first transpose); the reshape itself moves nothing. Each map is simplified (extents of 1
// dropped, contiguous dimensions merged), so a pure reshape, or a transpose that only moves extents of 1, is one
// cudaMemcpyAsync.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/shuffle.h"

#include <string>

namespace kiln::cuda
{

namespace
{

template <typename Word>
__global__ void shuffleKernel(
    Word const* __restrict__ in, Word* __restrict__ out, int64_t count, StridedView second, StridedView first)
{
    for (int64_t o = firstIndex(); o < count; o += gridStride())
    {
        out[o] = in[offsetOf(first, offsetOf(second, o))];
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "shuffle: " + message};
}

//! The map of a transpose by order of a row-major tensor of shape dims: the transposed extents, and for each the
//! stride of the dimension of dims it reads.
StridedView transposeView(Dims const& dims, nvinfer1::Permutation const& order)
{
    host::Index const strides = host::rowMajorStrides(dims);
    StridedView view;
    view.rank = dims.nbDims;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        view.extents[i] = dims.d[order.order[i]];
        view.strides[i] = strides[static_cast<std::size_t>(order.order[i])];
    }
    return view;
}

} // namespace

Status runShuffle(ShuffleParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    Expected<host::TensorDesc> const desc = host::inferShuffle(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (Status aligned = checkAligned(*tensor, "shuffle", role); !aligned)
        {
            return aligned;
        }
    }
    // The reshaped shape: the shuffle without its second transpose.
    ShuffleParams firstPart = params;
    firstPart.secondTranspose = identityPermutation();
    Dims const reshaped = host::inferShuffle(firstPart, {in.type, in.dims}).value().dims;
    StridedView const first = simplified(transposeView(in.dims, params.firstTranspose));
    StridedView const second = simplified(transposeView(reshaped, params.secondTranspose));
    int64_t const bytes = host::elementBytes(in.type);
    if (first.rank == 0 && second.rank == 0)
    {
        cudaError_t const status = cudaMemcpyAsync(
            out.data, in.data, static_cast<size_t>(count * bytes), cudaMemcpyDeviceToDevice, launch.stream);
        return status == cudaSuccess ? Status{host::Done{}} : Status{cudaFailure(status, "shuffle: cudaMemcpyAsync")};
    }
    dispatchWord(bytes, [&]<typename Word>() {
        shuffleKernel<Word><<<gridFor(count), kBlock, 0, launch.stream>>>(
            static_cast<Word const*>(in.data), static_cast<Word*>(out.data), count, second, first);
    });
    return launched("shuffle: kernel launch");
}

} // namespace kiln::cuda
