// SPDX-License-Identifier: Apache-2.0
// The timing cache: stable keys, ITimingCache through the public API (serialize and createTimingCache, combine,
// reset, queryKeys, query, update), the builder's lookup and record, the config's setTimingCache, and hostile blobs
// (every truncation, every single-bit flip, random corruption, and each check of the reader by name).
#include "builder/builder_config.h"
#include "builder/timing_cache.h"
#include "plan/container.h"
#include "support/api_test.h"

#include "NvInferVersion.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <thread>

namespace kiln::test
{
namespace
{

using nvinfer1::BuilderFlag;
using nvinfer1::ITimingCache;
using nvinfer1::TimingCacheKey;
using nvinfer1::TimingCacheValue;

constexpr char const* kOtherIdentity = "kiln cuda 0.1.0 NVIDIA H100 sm_90";

bool sameKey(TimingCacheKey const& a, TimingCacheKey const& b)
{
    return std::memcmp(a.data, b.data, sizeof(a.data)) == 0;
}

bool sameValue(TimingCacheValue const& a, TimingCacheValue const& b)
{
    return a.tacticHash == b.tacticHash && std::memcmp(&a.timingMSec, &b.timingMSec, sizeof(float)) == 0;
}

//! kiln::toString of a key (kiln::test::toString shows Dims).
std::string keyText(TimingCacheKey const& k)
{
    return ::kiln::toString(k);
}

TimingCacheKey key(std::string_view text)
{
    return makeTimingCacheKey(text);
}

//! The message of the error that reading bytes gives, or "<read>" when they read.
std::string readError(std::vector<uint8_t> const& bytes)
{
    auto const cache = TimingCache::deserialize(bytes.data(), bytes.size(), false);
    return cache ? std::string("<read>") : cache.error().message;
}

//! Rewrites the checksum of a blob after an edit, so that the checks after it are reached.
void fixChecksum(std::vector<uint8_t>& bytes)
{
    std::size_t const at = bytes.size() - 8;
    uint64_t const crc = crc64(std::span<uint8_t const>(bytes.data(), at));
    for (std::size_t i = 0; i < 8; ++i)
    {
        bytes[at + i] = static_cast<uint8_t>(crc >> (8U * i));
    }
}

template <typename T>
void write(std::vector<uint8_t>& bytes, std::size_t offset, T value)
{
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        bytes[offset + i] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8U * i));
    }
}

//! Three entries, serialized: identity "kiln host 0.1.0" (15 bytes), so the entries start at byte 39 and the
//! checksum is at byte 123.
std::vector<uint8_t> threeEntryBlob()
{
    auto cache = TimingCache::create(hostTimingCacheIdentity(), false);
    EXPECT_EQ(cache->record(key("a"), {1, 0.5F}), std::nullopt);
    EXPECT_EQ(cache->record(key("b"), {2, 1.25F}), std::nullopt);
    EXPECT_EQ(cache->record(key("c"), {TimingCacheValue::kINVALID_TACTIC_HASH, 0.F}), std::nullopt);
    return cache->serializeToBytes();
}

constexpr std::size_t kEntriesAt = 24 + 15;
constexpr std::size_t kChecksumAt = kEntriesAt + 3 * 28;

// ---------------------------------------------------------------------------------------------------------------
// Keys and hashes

TEST(TimingCacheKeys, AreStable)
{
    // Fixed values: a change here invalidates every cache users have saved; bump kTimingCacheFormatVersion with it.
    EXPECT_EQ(keyText(key("")), "0x5388afad491d04aa765289b44a44473d");
    EXPECT_EQ(keyText(key("kiln timing cache key")), "0x8f8fb734f2ebee7d11d1493b2e056445");
    EXPECT_EQ(hashTactic("kiln tactic"), 0x6f33b02ddc9fa72cULL);
}

TEST(TimingCacheKeys, DistinctTextsGiveDistinctKeys)
{
    std::set<std::string> keys;
    std::vector<std::string> texts{"", "a", std::string(1, '\0'), std::string(2, '\0'), "ab", "ba", "abcdefgh",
        "abcdefgh" + std::string(1, '\0'), "abcdefghi", "plugin Foo v1 [1, 3, 224, 224] kFLOAT kLINEAR"};
    for (int32_t i = 0; i < 20000; ++i)
    {
        texts.push_back("layer " + std::to_string(i));
    }
    for (auto const& text : texts)
    {
        keys.insert(keyText(key(text)));
    }
    EXPECT_EQ(keys.size(), texts.size());

    // Every single-bit change of a text changes the key and about half of its 128 bits.
    std::string const base = "plugin Foo v1 [1, 3, 224, 224] kFLOAT kLINEAR";
    TimingCacheKey const baseKey = key(base);
    for (std::size_t bit = 0; bit < base.size() * 8; ++bit)
    {
        std::string changed = base;
        changed[bit / 8] = static_cast<char>(changed[bit / 8] ^ (1 << (bit % 8)));
        TimingCacheKey const changedKey = key(changed);
        int32_t differing = 0;
        for (std::size_t i = 0; i < 16; ++i)
        {
            differing += std::popcount(static_cast<uint32_t>(baseKey.data[i] ^ changedKey.data[i]));
        }
        EXPECT_GT(differing, 32) << "bit " << bit;
        EXPECT_LT(differing, 96) << "bit " << bit;
    }
}

TEST(TimingCacheKeys, TacticHashesAreStableAndValid)
{
    EXPECT_EQ(hashTactic("kiln tactic"), hashTactic("kiln tactic"));
    EXPECT_NE(hashTactic("tactic 1"), hashTactic("tactic 2"));
    for (int32_t i = 0; i < 1000; ++i)
    {
        EXPECT_NE(hashTactic(std::to_string(i)), TimingCacheValue::kINVALID_TACTIC_HASH);
    }
}

TEST(TimingCacheKeys, KeyText)
{
    TimingCacheKey k{};
    for (uint8_t i = 0; i < 16; ++i)
    {
        k.data[i] = static_cast<uint8_t>(i * 17);
    }
    EXPECT_EQ(keyText(k), "0x00112233445566778899aabbccddeeff");
}

TEST(TimingCacheKeys, HostIdentity)
{
    EXPECT_EQ(hostTimingCacheIdentity(),
        "kiln host " + std::to_string(KILN_VERSION_MAJOR) + "." + std::to_string(KILN_VERSION_MINOR) + "."
            + std::to_string(KILN_VERSION_PATCH));
}

// ---------------------------------------------------------------------------------------------------------------
// The builder's side

TEST(TimingCacheInternal, LookupAndRecord)
{
    auto cache = TimingCache::create("kiln host test", false);
    EXPECT_EQ(cache->identity(), "kiln host test");
    EXPECT_FALSE(cache->editable());
    EXPECT_EQ(cache->size(), 0U);
    EXPECT_EQ(cache->lookup(key("x")), std::nullopt);

    EXPECT_EQ(cache->record(key("x"), {7, 2.F}), std::nullopt); // allowed though the cache is not editable
    ASSERT_TRUE(cache->lookup(key("x")).has_value());
    EXPECT_TRUE(sameValue(*cache->lookup(key("x")), {7, 2.F}));
    EXPECT_EQ(cache->record(key("x"), {8, 3.F}), std::nullopt); // overwrites, even with a slower time
    EXPECT_TRUE(sameValue(*cache->lookup(key("x")), {8, 3.F}));
    EXPECT_EQ(cache->size(), 1U);
    EXPECT_EQ(&TimingCache::of(static_cast<ITimingCache const&>(*cache)), cache.get());
    EXPECT_EQ(TimingCache::find(cache.get()), cache.get());
    EXPECT_EQ(TimingCache::find(nullptr), nullptr);
}

TEST(TimingCacheInternal, IdentitiesAreMadeStorable)
{
    EXPECT_EQ(TimingCache::create("", false)->identity(), "?");
    EXPECT_EQ(TimingCache::create("gpu\n\x01\xff", false)->identity(), "gpu???");
    auto const longest = TimingCache::create(std::string(300, 'x'), false);
    EXPECT_EQ(longest->identity(), std::string(kMaxTimingCacheIdentity, 'x'));
    std::vector<uint8_t> const bytes = longest->serializeToBytes();
    EXPECT_EQ(bytes.size(), 24U + kMaxTimingCacheIdentity + 8U);
    auto const read = TimingCache::deserialize(bytes.data(), bytes.size(), false);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read.value()->identity(), longest->identity());
}

TEST(TimingCacheInternal, RecordRefusesWhatIsNoTime)
{
    auto cache = TimingCache::create("kiln host test", true);
    for (float const bad : {std::numeric_limits<float>::quiet_NaN(), -1.F, std::numeric_limits<float>::infinity()})
    {
        auto const problem = cache->record(key("x"), {1, bad});
        ASSERT_TRUE(problem.has_value());
        EXPECT_EQ(problem->code, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
        EXPECT_NE(problem->message.find(
                      "ms for key " + keyText(key("x")) + " in the timing cache; a time is finite and at least 0"),
            std::string::npos)
            << problem->message;
    }
    EXPECT_NE(cache->record(key("x"), {1, -1.F})->message.find("cannot record time -1 ms"), std::string::npos);
    EXPECT_EQ(cache->size(), 0U);
}

TEST(TimingCacheInternal, ThreadsShareOneCache)
{
    auto cache = TimingCache::create(hostTimingCacheIdentity(), true);
    auto other = TimingCache::create(hostTimingCacheIdentity(), true);
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < 4; ++t)
    {
        threads.emplace_back([&, t] {
            for (int32_t i = 0; i < 200; ++i)
            {
                TimingCacheKey const k = key(std::to_string(t) + "/" + std::to_string(i));
                EXPECT_EQ(cache->record(k, {static_cast<uint64_t>(i), 1.F}), std::nullopt);
                EXPECT_TRUE(cache->lookup(k).has_value());
                EXPECT_EQ(other->record(k, {static_cast<uint64_t>(i), 0.5F}), std::nullopt);
                if (i % 50 == 0)
                {
                    EXPECT_TRUE(cache->combine(*other, false));
                    EXPECT_TRUE(other->combine(*cache, false)); // both orders at once: no deadlock
                    EXPECT_FALSE(cache->serializeToBytes().empty());
                    EXPECT_GE(cache->queryKeys(nullptr, 0), 1);
                }
            }
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(cache->size(), 800U);
}

// ---------------------------------------------------------------------------------------------------------------
// The public API

class TimingCacheTest : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mConfig.reset(mBuilder->createBuilderConfig());
        ASSERT_NE(mConfig, nullptr);
    }
    void TearDown() override
    {
        mConfig.reset();
        ApiTest::TearDown();
    }

    //! A new empty cache from the config (editable when the config says so).
    std::unique_ptr<ITimingCache> makeCache()
    {
        std::unique_ptr<ITimingCache> cache{mConfig->createTimingCache(nullptr, 0)};
        EXPECT_NE(cache, nullptr);
        return cache;
    }

    //! The cache that createTimingCache makes of bytes.
    std::unique_ptr<ITimingCache> load(std::vector<uint8_t> const& bytes)
    {
        return std::unique_ptr<ITimingCache>{mConfig->createTimingCache(bytes.data(), bytes.size())};
    }

    static void add(ITimingCache& cache, std::string_view text, TimingCacheValue value)
    {
        EXPECT_EQ(TimingCache::of(cache).record(key(text), value), std::nullopt);
    }

    static std::vector<uint8_t> bytesOf(ITimingCache const& cache)
    {
        std::unique_ptr<nvinfer1::IHostMemory> memory{cache.serialize()};
        EXPECT_NE(memory, nullptr);
        EXPECT_EQ(memory->type(), nvinfer1::DataType::kUINT8);
        auto const* data = static_cast<uint8_t const*>(memory->data());
        return std::vector<uint8_t>(data, data + memory->size());
    }

    static std::vector<TimingCacheKey> keysOf(ITimingCache const& cache)
    {
        std::vector<TimingCacheKey> keys(static_cast<std::size_t>(cache.queryKeys(nullptr, 0)));
        EXPECT_EQ(cache.queryKeys(keys.data(), static_cast<int64_t>(keys.size())), static_cast<int64_t>(keys.size()));
        return keys;
    }

    //! Whether a warning since the last check contains text.
    bool hasWarning(std::string const& text) const
    {
        auto const warnings = mLogger.messages(nvinfer1::ILogger::Severity::kWARNING);
        return std::any_of(warnings.begin(), warnings.end(),
            [&](std::string const& warning) { return warning.find(text) != std::string::npos; });
    }

    std::unique_ptr<nvinfer1::IBuilderConfig> mConfig;
};

TEST_F(TimingCacheTest, EmptyCache)
{
    auto cache = makeCache();
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 0);
    EXPECT_EQ(TimingCache::of(*cache).identity(), hostTimingCacheIdentity());
    EXPECT_FALSE(TimingCache::of(*cache).editable());
    auto const bytes = bytesOf(*cache);
    EXPECT_EQ(bytes.size(), 24U + hostTimingCacheIdentity().size() + 8U);
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "KILNTIME");
    auto const loaded = load(bytes);
    ASSERT_NE(loaded, nullptr);
    EXPECT_EQ(loaded->queryKeys(nullptr, 0), 0);
    expectNoError();
}

TEST_F(TimingCacheTest, SerializeRoundTripKeepsEveryEntry)
{
    auto cache = makeCache();
    std::mt19937 random(7);
    std::uniform_real_distribution<float> time(0.F, 100.F);
    for (int32_t i = 0; i < 500; ++i)
    {
        add(*cache, "entry " + std::to_string(i), {random() * uint64_t{0x100000001}, time(random)});
    }
    add(*cache, "no tactic", {TimingCacheValue::kINVALID_TACTIC_HASH, 0.F});
    auto const bytes = bytesOf(*cache);
    EXPECT_EQ(bytes.size(), 24U + hostTimingCacheIdentity().size() + 501U * 28U + 8U);

    auto const loaded = load(bytes);
    ASSERT_NE(loaded, nullptr);
    EXPECT_EQ(TimingCache::of(*loaded).identity(), hostTimingCacheIdentity());
    auto const keys = keysOf(*cache);
    auto const loadedKeys = keysOf(*loaded);
    ASSERT_EQ(keys.size(), 501U);
    ASSERT_EQ(loadedKeys.size(), keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
    {
        EXPECT_TRUE(sameKey(keys[i], loadedKeys[i]));
        EXPECT_TRUE(sameValue(cache->query(keys[i]), loaded->query(keys[i])));
    }
    EXPECT_EQ(bytesOf(*loaded), bytes); // the same entries give the same bytes
    expectNoError();
}

TEST_F(TimingCacheTest, ForeignIdentityRoundTrips)
{
    auto cache = TimingCache::create(kOtherIdentity, false);
    EXPECT_EQ(cache->record(key("k"), {3, 1.F}), std::nullopt);
    auto const loaded = load(cache->serializeToBytes());
    ASSERT_NE(loaded, nullptr); // reading accepts any identity; using the cache is what checks it
    EXPECT_EQ(TimingCache::of(*loaded).identity(), kOtherIdentity);
    expectNoError();
}

TEST_F(TimingCacheTest, CombineDisjoint)
{
    auto a = makeCache();
    auto b = makeCache();
    add(*a, "a", {1, 1.F});
    add(*b, "b", {2, 2.F});
    EXPECT_TRUE(a->combine(*b, false));
    EXPECT_EQ(a->queryKeys(nullptr, 0), 2);
    EXPECT_TRUE(sameValue(a->query(key("a")), {1, 1.F}));
    EXPECT_TRUE(sameValue(a->query(key("b")), {2, 2.F}));
    EXPECT_EQ(b->queryKeys(nullptr, 0), 1); // the input is unchanged
    EXPECT_TRUE(a->combine(*a, false));     // with itself: nothing changes
    EXPECT_EQ(a->queryKeys(nullptr, 0), 2);
    expectNoError();
}

TEST_F(TimingCacheTest, CombineOverlappingKeepsTheEntriesAlreadyThere)
{
    auto a = makeCache();
    auto b = makeCache();
    add(*a, "shared fast here", {1, 1.F});
    add(*b, "shared fast here", {2, 2.F});
    add(*a, "shared fast there", {3, 5.F});
    add(*b, "shared fast there", {4, 4.F});
    add(*a, "tie", {5, 1.F});
    add(*b, "tie", {6, 1.F});
    EXPECT_TRUE(a->combine(*b, false));
    EXPECT_EQ(a->queryKeys(nullptr, 0), 3);
    EXPECT_TRUE(sameValue(a->query(key("shared fast here")), {1, 1.F}));
    EXPECT_TRUE(sameValue(a->query(key("shared fast there")), {3, 5.F})); // kept though b's is faster
    EXPECT_TRUE(sameValue(a->query(key("tie")), {5, 1.F}));
    expectNoError();
}

TEST_F(TimingCacheTest, CombineRefusesAnotherIdentityUnlessIgnoreMismatch)
{
    auto a = makeCache();
    auto other = TimingCache::create(kOtherIdentity, false);
    EXPECT_EQ(other->record(key("gpu"), {9, 0.1F}), std::nullopt);
    EXPECT_FALSE(a->combine(*other, false));
    expectError({"ITimingCache::combine: the input cache holds timings of \"kiln cuda 0.1.0 NVIDIA H100 sm_90\" but "
                 "this cache those of \"kiln host ",
        "\"; pass ignoreMismatch = true to combine them anyway"});
    EXPECT_EQ(a->queryKeys(nullptr, 0), 0);

    EXPECT_TRUE(a->combine(*other, true));
    EXPECT_TRUE(hasWarning("ITimingCache::combine: combining timings of \"kiln cuda 0.1.0 NVIDIA H100 sm_90\" into a "
                           "cache of \"kiln host "))
        << mLogger.all();
    EXPECT_TRUE(hasWarning("(ignoreMismatch); they may not hold here")) << mLogger.all();
    expectNoError();
    EXPECT_TRUE(sameValue(a->query(key("gpu")), {9, 0.1F}));
    EXPECT_EQ(TimingCache::of(*a).identity(), hostTimingCacheIdentity()); // the identity stays this cache's
}

//! An ITimingCache that kiln did not make.
class ForeignCache final : public ITimingCache
{
public:
    ForeignCache() { mImpl = &mImplObject; }

private:
    class Impl final : public nvinfer1::apiv::VTimingCache
    {
    public:
        nvinfer1::IHostMemory* serialize() const noexcept override { return nullptr; }
        bool combine(ITimingCache const& /*inputCache*/, bool /*ignoreMismatch*/) noexcept override { return false; }
        bool reset() noexcept override { return false; }
        int64_t queryKeys(TimingCacheKey* /*keyBuffer*/, int64_t /*capacity*/) const noexcept override { return 0; }
        TimingCacheValue query(TimingCacheKey const& /*key*/) const noexcept override { return {}; }
        bool update(TimingCacheKey const& /*key*/, TimingCacheValue const& /*value*/) noexcept override
        {
            return false;
        }
    };
    Impl mImplObject;
};

TEST_F(TimingCacheTest, ForeignCachesAreRefused)
{
    auto a = makeCache();
    ForeignCache foreign;
    EXPECT_FALSE(a->combine(foreign, false));
    expectError({"ITimingCache::combine: the input cache was not made by kiln (IBuilderConfig::createTimingCache)"});
    EXPECT_FALSE(mConfig->setTimingCache(foreign, true));
    expectError({"IBuilderConfig::setTimingCache: the cache was not made by kiln (IBuilderConfig::createTimingCache)"});
    EXPECT_EQ(mConfig->getTimingCache(), nullptr);
}

TEST_F(TimingCacheTest, Reset)
{
    auto cache = makeCache();
    add(*cache, "a", {1, 1.F});
    add(*cache, "b", {2, 2.F});
    EXPECT_TRUE(cache->reset());
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 0);
    EXPECT_EQ(cache->query(key("a")).tacticHash, TimingCacheValue::kINVALID_TACTIC_HASH);
    EXPECT_TRUE(cache->reset()); // an empty cache too
    expectNoError();
}

TEST_F(TimingCacheTest, QueryKeys)
{
    auto cache = makeCache();
    for (char const* text : {"one", "two", "three", "four"})
    {
        add(*cache, text, {1, 1.F});
    }
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 4);
    EXPECT_EQ(cache->queryKeys(nullptr, -5), 4); // without a buffer the capacity is ignored

    TimingCacheKey const sentinel{
        {0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE}};
    std::vector<TimingCacheKey> buffer(6, sentinel);
    EXPECT_EQ(cache->queryKeys(buffer.data(), 0), 0);
    EXPECT_TRUE(sameKey(buffer[0], sentinel));

    EXPECT_EQ(cache->queryKeys(buffer.data(), 2), 2); // short: the first keys, in ascending byte order
    EXPECT_TRUE(sameKey(buffer[2], sentinel));
    EXPECT_LT(std::memcmp(buffer[0].data, buffer[1].data, 16), 0);

    std::fill(buffer.begin(), buffer.end(), sentinel);
    EXPECT_EQ(cache->queryKeys(buffer.data(), 6), 4); // long: every key, nothing past them
    EXPECT_TRUE(sameKey(buffer[4], sentinel));
    std::set<std::string> written;
    for (std::size_t i = 0; i < 4; ++i)
    {
        written.insert(keyText(buffer[i]));
    }
    EXPECT_EQ(written,
        (std::set<std::string>{keyText(key("one")), keyText(key("two")), keyText(key("three")), keyText(key("four"))}));
    expectNoError();

    EXPECT_EQ(cache->queryKeys(buffer.data(), -1), -1);
    expectError({"ITimingCache::queryKeys: capacity is -1; it must be at least 0"});
}

TEST_F(TimingCacheTest, QueryOfAMissingKeyIsInvalid)
{
    auto cache = makeCache();
    add(*cache, "present", {4, 0.25F});
    EXPECT_TRUE(sameValue(cache->query(key("present")), {4, 0.25F}));
    TimingCacheValue const missing = cache->query(key("absent"));
    EXPECT_EQ(missing.tacticHash, TimingCacheValue::kINVALID_TACTIC_HASH);
    EXPECT_TRUE(std::isnan(missing.timingMSec));
    expectNoError();
}

TEST_F(TimingCacheTest, UpdateNeedsAnEditableCache)
{
    auto cache = makeCache();
    add(*cache, "a", {1, 1.F});
    EXPECT_FALSE(cache->update(key("a"), {2, 0.5F}));
    expectError({"ITimingCache::update: this cache is not editable; create it with "
                 "BuilderFlag::kEDITABLE_TIMING_CACHE set on the IBuilderConfig"});
    EXPECT_TRUE(sameValue(cache->query(key("a")), {1, 1.F}));
}

TEST_F(TimingCacheTest, UpdateReplacesAndNaNRemoves)
{
    mConfig->setFlag(BuilderFlag::kEDITABLE_TIMING_CACHE);
    auto cache = makeCache();
    mConfig->clearFlag(BuilderFlag::kEDITABLE_TIMING_CACHE); // editability is fixed when the cache is made
    EXPECT_TRUE(TimingCache::of(*cache).editable());
    add(*cache, "a", {1, 1.F});
    add(*cache, "b", {2, 2.F});

    EXPECT_TRUE(cache->update(key("a"), {7, 3.F})); // any value, slower too
    EXPECT_TRUE(sameValue(cache->query(key("a")), {7, 3.F}));
    EXPECT_TRUE(cache->update(key("b"), {5, std::numeric_limits<float>::quiet_NaN()}));
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 1);
    EXPECT_EQ(cache->query(key("b")).tacticHash, TimingCacheValue::kINVALID_TACTIC_HASH);
    expectNoError();

    EXPECT_FALSE(cache->update(key("b"), {5, 1.F})); // removed: update adds nothing
    expectError({"ITimingCache::update: the cache holds no entry of key " + keyText(key("b"))
        + "; update only replaces or removes existing entries"});
    EXPECT_FALSE(cache->update(key("a"), {5, -2.F}));
    expectError({"ITimingCache::update: time -2 ms for key " + keyText(key("a"))
        + " is not a time; a time is finite and at least 0 (NaN removes the entry)"});
    EXPECT_FALSE(cache->update(key("a"), {5, std::numeric_limits<float>::infinity()}));
    expectError({"ITimingCache::update: time inf ms"});
    EXPECT_TRUE(sameValue(cache->query(key("a")), {7, 3.F}));

    // A cache read from bytes takes the config's flag too.
    mConfig->setFlag(BuilderFlag::kEDITABLE_TIMING_CACHE);
    auto const loaded = load(bytesOf(*cache));
    ASSERT_NE(loaded, nullptr);
    EXPECT_TRUE(loaded->update(key("a"), {8, 1.F}));
    mConfig->clearFlag(BuilderFlag::kEDITABLE_TIMING_CACHE);
    auto const readOnly = load(bytesOf(*cache));
    ASSERT_NE(readOnly, nullptr);
    EXPECT_FALSE(readOnly->update(key("a"), {8, 1.F}));
    expectError({"ITimingCache::update: this cache is not editable"});
}

TEST_F(TimingCacheTest, SetTimingCache)
{
    auto cache = makeCache();
    EXPECT_TRUE(mConfig->setTimingCache(*cache, false));
    EXPECT_EQ(mConfig->getTimingCache(), cache.get());
    EXPECT_FALSE(BuilderConfig::of(*mConfig).settings().ignoreTimingCacheMismatch);
    expectNoError();

    auto other = TimingCache::create(kOtherIdentity, false);
    EXPECT_FALSE(mConfig->setTimingCache(*other, false));
    expectError({"IBuilderConfig::setTimingCache: the cache holds timings of \"kiln cuda 0.1.0 NVIDIA H100 sm_90\" "
                 "but this build's are those of \"kiln host ",
        "\"; pass ignoreMismatch = true to use it anyway"});
    EXPECT_EQ(mConfig->getTimingCache(), cache.get()); // unchanged

    EXPECT_TRUE(mConfig->setTimingCache(*other, true));
    EXPECT_TRUE(hasWarning("IBuilderConfig::setTimingCache: the cache holds timings of \"kiln cuda 0.1.0 NVIDIA H100 "
                           "sm_90\" but this build's are those of \"kiln host "))
        << mLogger.all();
    EXPECT_TRUE(hasWarning("(ignoreMismatch); they may not hold here")) << mLogger.all();
    expectNoError();
    EXPECT_EQ(mConfig->getTimingCache(), other.get());
    EXPECT_TRUE(BuilderConfig::of(*mConfig).settings().ignoreTimingCacheMismatch);
    mConfig->reset();
    EXPECT_EQ(mConfig->getTimingCache(), nullptr);
}

TEST_F(TimingCacheTest, ErrorsReachTheBuildersRecorderAfterTheBuilderIsGone)
{
    TestErrorRecorder recorder;
    mBuilder->setErrorRecorder(&recorder);
    auto cache = makeCache();
    int32_t const held = recorder.refCount();
    mConfig.reset();
    delete mNetwork;
    mNetwork = nullptr;
    delete mBuilder;
    mBuilder = nullptr;
    EXPECT_EQ(recorder.refCount(), 1); // the cache's reference
    EXPECT_GE(held, 2);

    EXPECT_FALSE(cache->update(key("a"), {1, 1.F}));
    ASSERT_EQ(recorder.getNbErrors(), 1);
    EXPECT_EQ(recorder.getErrorCode(0), nvinfer1::ErrorCode::kINVALID_STATE);
    EXPECT_NE(std::string(recorder.getErrorDesc(0)).find("ITimingCache::update: this cache is not editable"),
        std::string::npos);
    mLogger.clear();
    cache.reset();
    EXPECT_EQ(recorder.refCount(), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Hostile blobs

TEST_F(TimingCacheTest, CreateTimingCacheReportsWhatIsWrong)
{
    std::vector<uint8_t> const blob = threeEntryBlob();
    EXPECT_EQ(load(std::vector<uint8_t>(blob.begin(), blob.begin() + 30)), nullptr);
    expectError({"IBuilderConfig::createTimingCache: cannot read the timing cache: it is truncated at byte 30, inside "
                 "its identity (bytes 24 to 38)"});
    EXPECT_EQ(mConfig->createTimingCache(nullptr, 8), nullptr);
    expectError(
        {"IBuilderConfig::createTimingCache: cannot read the timing cache: the blob is null but its size is 8"});
    ASSERT_NE(load(blob), nullptr);
    expectNoError();
}

TEST(TimingCacheBlob, EveryTruncationIsRefused)
{
    std::vector<uint8_t> const blob = threeEntryBlob();
    ASSERT_EQ(blob.size(), kChecksumAt + 8);
    ASSERT_EQ(readError(blob), "<read>");
    for (std::size_t size = 0; size < blob.size(); ++size)
    {
        std::vector<uint8_t> const cut(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(size));
        std::string const message = readError(cut);
        EXPECT_EQ(message.rfind("cannot read the timing cache: it is truncated at byte " + std::to_string(size), 0), 0U)
            << message;
    }
    EXPECT_EQ(readError(std::vector<uint8_t>(blob.begin(), blob.begin() + 10)),
        "cannot read the timing cache: it is truncated at byte 10, inside its 24-byte header");
    EXPECT_EQ(readError(std::vector<uint8_t>(blob.begin(), blob.begin() + 100)),
        "cannot read the timing cache: it is truncated at byte 100: its header announces 3 entries of 28 bytes from "
        "byte 39, then an 8-byte checksum");
}

TEST(TimingCacheBlob, EverySingleBitFlipIsRefused)
{
    std::vector<uint8_t> const blob = threeEntryBlob();
    for (std::size_t bit = 0; bit < blob.size() * 8; ++bit)
    {
        std::vector<uint8_t> flipped = blob;
        flipped[bit / 8] = static_cast<uint8_t>(flipped[bit / 8] ^ (1U << (bit % 8)));
        EXPECT_EQ(readError(flipped).rfind("cannot read the timing cache: ", 0), 0U) << "bit " << bit;
    }
}

TEST(TimingCacheBlob, RandomCorruptionIsRefused)
{
    std::vector<uint8_t> const blob = threeEntryBlob();
    std::mt19937 random(2024);
    for (int32_t trial = 0; trial < 2000; ++trial)
    {
        std::vector<uint8_t> bytes = blob;
        int32_t const changes = 1 + static_cast<int32_t>(random() % 8);
        for (int32_t c = 0; c < changes; ++c)
        {
            bytes[random() % bytes.size()] = static_cast<uint8_t>(random());
        }
        if (bytes == blob)
        {
            continue;
        }
        if (trial % 2 == 0)
        {
            fixChecksum(bytes); // half the trials get past the checksum to the checks behind it
        }
        std::string const message = readError(bytes);
        if (message != "<read>")
        {
            EXPECT_EQ(message.rfind("cannot read the timing cache: ", 0), 0U) << message;
        }
    }
    // Random garbage of every small size.
    for (std::size_t size = 0; size < 256; ++size)
    {
        std::vector<uint8_t> bytes(size);
        for (auto& byte : bytes)
        {
            byte = static_cast<uint8_t>(random());
        }
        if (size >= 8)
        {
            std::memcpy(bytes.data(), "KILNTIME", 8);
        }
        EXPECT_NE(readError(bytes), "<read>");
    }
}

TEST(TimingCacheBlob, WrongMagic)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    std::memcpy(blob.data(), "KILNPLAN", 8);
    EXPECT_EQ(readError(blob),
        "cannot read the timing cache: this is not a kiln timing cache (it does not start with \"KILNTIME\"); it may "
        "be a TensorRT timing cache or another file, which kiln cannot read");
    EXPECT_EQ(readError(std::vector<uint8_t>{'K', 'X'}).find("this is not a kiln timing cache"), 30U);
}

TEST(TimingCacheBlob, WrongVersion)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    write<uint32_t>(blob, 8, 2);
    EXPECT_EQ(readError(blob), "cannot read the timing cache: it has format version 2; this kiln reads version 1 only");
}

TEST(TimingCacheBlob, IdentityLength)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    write<uint32_t>(blob, 12, 0);
    EXPECT_EQ(readError(blob),
        "cannot read the timing cache: its identity is 0 bytes long (at byte 12); an identity has 1 to 256");
    write<uint32_t>(blob, 12, 257);
    EXPECT_EQ(readError(blob),
        "cannot read the timing cache: its identity is 257 bytes long (at byte 12); an identity has 1 to 256");
    write<uint32_t>(blob, 12, 200);
    EXPECT_EQ(readError(blob),
        "cannot read the timing cache: it is truncated at byte 131, inside its identity (bytes 24 to 223)");
}

TEST(TimingCacheBlob, EntryCountBeyondTheBlob)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    for (uint64_t const count : {uint64_t{4}, uint64_t{1} << 62U, ~uint64_t{0}})
    {
        write<uint64_t>(blob, 16, count);
        EXPECT_EQ(readError(blob),
            "cannot read the timing cache: it is truncated at byte 131: its header announces " + std::to_string(count)
                + " entries of 28 bytes from byte 39, then an 8-byte checksum");
    }
}

TEST(TimingCacheBlob, TrailingBytes)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    write<uint64_t>(blob, 16, 2);
    EXPECT_EQ(readError(blob), "cannot read the timing cache: it has 28 bytes after its end at byte 103");
    blob = threeEntryBlob();
    blob.push_back(0);
    EXPECT_EQ(readError(blob), "cannot read the timing cache: it has 1 byte after its end at byte 131");
}

TEST(TimingCacheBlob, Checksum)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    blob[kEntriesAt + 16] ^= 1U; // a tactic hash
    std::string const message = readError(blob);
    EXPECT_EQ(message.rfind("cannot read the timing cache: it is corrupted: the checksum at byte 123 is 0x", 0), 0U)
        << message;
    EXPECT_NE(message.find(" but bytes 0 to 122 give 0x"), std::string::npos) << message;
}

TEST(TimingCacheBlob, IdentityBytes)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    blob[24 + 4] = 0x0A;
    fixChecksum(blob);
    EXPECT_EQ(readError(blob),
        "cannot read the timing cache: its identity holds byte value 10 at byte 28; an identity is printable ASCII");
}

TEST(TimingCacheBlob, KeysOutOfOrderOrRepeated)
{
    std::vector<uint8_t> blob = threeEntryBlob();
    std::vector<uint8_t> swapped = blob;
    std::copy_n(blob.begin() + kEntriesAt, 28, swapped.begin() + kEntriesAt + 28);
    std::copy_n(blob.begin() + kEntriesAt + 28, 28, swapped.begin() + kEntriesAt);
    fixChecksum(swapped);
    TimingCacheKey firstKey{};
    std::memcpy(firstKey.data, blob.data() + kEntriesAt, 16);
    EXPECT_EQ(readError(swapped),
        "cannot read the timing cache: entry 1 (at byte 67) has key " + keyText(firstKey)
            + ", not above the key of entry 0; keys are stored once each, in ascending order");

    std::vector<uint8_t> repeated = blob;
    std::copy_n(blob.begin() + kEntriesAt + 28, 28, repeated.begin() + kEntriesAt + 56);
    fixChecksum(repeated);
    EXPECT_NE(readError(repeated).find("entry 2 (at byte 95) has key "), std::string::npos);
}

TEST(TimingCacheBlob, TimesThatAreNoTimes)
{
    std::vector<uint8_t> const blob = threeEntryBlob();
    struct Case
    {
        float time;
        char const* text;
    };
    for (Case const c : {Case{std::numeric_limits<float>::quiet_NaN(), "nan"}, Case{-0.5F, "-0.5"},
             Case{std::numeric_limits<float>::infinity(), "inf"}})
    {
        std::vector<uint8_t> bytes = blob;
        write<uint32_t>(bytes, kEntriesAt + 28 + 24, std::bit_cast<uint32_t>(c.time));
        fixChecksum(bytes);
        EXPECT_EQ(readError(bytes),
            std::string("cannot read the timing cache: entry 1 (at byte 67) has time ") + c.text
                + " ms; a time is finite and at least 0");
    }
}

TEST(TimingCacheBlob, NullBlob)
{
    auto const empty = TimingCache::deserialize(nullptr, 0, false);
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(
        empty.error().message, "cannot read the timing cache: it is truncated at byte 0, inside its 24-byte header");

    auto const cache = TimingCache::deserialize(nullptr, 8, false);
    ASSERT_FALSE(cache.ok());
    EXPECT_EQ(cache.error().code, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_EQ(cache.error().message, "cannot read the timing cache: the blob is null but its size is 8");
}

} // namespace
} // namespace kiln::test
