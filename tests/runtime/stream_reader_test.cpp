// SPDX-License-Identifier: Apache-2.0
// IRuntime::deserializeCudaEngine from IStreamReader and IStreamReaderV2: the plan's header says how many bytes to
// read, and the runtime reads exactly those. A stream that goes on past the plan (or never ends) is not read further,
// a foreign stream is refused after its first 64 bytes, and a stream that ends early, fails, throws or claims more
// bytes than it was asked for is refused with a message that says so.
#include "models.h"

#include "plan/container.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace kiln::test
{
namespace
{

//! What a stream holds: some bytes, then what comes after them.
struct Source
{
    enum class After
    {
        kEND,      //!< Reads return 0.
        kFAIL,     //!< Reads return -1.
        kZEROS,    //!< Reads fill what they are asked for with zeros, forever.
        kTHROW,    //!< Reads throw.
        kTOO_MANY, //!< Reads claim one byte more than they were asked for.
    };

    //! How far past its bytes a kZEROS stream goes before it calls the reader a runaway.
    static constexpr int64_t kRunaway = int64_t{16} << 20U;

    std::vector<uint8_t> bytes;
    After after{After::kEND};
    int64_t piece{1000}; //!< The most one read gives.
    int64_t delivered{}; //!< Bytes given so far.

    int64_t read(void* destination, int64_t nbBytes)
    {
        auto const at = static_cast<std::size_t>(std::min<int64_t>(delivered, static_cast<int64_t>(bytes.size())));
        int64_t const left = static_cast<int64_t>(bytes.size() - at);
        int64_t const n = std::min({nbBytes, piece, left});
        if (n > 0)
        {
            std::memcpy(destination, bytes.data() + at, static_cast<std::size_t>(n));
            delivered += n;
            return n;
        }
        switch (after)
        {
        case After::kEND: return 0;
        case After::kFAIL: return -1;
        case After::kZEROS:
            // Endless as far as a correct runtime can tell; a runtime that reads on would fail here, not hang the test.
            if (delivered > static_cast<int64_t>(bytes.size()) + kRunaway)
            {
                return -1;
            }
            std::memset(destination, 0, static_cast<std::size_t>(nbBytes));
            delivered += nbBytes;
            return nbBytes;
        case After::kTHROW: throw std::runtime_error("the disk is gone");
        case After::kTOO_MANY: return nbBytes + 1;
        }
        return -1;
    }
};

class Reader final : public nvinfer1::IStreamReader
{
public:
    explicit Reader(Source& source)
        : mSource(source)
    {
    }
    int64_t read(void* destination, int64_t nbBytes) override { return mSource.read(destination, nbBytes); }

private:
    Source& mSource;
};

class ReaderV2 final : public nvinfer1::IStreamReaderV2
{
public:
    explicit ReaderV2(Source& source)
        : mSource(source)
    {
    }
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t) noexcept override
    {
        return mSource.read(destination, nbBytes);
    }
    bool seek(int64_t, nvinfer1::SeekPosition) noexcept override { return false; }

private:
    Source& mSource;
};

class StreamReaders : public RuntimeTest
{
protected:
    void SetUp() override
    {
        RuntimeTest::SetUp();
        mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        ASSERT_NE(mRuntime, nullptr);
        auto engine = makeEngine(addConstantModel());
        ASSERT_NE(engine, nullptr);
        std::unique_ptr<nvinfer1::IHostMemory> plan{engine->serialize()};
        ASSERT_NE(plan, nullptr);
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        mPlan.assign(bytes, bytes + plan->size());
    }

    //! The engine source gives, through IStreamReader (V1) or IStreamReaderV2.
    std::unique_ptr<nvinfer1::ICudaEngine> load(Source& source, bool v2)
    {
        Reader reader(source);
        ReaderV2 readerV2(source);
        nvinfer1::IStreamReaderV2& asV2 = readerV2;
        return std::unique_ptr<nvinfer1::ICudaEngine>(
            v2 ? mRuntime->deserializeCudaEngine(asV2) : mRuntime->deserializeCudaEngine(reader));
    }

    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::vector<uint8_t> mPlan;
};

char const* readerName(bool v2)
{
    return v2 ? "IStreamReaderV2" : "IStreamReader";
}

TEST_F(StreamReaders, ReadExactlyThePlan)
{
    std::vector<float> const expected{15, 27, 39};
    for (bool const v2 : {false, true})
    {
        SCOPED_TRACE(readerName(v2));
        for (Source::After const after : {Source::After::kEND, Source::After::kZEROS, Source::After::kFAIL})
        {
            // One byte at a time, in pieces, and whole; a stream that never ends is read only as far as the plan.
            for (int64_t const piece : {int64_t{1}, int64_t{1000}, int64_t{1} << 30})
            {
                Source source{mPlan, after, piece};
                auto engine = load(source, v2);
                ASSERT_NE(engine, nullptr) << mLogger.all();
                EXPECT_EQ(runAddConstant(*engine), expected);
                EXPECT_EQ(source.delivered, static_cast<int64_t>(mPlan.size()));
            }
        }
    }
    expectNoError();
}

TEST_F(StreamReaders, AForeignStreamStopsAfterTheHeader)
{
    for (bool const v2 : {false, true})
    {
        Source endless{{}, Source::After::kZEROS};
        EXPECT_EQ(load(endless, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", "not a kiln plan"});
        EXPECT_EQ(endless.delivered, static_cast<int64_t>(kPlanHeaderSize));
    }
}

TEST_F(StreamReaders, AShortStreamIsRefused)
{
    for (bool const v2 : {false, true})
    {
        std::size_t const size = mPlan.size();
        Source payloadCut{std::vector<uint8_t>(mPlan.begin(), mPlan.end() - 10)};
        EXPECT_EQ(load(payloadCut, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", readerName(v2),
            ": the stream ended after " + std::to_string(size - 10) + " of " + std::to_string(size) + " bytes"});

        Source headerCut{std::vector<uint8_t>(mPlan.begin(), mPlan.begin() + 30)};
        EXPECT_EQ(load(headerCut, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", "truncated inside its header (30 of 64 bytes)"});

        Source empty{};
        EXPECT_EQ(load(empty, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", "not a kiln plan"});
    }
}

TEST_F(StreamReaders, AFailingReaderIsNamed)
{
    for (bool const v2 : {false, true})
    {
        std::string const read = std::string(readerName(v2)) + "::read";
        Source failsAtOnce{{}, Source::After::kFAIL};
        EXPECT_EQ(load(failsAtOnce, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", read + " returned -1 when asked for 64 bytes (after 0 bytes)"});

        Source failsInThePayload{std::vector<uint8_t>(mPlan.begin(), mPlan.begin() + 100), Source::After::kFAIL};
        EXPECT_EQ(load(failsInThePayload, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", read + " returned -1", "(after 100 bytes)"});

        Source tooMany{{}, Source::After::kTOO_MANY};
        EXPECT_EQ(load(tooMany, v2), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", read + " returned 65 when asked for 64 bytes"});
    }
    Source throws{std::vector<uint8_t>(mPlan.begin(), mPlan.begin() + 64), Source::After::kTHROW};
    EXPECT_EQ(load(throws, false), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "IStreamReader::read threw after 64 bytes"});
}

TEST_F(StreamReaders, AHeaderAnnouncingAHugePayloadIsRefusedBeforeReadingIt)
{
    // A hostile writer's header: 4 GiB of payload announced, the header checksum fixed up.
    std::vector<uint8_t> header(mPlan.begin(), mPlan.begin() + kPlanHeaderSize);
    uint64_t const payload = uint64_t{4} << 30U;
    for (std::size_t i = 0; i < 8; ++i)
    {
        header[24 + i] = static_cast<uint8_t>(payload >> (8U * i));
    }
    uint64_t const crc = crc64(std::span<uint8_t const>(header.data(), 56));
    for (std::size_t i = 0; i < 8; ++i)
    {
        header[56 + i] = static_cast<uint8_t>(crc >> (8U * i));
    }
    Source endless{header, Source::After::kZEROS};
    EXPECT_EQ(load(endless, true), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "announces 4294967296 bytes of payload"});
    EXPECT_EQ(endless.delivered, static_cast<int64_t>(kPlanHeaderSize));
}

} // namespace
} // namespace kiln::test
