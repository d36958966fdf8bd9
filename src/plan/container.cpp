// SPDX-License-Identifier: Apache-2.0
#include "plan/container.h"

#include "NvInferVersion.h"

#include <array>
#include <cstring>
#include <limits>
#include <sstream>

namespace kiln
{
namespace
{

// Header layout (all little-endian):
//   0  char[8]  magic "KILNPLAN"
//   8  u32      format major      12 u32  format minor
//   16 u32      header size (64)  20 u32  backend
//   24 u64      payload size
//   32 u64      payload CRC-64
//   40 u32      TensorRT version  44 u32  kiln version
//   48 u8[8]    reserved, zero
//   56 u64      CRC-64 of bytes 0..55
constexpr std::array<char, 8> kMagic{'K', 'I', 'L', 'N', 'P', 'L', 'A', 'N'};
constexpr std::size_t kHeaderChecksumOffset = 56;

//! CRC-64 (ECMA-182, reflected, as xz computes it) by slicing by 8: table k gives the CRC of a byte followed by k zero
//! bytes, so eight bytes are folded in with eight look-ups (table 0 is the byte-at-a-time table).
constexpr std::array<std::array<uint64_t, 256>, 8> makeCrcTables() noexcept
{
    std::array<std::array<uint64_t, 256>, 8> tables{};
    constexpr uint64_t kPolynomial = 0xC96C5795D7870F42ULL;
    for (uint64_t i = 0; i < 256; ++i)
    {
        uint64_t value = i;
        for (int bit = 0; bit < 8; ++bit)
        {
            value = (value & 1U) != 0 ? (value >> 1U) ^ kPolynomial : value >> 1U;
        }
        tables[0][i] = value;
    }
    for (std::size_t k = 1; k < 8; ++k)
    {
        for (std::size_t i = 0; i < 256; ++i)
        {
            uint64_t const previous = tables[k - 1][i];
            tables[k][i] = (previous >> 8U) ^ tables[0][previous & 0xFFU];
        }
    }
    return tables;
}

constexpr std::array<std::array<uint64_t, 256>, 8> kCrcTables = makeCrcTables();

template <typename T>
void put(std::span<uint8_t> out, std::size_t offset, T value)
{
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        out[offset + i] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8U * i));
    }
}

template <typename T>
T get(uint8_t const* bytes, std::size_t offset)
{
    uint64_t value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        value |= static_cast<uint64_t>(bytes[offset + i]) << (8U * i);
    }
    return static_cast<T>(value);
}

std::string hex(uint64_t value)
{
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

Error planError(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "cannot load the plan: " + std::move(message)};
}

//! What the header holds besides PlanInfo.
struct Header
{
    PlanInfo info;
    uint64_t payloadSize{};
    uint64_t payloadCrc{};
};

//! The header at the start of bytes, once its magic, completeness, checksum, format major version, header size and
//! backend are checked; the payload is not looked at.
Expected<Header> readHeader(std::span<uint8_t const> bytes)
{
    if (bytes.size() < kMagic.size() || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
    {
        return planError("this is not a kiln plan (it does not start with \"KILNPLAN\"); it may be a TensorRT "
                         "engine or another file, which kiln cannot load");
    }
    if (bytes.size() < kPlanHeaderSize)
    {
        return planError("the plan is truncated inside its header (" + std::to_string(bytes.size()) + " of "
            + std::to_string(kPlanHeaderSize) + " bytes)");
    }
    uint8_t const* data = bytes.data();
    uint64_t const headerCrc = crc64(bytes.first(kHeaderChecksumOffset));
    uint64_t const storedHeaderCrc = get<uint64_t>(data, kHeaderChecksumOffset);
    if (headerCrc != storedHeaderCrc)
    {
        return planError("the plan header is corrupted (checksum " + hex(storedHeaderCrc) + " stored, " + hex(headerCrc)
            + " computed over bytes 0-55)");
    }

    Header header;
    header.info.formatMajor = get<uint32_t>(data, 8);
    header.info.formatMinor = get<uint32_t>(data, 12);
    uint32_t const headerSize = get<uint32_t>(data, 16);
    uint32_t const backend = get<uint32_t>(data, 20);
    header.payloadSize = get<uint64_t>(data, 24);
    header.payloadCrc = get<uint64_t>(data, 32);
    header.info.tensorrtVersion = get<uint32_t>(data, 40);
    header.info.kilnVersion = get<uint32_t>(data, 44);

    if (header.info.formatMajor != kPlanFormatMajor)
    {
        return planError("the plan has format version " + std::to_string(header.info.formatMajor) + "."
            + std::to_string(header.info.formatMinor) + " (written by kiln " + std::to_string(header.info.kilnVersion)
            + "); this kiln reads format " + std::to_string(kPlanFormatMajor) + ".x; rebuild the engine with this "
            + "kiln");
    }
    if (headerSize != kPlanHeaderSize)
    {
        return planError("the plan header claims " + std::to_string(headerSize) + " bytes; format "
            + std::to_string(kPlanFormatMajor) + " headers have " + std::to_string(kPlanHeaderSize));
    }
    if (backend > static_cast<uint32_t>(PlanBackend::kCUDA))
    {
        return planError("the plan names an unknown backend (" + std::to_string(backend) + ")");
    }
    header.info.backend = static_cast<PlanBackend>(backend);
    return header;
}

} // namespace

uint64_t crc64(std::span<uint8_t const> bytes, uint64_t crc) noexcept
{
    crc = ~crc;
    std::size_t at = 0;
    for (; at + 8 <= bytes.size(); at += 8)
    {
        uint64_t word = 0;
        for (std::size_t i = 0; i < 8; ++i)
        {
            word |= static_cast<uint64_t>(bytes[at + i]) << (8U * i); // little-endian, whatever the host
        }
        crc ^= word;
        uint64_t next = 0;
        for (std::size_t i = 0; i < 8; ++i)
        {
            next ^= kCrcTables[7 - i][(crc >> (8U * i)) & 0xFFU];
        }
        crc = next;
    }
    for (; at < bytes.size(); ++at)
    {
        crc = kCrcTables[0][(crc ^ bytes[at]) & 0xFFU] ^ (crc >> 8U);
    }
    return ~crc;
}

std::array<uint8_t, kPlanHeaderSize> planHeader(PlanInfo info, std::span<uint8_t const> payload)
{
    if (info.tensorrtVersion == 0)
    {
        info.tensorrtVersion = static_cast<uint32_t>(NV_TENSORRT_VERSION);
    }
    if (info.kilnVersion == 0)
    {
        info.kilnVersion = static_cast<uint32_t>(
            NV_TENSORRT_VERSION_INT(KILN_VERSION_MAJOR, KILN_VERSION_MINOR, KILN_VERSION_PATCH));
    }
    std::array<uint8_t, kPlanHeaderSize> out{};
    std::memcpy(out.data(), kMagic.data(), kMagic.size());
    put<uint32_t>(out, 8, info.formatMajor);
    put<uint32_t>(out, 12, info.formatMinor);
    put<uint32_t>(out, 16, static_cast<uint32_t>(kPlanHeaderSize));
    put<uint32_t>(out, 20, static_cast<uint32_t>(info.backend));
    put<uint64_t>(out, 24, payload.size());
    put<uint64_t>(out, 32, crc64(payload));
    put<uint32_t>(out, 40, info.tensorrtVersion);
    put<uint32_t>(out, 44, info.kilnVersion);
    put<uint64_t>(out, kHeaderChecksumOffset, crc64(std::span(out.data(), kHeaderChecksumOffset)));
    return out;
}

std::vector<uint8_t> writePlan(PlanInfo info, std::span<uint8_t const> payload)
{
    std::array<uint8_t, kPlanHeaderSize> const header = planHeader(info, payload);
    std::vector<uint8_t> out(kPlanHeaderSize + payload.size());
    std::memcpy(out.data(), header.data(), header.size());
    if (!payload.empty())
    {
        std::memcpy(out.data() + kPlanHeaderSize, payload.data(), payload.size());
    }
    return out;
}

Expected<std::size_t> planSizeFromHeader(std::span<uint8_t const> bytes)
{
    auto const header = readHeader(bytes);
    if (!header)
    {
        return header.error();
    }
    uint64_t const payloadSize = header.value().payloadSize;
    if (payloadSize > std::numeric_limits<std::size_t>::max() - kPlanHeaderSize)
    {
        return planError("the plan header announces " + std::to_string(payloadSize)
            + " bytes of payload, more than this machine can address");
    }
    return kPlanHeaderSize + static_cast<std::size_t>(payloadSize);
}

Expected<PlanView> readPlan(void const* data, std::size_t size)
{
    if (data == nullptr)
    {
        return planError("the plan pointer is null");
    }
    auto const* bytes = static_cast<uint8_t const*>(data);
    auto const header = readHeader(std::span(bytes, size));
    if (!header)
    {
        return header.error();
    }
    uint64_t const payloadSize = header.value().payloadSize;
    if (payloadSize != size - kPlanHeaderSize)
    {
        return planError(payloadSize > size - kPlanHeaderSize
                ? "the plan is truncated: its header announces " + std::to_string(payloadSize)
                    + " bytes of payload, but only " + std::to_string(size - kPlanHeaderSize) + " follow"
                : "the plan has " + std::to_string(size - kPlanHeaderSize - payloadSize)
                    + " unexpected bytes after its payload of " + std::to_string(payloadSize) + " bytes");
    }
    PlanView view{header.value().info, std::span(bytes + kPlanHeaderSize, static_cast<std::size_t>(payloadSize))};
    uint64_t const computed = crc64(view.payload);
    if (computed != header.value().payloadCrc)
    {
        return planError("the plan payload is corrupted (checksum " + hex(header.value().payloadCrc) + " stored, "
            + hex(computed) + " computed over bytes 64-" + std::to_string(size - 1) + ")");
    }
    return view;
}

} // namespace kiln
