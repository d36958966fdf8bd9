// SPDX-License-Identifier: Apache-2.0
// The plan envelope: round trips, and every way a plan can be damaged -- truncated at every length, every single
// bit flipped, wrong or future versions, foreign files, hostile headers with valid checksums, random bytes --
// refused with a message that says which, never a crash or an out-of-bounds read (run under ASan in CI).
#include "plan/container.h"

#include "NvInferVersion.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <string>

namespace kiln
{
namespace
{

std::vector<uint8_t> samplePayload(std::size_t size)
{
    std::vector<uint8_t> payload(size);
    std::iota(payload.begin(), payload.end(), uint8_t{7});
    return payload;
}

//! Rewrites a header field and fixes the header checksum, as a hostile writer could.
template <typename T>
void patchHeader(std::vector<uint8_t>& plan, std::size_t offset, T value)
{
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        plan[offset + i] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8U * i));
    }
    uint64_t const crc = crc64(std::span<uint8_t const>(plan.data(), 56));
    for (std::size_t i = 0; i < 8; ++i)
    {
        plan[56 + i] = static_cast<uint8_t>(crc >> (8U * i));
    }
}

std::string messageOf(std::vector<uint8_t> const& plan)
{
    auto result = readPlan(plan.data(), plan.size());
    return result.ok() ? std::string("(accepted)") : result.error().message;
}

TEST(PlanContainer, Crc64MatchesTheStandardCheckValue)
{
    std::string const text = "123456789";
    EXPECT_EQ(crc64(std::span(reinterpret_cast<uint8_t const*>(text.data()), text.size())), 0x995DC9BBDF1939FAULL);
    EXPECT_EQ(crc64({}), 0U);
}

TEST(PlanContainer, Crc64OfEveryLengthAndOffsetMatchesTheBitwiseDefinition)
{
    // The slicing-by-8 loop against the polynomial applied bit by bit: every length 0..40 at offsets 0..8 (words and
    // tails alike), a running CRC continued across two calls, and a long buffer.
    auto const bitwise = [](std::span<uint8_t const> bytes) {
        uint64_t crc = ~uint64_t{0};
        for (uint8_t const byte : bytes)
        {
            crc ^= byte;
            for (int bit = 0; bit < 8; ++bit)
            {
                crc = (crc >> 1U) ^ (0xC96C5795D7870F42ULL & (0 - (crc & 1U)));
            }
        }
        return ~crc;
    };
    std::vector<uint8_t> bytes(4099);
    uint32_t state = 12345;
    for (uint8_t& b : bytes)
    {
        state = state * 1664525U + 1013904223U;
        b = static_cast<uint8_t>(state >> 24U);
    }
    std::span<uint8_t const> const all(bytes);
    for (std::size_t offset = 0; offset <= 8; ++offset)
    {
        for (std::size_t length = 0; length <= 40; ++length)
        {
            EXPECT_EQ(crc64(all.subspan(offset, length)), bitwise(all.subspan(offset, length)))
                << "offset " << offset << ", length " << length;
        }
    }
    EXPECT_EQ(crc64(all), bitwise(all));
    EXPECT_EQ(crc64(all.subspan(1001), crc64(all.first(1001))), bitwise(all));
}

TEST(PlanContainer, RoundTripsPayloadAndInfo)
{
    auto const payload = samplePayload(1000);
    auto const plan = writePlan(PlanInfo{PlanBackend::kCUDA}, payload);
    ASSERT_EQ(plan.size(), kPlanHeaderSize + payload.size());
    auto const view = readPlan(plan.data(), plan.size());
    ASSERT_TRUE(view.ok()) << view.error().message;
    EXPECT_EQ(view.value().info.backend, PlanBackend::kCUDA);
    EXPECT_EQ(view.value().info.formatMajor, kPlanFormatMajor);
    EXPECT_EQ(view.value().info.formatMinor, kPlanFormatMinor);
    EXPECT_EQ(view.value().info.tensorrtVersion, static_cast<uint32_t>(NV_TENSORRT_VERSION));
    EXPECT_EQ(view.value().info.kilnVersion,
        static_cast<uint32_t>(NV_TENSORRT_VERSION_INT(KILN_VERSION_MAJOR, KILN_VERSION_MINOR, KILN_VERSION_PATCH)));
    ASSERT_EQ(view.value().payload.size(), payload.size());
    EXPECT_EQ(std::memcmp(view.value().payload.data(), payload.data(), payload.size()), 0);
    EXPECT_EQ(view.value().payload.data(), plan.data() + kPlanHeaderSize) << "a view, not a copy";

    auto const empty = writePlan(PlanInfo{}, {});
    ASSERT_TRUE(readPlan(empty.data(), empty.size()).ok());
}

TEST(PlanContainer, RefusesEveryTruncation)
{
    auto const plan = writePlan(PlanInfo{}, samplePayload(100));
    for (std::size_t length = 0; length < plan.size(); ++length)
    {
        auto const result = readPlan(plan.data(), length); // the first `length` bytes of a real plan
        std::string const message = result.ok() ? std::string("(accepted)") : result.error().message;
        ASSERT_NE(message, "(accepted)") << length;
        if (length < 8)
        {
            EXPECT_NE(message.find("not a kiln plan"), std::string::npos) << length << ": " << message;
        }
        else if (length < kPlanHeaderSize)
        {
            EXPECT_NE(message.find("truncated inside its header (" + std::to_string(length) + " of 64 bytes)"),
                std::string::npos)
                << message;
        }
        else
        {
            EXPECT_NE(message.find("the plan is truncated: its header announces 100 bytes of payload, but only "
                          + std::to_string(length - kPlanHeaderSize) + " follow"),
                std::string::npos)
                << message;
        }
    }
}

TEST(PlanContainer, PlanSizeFromHeaderReadsOnlyTheHeader)
{
    auto const plan = writePlan(PlanInfo{}, samplePayload(100));
    std::span<uint8_t const> const bytes(plan);
    for (std::size_t length : {kPlanHeaderSize, std::size_t{80}, plan.size()})
    {
        auto const size = planSizeFromHeader(bytes.first(length));
        ASSERT_TRUE(size.ok()) << size.error().message;
        EXPECT_EQ(size.value(), plan.size());
    }
    auto const messageFor = [](std::span<uint8_t const> header) {
        auto const size = planSizeFromHeader(header);
        return size.ok() ? std::string("(accepted)") : size.error().message;
    };
    EXPECT_NE(messageFor(bytes.first(30)).find("truncated inside its header (30 of 64 bytes)"), std::string::npos);
    EXPECT_NE(messageFor(bytes.first(4)).find("not a kiln plan"), std::string::npos);

    auto corrupted = plan;
    corrupted[30] ^= 1U;
    EXPECT_NE(messageFor(corrupted).find("header is corrupted"), std::string::npos);
    auto newer = plan;
    patchHeader<uint32_t>(newer, 8, kPlanFormatMajor + 1);
    EXPECT_NE(messageFor(newer).find(
                  "format version " + std::to_string(kPlanFormatMajor + 1) + "." + std::to_string(kPlanFormatMinor)),
        std::string::npos)
        << messageFor(newer);

    auto huge = plan;
    patchHeader<uint64_t>(huge, 24, ~uint64_t{0});
    EXPECT_NE(messageFor(huge).find("announces 18446744073709551615 bytes of payload, more than this machine can "
                                    "address"),
        std::string::npos)
        << messageFor(huge);
}

TEST(PlanContainer, RefusesEverySingleBitFlip)
{
    auto const plan = writePlan(PlanInfo{}, samplePayload(48));
    for (std::size_t byte = 0; byte < plan.size(); ++byte)
    {
        for (int bit = 0; bit < 8; ++bit)
        {
            auto damaged = plan;
            damaged[byte] = static_cast<uint8_t>(damaged[byte] ^ (1U << bit));
            std::string const message = messageOf(damaged);
            ASSERT_NE(message, "(accepted)") << "byte " << byte << " bit " << bit;
            if (byte >= 8 && byte < kPlanHeaderSize)
            {
                EXPECT_NE(message.find("the plan header is corrupted"), std::string::npos) << message;
            }
            else if (byte >= kPlanHeaderSize)
            {
                EXPECT_NE(message.find("the plan payload is corrupted"), std::string::npos) << message;
            }
        }
    }
}

TEST(PlanContainer, VersionRules)
{
    auto plan = writePlan(PlanInfo{}, samplePayload(10));
    patchHeader<uint32_t>(plan, 8, kPlanFormatMajor + 1);
    EXPECT_NE(messageOf(plan).find(
                  "format version " + std::to_string(kPlanFormatMajor + 1) + "." + std::to_string(kPlanFormatMinor)),
        std::string::npos)
        << messageOf(plan);
    EXPECT_NE(
        messageOf(plan).find("this kiln reads format " + std::to_string(kPlanFormatMajor) + ".x; rebuild the engine"),
        std::string::npos);

    auto newerMinor = writePlan(PlanInfo{}, samplePayload(10));
    patchHeader<uint32_t>(newerMinor, 12, kPlanFormatMinor + 3);
    auto const view = readPlan(newerMinor.data(), newerMinor.size());
    ASSERT_TRUE(view.ok()) << "a newer minor version only adds what this reader may ignore";
    EXPECT_EQ(view.value().info.formatMinor, kPlanFormatMinor + 3);
}

TEST(PlanContainer, RefusesForeignFilesAndHostileHeaders)
{
    std::vector<uint8_t> tensorrtLike(4096, 0);
    std::memcpy(tensorrtLike.data(), "ftrt", 4);
    EXPECT_NE(messageOf(tensorrtLike).find("not a kiln plan"), std::string::npos);
    EXPECT_NE(readPlan(nullptr, 100).error().message.find("null"), std::string::npos);

    auto huge = writePlan(PlanInfo{}, samplePayload(10));
    patchHeader<uint64_t>(huge, 24, uint64_t{1} << 63U);
    EXPECT_NE(
        messageOf(huge).find("announces 9223372036854775808 bytes of payload, but only 10 follow"), std::string::npos)
        << messageOf(huge);

    auto trailing = writePlan(PlanInfo{}, samplePayload(10));
    trailing.push_back(0);
    EXPECT_NE(messageOf(trailing).find("1 unexpected bytes after its payload of 10 bytes"), std::string::npos);

    auto headerSize = writePlan(PlanInfo{}, samplePayload(10));
    patchHeader<uint32_t>(headerSize, 16, 4096);
    EXPECT_NE(messageOf(headerSize).find("header claims 4096 bytes"), std::string::npos);

    auto backend = writePlan(PlanInfo{}, samplePayload(10));
    patchHeader<uint32_t>(backend, 20, 7);
    EXPECT_NE(messageOf(backend).find("unknown backend (7)"), std::string::npos);
}

TEST(PlanContainer, RandomBytesAreRefusedWithoutCrashing)
{
    std::mt19937 random(42);
    for (int trial = 0; trial < 5000; ++trial)
    {
        std::vector<uint8_t> bytes(std::uniform_int_distribution<std::size_t>(0, 300)(random));
        for (auto& b : bytes)
        {
            b = static_cast<uint8_t>(random());
        }
        if (trial % 2 == 0 && bytes.size() >= 8)
        {
            std::memcpy(bytes.data(), "KILNPLAN", 8); // get past the magic check
        }
        ASSERT_EQ(messageOf(bytes).find("(accepted)"), std::string::npos);
    }
}

} // namespace
} // namespace kiln
