// SPDX-License-Identifier: Apache-2.0
// Activation memory planning: every intermediate buffer gets an offset in one block, and buffers whose lifetimes
// do not overlap share bytes. Greedy by size (largest first, each at the lowest aligned offset that no
// simultaneously live buffer occupies), the method TFLite's arena planner popularised; near the live-size lower
// bound in practice.
//
//     std::vector<BufferRequest> buffers{{1024, 0, 1}, {4096, 1, 2}, {1024, 2, 3}};
//     MemoryPlan plan = planMemory(buffers).value();   // buffers 0 and 2 share offset 0 or 4096
#pragma once

#include "core/error.h"

#include <cstdint>
#include <span>
#include <vector>

namespace kiln
{

//! One buffer: its size and the first and last execution steps (inclusive) in which it is live.
struct BufferRequest
{
    int64_t bytes{};
    int32_t firstStep{};
    int32_t lastStep{};
};

//! Where each buffer lives in one block of totalBytes.
struct MemoryPlan
{
    std::vector<int64_t> offsets; //!< One per request, aligned.
    int64_t totalBytes{};         //!< The block size (a multiple of the alignment).
};

//! Plans the buffers; alignment must be a power of two. An error names the first malformed request.
Expected<MemoryPlan> planMemory(std::span<BufferRequest const> buffers, int64_t alignment = 256);

//! The largest total size of buffers live at one step: no plan can be smaller (before alignment).
int64_t peakLiveBytes(std::span<BufferRequest const> buffers);

} // namespace kiln
