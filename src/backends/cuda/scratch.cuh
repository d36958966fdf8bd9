// SPDX-License-Identifier: Apache-2.0
// Scratch memory of the kernels built on CUB's device-wide algorithms (topk.cu, non_zero.cu, nms.cu): their pieces are
// sized first, rounded up to 256 bytes, then carved in order from one Libraries::workspace block; and the grid of the
// grid-stride kernels around them.
//
//     int64_t const keyBytes = scratchBytes(items * sizeof(uint32_t));
//     Expected<void*> const block = launch.libraries->workspace(2 * keyBytes + scratchBytes(tempBytes), stream);
//     ScratchCarver carve(block.value());
//     auto* keysIn = reinterpret_cast<uint32_t*>(carve.take(keyBytes));
//     kernel<<<gridStrideBlocks(items, kThreads), kThreads, 0, stream>>>(...);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kiln::cuda
{

//! The alignment of every scratch piece (CUB's temporary storage asks for 256).
inline constexpr int64_t kScratchAlignment = 256;

//! bytes rounded up to kScratchAlignment.
inline int64_t scratchBytes(int64_t bytes) noexcept
{
    return (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
}

//! Hands out consecutive pieces of one block, each scratchBytes(bytes) long.
class ScratchCarver
{
public:
    explicit ScratchCarver(void* block) noexcept
        : mCursor(static_cast<std::byte*>(block))
    {
    }

    std::byte* take(int64_t bytes) noexcept
    {
        std::byte* const piece = mCursor;
        mCursor += scratchBytes(bytes);
        return piece;
    }

private:
    std::byte* mCursor;
};

//! The blocks of threads threads each for a grid-stride loop over work items: at least 1, at most 65535.
inline uint32_t gridStrideBlocks(int64_t work, int32_t threads) noexcept
{
    constexpr int64_t kMaxBlocks = 65535;
    return static_cast<uint32_t>(std::clamp<int64_t>((work + threads - 1) / threads, 1, kMaxBlocks));
}

} // namespace kiln::cuda
