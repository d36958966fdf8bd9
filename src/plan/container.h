// SPDX-License-Identifier: Apache-2.0
// The plan file's envelope: a fixed little-endian header (magic, format version, sizes, what built it, the
// backend) protected by its own checksum, followed by the payload (the FlatBuffers-encoded engine) protected by a
// CRC-64. Loading checks everything before a single payload byte is trusted, and refuses a truncated, corrupted,
// foreign or too-new plan with a message that says which, and where. docs/plan-format.md is the policy.
//
//     std::vector<uint8_t> bytes = writePlan(PlanInfo{PlanBackend::kHOST}, payload);
//     auto plan = readPlan(bytes.data(), bytes.size());   // Expected<PlanView>: header + payload span
#pragma once

#include "core/error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kiln
{

//! The backend a plan was built for.
enum class PlanBackend : uint32_t
{
    kHOST = 0, //!< The host reference backend.
    kCUDA = 1, //!< NVIDIA GPUs through CUDA.
};

//! The version of the plan format this kiln writes. A reader accepts its own major version and any minor version
//! (minor versions only add what older readers may ignore); other majors are refused.
constexpr uint32_t kPlanFormatMajor = 4; // 4: channels-last poolings and padded stems (builder/layout.h).
// 1: packed q, k and v of a fused attention (FusedKernel::packedQkv); 2: the engine's profiling verbosity; 3: debug
// tensors (TensorRecord::isDebug); 4: plugin libraries carried in the plan (EngineModel::pluginLibraries);
// 5: a V3 plugin's API language (PluginPlan.language); 6: ahead-of-time kernels standing for V3 plugins
// (PluginPlanRecord::aot); 7: fused embeddings (FusedKernel::kEMBEDDING); 8: reshapes that view their input
// (LayerRecord::viewsInput).
constexpr uint32_t kPlanFormatMinor = 8;

//! What the header records besides the payload.
struct PlanInfo
{
    PlanBackend backend{PlanBackend::kHOST};
    uint32_t formatMajor{kPlanFormatMajor};
    uint32_t formatMinor{kPlanFormatMinor};
    uint32_t tensorrtVersion{}; //!< NV_TENSORRT_VERSION of the builder (101600).
    uint32_t kilnVersion{};     //!< KILN_VERSION_* of the builder, packed like NV_TENSORRT_VERSION_INT.
};

//! A validated plan: its header and a view of its payload inside the caller's buffer.
struct PlanView
{
    PlanInfo info;
    std::span<uint8_t const> payload;
};

//! The size of the header in bytes.
constexpr std::size_t kPlanHeaderSize = 64;

//! The CRC-64/XZ checksum of bytes (check value of "123456789": 0x995DC9BBDF1939FA).
uint64_t crc64(std::span<uint8_t const> bytes, uint64_t crc = 0) noexcept;

//! The header of the plan file whose payload is payload. tensorrtVersion and kilnVersion are filled in when zero.
std::array<uint8_t, kPlanHeaderSize> planHeader(PlanInfo info, std::span<uint8_t const> payload);

//! The whole plan file: planHeader(info, payload), then payload.
std::vector<uint8_t> writePlan(PlanInfo info, std::span<uint8_t const> payload);

//! Validates a plan file held in memory; never reads outside [data, data + size).
Expected<PlanView> readPlan(void const* data, std::size_t size);

//! The size of the whole plan file (header and payload) that starts with bytes, from its header: for readers of a
//! stream, which must know how much to read. The header is checked as readPlan checks it (magic, checksum, version,
//! header size, backend); an error when bytes hold less than the header. Reads only the first kPlanHeaderSize bytes.
Expected<std::size_t> planSizeFromHeader(std::span<uint8_t const> bytes);

} // namespace kiln
