// SPDX-License-Identifier: Apache-2.0
// CUDA IReverseSequenceLayer, with the semantics of the host reference (backends/host/reverse_sequence.h): one thread
// per output element (a grid-stride loop) reads its batch's length and copies the element host::reverseSequenceSource
// names (the same function, compiled for the device). Elements move as words of their size, so one kernel per element
// size serves every type.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/reverse_sequence.h"

#include <string>
#include <utility>

namespace kiln::cuda
{
namespace
{

template <typename Word, typename Length>
__global__ void reverseSequenceKernel(Word const* __restrict__ in, Length const* __restrict__ lengths,
    Word* __restrict__ out, host::ReverseSequenceGeometry g)
{
    for (int64_t o = firstIndex(); o < g.count; o += gridStride())
    {
        auto const length = static_cast<int64_t>(lengths[host::reverseSequenceBatch(g, o)]);
        out[o] = in[host::reverseSequenceSource(g, o, length)];
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "reverse sequence: " + message};
}

} // namespace

Status runReverseSequence(ReverseSequenceParams const& params, DeviceTensor const& in, DeviceTensor const& lengths,
    DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    Expected<host::TensorDesc> const desc
        = host::inferReverseSequence(params, {in.type, in.dims}, {lengths.type, lengths.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, in.dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input"}, std::pair{&lengths, "lengths"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
        if (Status aligned = checkAligned(*tensor, "reverse sequence", role); !aligned)
        {
            return aligned;
        }
    }
    host::ReverseSequenceGeometry const g = host::reverseSequenceGeometry(params, in.dims);
    if (g.count == 0)
    {
        return host::Done{};
    }
    bool const wide = lengths.type == DataType::kINT64;
    bool const known = dispatchWord(host::elementBytes(in.type), [&]<typename Word>() {
        auto const* source = static_cast<Word const*>(in.data);
        auto* target = static_cast<Word*>(out.data);
        if (wide)
        {
            reverseSequenceKernel<Word, int64_t><<<gridFor(g.count), kBlock, 0, launch.stream>>>(
                source, static_cast<int64_t const*>(lengths.data), target, g);
        }
        else
        {
            reverseSequenceKernel<Word, int32_t><<<gridFor(g.count), kBlock, 0, launch.stream>>>(
                source, static_cast<int32_t const*>(lengths.data), target, g);
        }
    });
    if (!known)
    {
        return invalid(std::string("no kernel moves ") + dataTypeName(in.type) + " elements");
    }
    return launched("reverse sequence: kernel launch");
}

} // namespace kiln::cuda
