// SPDX-License-Identifier: Apache-2.0
#include "builder/timing_cache.h"

#include "core/host_memory.h"
#include "plan/container.h"

#include "NvInferVersion.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

namespace kiln
{

using nvinfer1::ErrorCode;
using nvinfer1::TimingCacheKey;
using nvinfer1::TimingCacheValue;

namespace
{

constexpr std::array<char, 8> kMagic{'K', 'I', 'L', 'N', 'T', 'I', 'M', 'E'};
constexpr std::size_t kHeaderSize = 24;
constexpr std::size_t kEntrySize = 28;
constexpr std::size_t kChecksumSize = 8;

// The hash: each lane folds the text, 8 bytes at a time (read little-endian, the last word zero-padded), through
// SplitMix64's finalizer, a bijection that mixes every input bit into every output bit. The lanes differ in seed and
// in the odd multiplier applied to each word, so they are independent mixes of the same text.
struct Lane
{
    uint64_t seed;
    uint64_t multiplier;
};

constexpr Lane kKeyHigh{0x6B696C6E2D6B6579ULL, 0x9E3779B97F4A7C15ULL}; // "kiln-key"
constexpr Lane kKeyLow{0x74696D696E672D31ULL, 0xC2B2AE3D27D4EB4FULL};  // "timing-1"
constexpr Lane kTactic{0x74616374696B696CULL, 0xD6E8FEB86659FD93ULL};  // "tactikil"

constexpr uint64_t mix64(uint64_t x) noexcept
{
    x ^= x >> 30U;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27U;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31U;
    return x;
}

uint64_t hashLane(std::string_view text, Lane lane) noexcept
{
    uint64_t state = mix64(lane.seed ^ (static_cast<uint64_t>(text.size()) * lane.multiplier));
    for (std::size_t offset = 0; offset < text.size(); offset += 8)
    {
        uint64_t word = 0;
        std::size_t const count = std::min<std::size_t>(8, text.size() - offset);
        for (std::size_t i = 0; i < count; ++i)
        {
            word |= static_cast<uint64_t>(static_cast<uint8_t>(text[offset + i])) << (8U * i);
        }
        state = mix64(state ^ (word * lane.multiplier));
    }
    return mix64(state ^ lane.seed);
}

//! Writes value little-endian at out[offset], advancing offset.
template <typename T>
void put(std::vector<uint8_t>& out, std::size_t& offset, T value) noexcept
{
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        out[offset++] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8U * i));
    }
}

//! Copies bytes to out[offset], advancing offset.
void putBytes(std::vector<uint8_t>& out, std::size_t& offset, void const* bytes, std::size_t size) noexcept
{
    if (size != 0)
    {
        std::memcpy(out.data() + offset, bytes, size);
    }
    offset += size;
}

template <typename T>
T get(uint8_t const* bytes) noexcept
{
    uint64_t value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
    {
        value |= static_cast<uint64_t>(bytes[i]) << (8U * i);
    }
    return static_cast<T>(value);
}

std::string hex(uint64_t value)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text = "0x";
    for (int shift = 60; shift >= 0; shift -= 4)
    {
        text += kDigits[(value >> static_cast<uint32_t>(shift)) & 0xFU];
    }
    return text;
}

//! Whether a time may be stored: finite and at least 0.
bool isStorableTime(float milliseconds) noexcept
{
    return std::isfinite(milliseconds) && milliseconds >= 0.F;
}

//! "0x" and the 32 hexadecimal digits of a key, held without allocating (for messages of noexcept methods).
class KeyText
{
public:
    explicit KeyText(TimingCacheKey const& key) noexcept
    {
        static constexpr char kDigits[] = "0123456789abcdef";
        mText[0] = '0';
        mText[1] = 'x';
        std::size_t at = 2;
        for (uint8_t byte : key.data)
        {
            mText[at++] = kDigits[byte >> 4U];
            mText[at++] = kDigits[byte & 0xFU];
        }
    }
    std::string_view view() const noexcept { return {mText.data(), mText.size()}; }

private:
    std::array<char, 2 + 2 * sizeof(TimingCacheKey::data)> mText{};
};

//! A float as messages show it ("0.25", "-1", "inf").
std::string number(float value)
{
    std::string text;
    message::append(text, static_cast<double>(value));
    return text;
}

Error readError(std::string message)
{
    return Error{ErrorCode::kINVALID_ARGUMENT, "cannot read the timing cache: " + std::move(message)};
}

//! identity made storable: cut to kMaxTimingCacheIdentity bytes, '?' for each byte that is not printable ASCII,
//! "?" when empty. Allocates nothing.
std::string storableIdentity(std::string identity) noexcept
{
    if (identity.size() > kMaxTimingCacheIdentity)
    {
        identity.resize(kMaxTimingCacheIdentity);
    }
    for (char& c : identity)
    {
        auto const byte = static_cast<uint8_t>(c);
        c = byte < 0x20U || byte > 0x7EU ? '?' : c;
    }
    if (identity.empty())
    {
        identity.push_back('?');
    }
    return identity;
}

std::string byteText(std::size_t offset)
{
    return "byte " + std::to_string(offset);
}

} // namespace

TimingCacheKey makeTimingCacheKey(std::string_view text) noexcept
{
    TimingCacheKey key{};
    uint64_t const high = hashLane(text, kKeyHigh);
    uint64_t const low = hashLane(text, kKeyLow);
    for (std::size_t i = 0; i < 8; ++i)
    {
        key.data[i] = static_cast<uint8_t>(high >> (8U * (7 - i)));
        key.data[8 + i] = static_cast<uint8_t>(low >> (8U * (7 - i)));
    }
    return key;
}

uint64_t hashTactic(std::string_view text) noexcept
{
    uint64_t const hash = hashLane(text, kTactic);
    return hash == TimingCacheValue::kINVALID_TACTIC_HASH ? hash - 1 : hash;
}

std::string toString(TimingCacheKey const& key)
{
    KeyText const text(key);
    return std::string(text.view());
}

std::string hostTimingCacheIdentity()
{
    return "kiln host " + std::to_string(KILN_VERSION_MAJOR) + "." + std::to_string(KILN_VERSION_MINOR) + "."
        + std::to_string(KILN_VERSION_PATCH);
}

TimingCache::TimingCache(std::string identity, bool editable, nvinfer1::IErrorRecorder* recorder) noexcept
    : mIdentity(storableIdentity(std::move(identity)))
    , mEditable(editable)
{
    mImpl = &mImplObject;
    mReporter.setRecorder(recorder);
}

std::unique_ptr<TimingCache> TimingCache::create(
    std::string identity, bool editable, nvinfer1::IErrorRecorder* recorder)
{
    return std::make_unique<TimingCache>(std::move(identity), editable, recorder);
}

TimingCache* TimingCache::find(nvinfer1::ITimingCache const* cache) noexcept
{
    return const_cast<TimingCache*>(dynamic_cast<TimingCache const*>(cache));
}

TimingCache::KeyBytes TimingCache::bytesOf(TimingCacheKey const& key) noexcept
{
    KeyBytes bytes{};
    std::memcpy(bytes.data(), key.data, bytes.size());
    return bytes;
}

TimingCacheKey TimingCache::keyOf(KeyBytes const& bytes) noexcept
{
    TimingCacheKey key{};
    std::memcpy(key.data, bytes.data(), bytes.size());
    return key;
}

std::vector<uint8_t> TimingCache::serializeToBytes() const
{
    std::lock_guard<std::mutex> lock(mMutex);
    std::size_t const checksumOffset = kHeaderSize + mIdentity.size() + mEntries.size() * kEntrySize;
    std::vector<uint8_t> out(checksumOffset + kChecksumSize);
    std::size_t offset = 0;
    putBytes(out, offset, kMagic.data(), kMagic.size());
    put<uint32_t>(out, offset, kTimingCacheFormatVersion);
    put<uint32_t>(out, offset, static_cast<uint32_t>(mIdentity.size()));
    put<uint64_t>(out, offset, mEntries.size());
    putBytes(out, offset, mIdentity.data(), mIdentity.size());
    for (auto const& [key, value] : mEntries)
    {
        putBytes(out, offset, key.data(), key.size());
        put<uint64_t>(out, offset, value.tacticHash);
        put<uint32_t>(out, offset, std::bit_cast<uint32_t>(value.timingMSec));
    }
    put<uint64_t>(out, offset, crc64(std::span(out.data(), checksumOffset)));
    return out;
}

Expected<std::unique_ptr<TimingCache>> TimingCache::deserialize(
    void const* blob, std::size_t size, bool editable, nvinfer1::IErrorRecorder* recorder)
{
    if (blob == nullptr && size != 0)
    {
        return readError("the blob is null but its size is " + std::to_string(size));
    }
    std::span<uint8_t const> const bytes(static_cast<uint8_t const*>(blob), size);
    std::size_t const magicSeen = std::min(size, kMagic.size());
    if (magicSeen != 0 && std::memcmp(bytes.data(), kMagic.data(), magicSeen) != 0)
    {
        return readError("this is not a kiln timing cache (it does not start with \"KILNTIME\"); it may be a "
                         "TensorRT timing cache or another file, which kiln cannot read");
    }
    if (size < kHeaderSize)
    {
        return readError(
            "it is truncated at " + byteText(size) + ", inside its " + std::to_string(kHeaderSize) + "-byte header");
    }
    uint32_t const version = get<uint32_t>(bytes.data() + 8);
    if (version != kTimingCacheFormatVersion)
    {
        return readError("it has format version " + std::to_string(version) + "; this kiln reads version "
            + std::to_string(kTimingCacheFormatVersion) + " only");
    }
    uint32_t const identitySize = get<uint32_t>(bytes.data() + 12);
    if (identitySize == 0 || identitySize > kMaxTimingCacheIdentity)
    {
        return readError("its identity is " + std::to_string(identitySize) + " bytes long (at byte 12); an identity "
            + "has 1 to " + std::to_string(kMaxTimingCacheIdentity));
    }
    std::size_t const entriesOffset = kHeaderSize + identitySize;
    if (size < entriesOffset)
    {
        return readError("it is truncated at " + byteText(size) + ", inside its identity (bytes 24 to "
            + std::to_string(entriesOffset - 1) + ")");
    }
    uint64_t const entryCount = get<uint64_t>(bytes.data() + 16);
    std::size_t const room = size - entriesOffset;
    if (room < kChecksumSize || entryCount > (room - kChecksumSize) / kEntrySize)
    {
        return readError("it is truncated at " + byteText(size) + ": its header announces " + std::to_string(entryCount)
            + " entries of " + std::to_string(kEntrySize) + " bytes from " + byteText(entriesOffset)
            + ", then an 8-byte checksum");
    }
    std::size_t const checksumOffset = entriesOffset + static_cast<std::size_t>(entryCount) * kEntrySize;
    if (size != checksumOffset + kChecksumSize)
    {
        std::size_t const extra = size - checksumOffset - kChecksumSize;
        return readError("it has " + std::to_string(extra) + (extra == 1 ? " byte" : " bytes") + " after its end at "
            + byteText(checksumOffset + kChecksumSize));
    }
    uint64_t const stored = get<uint64_t>(bytes.data() + checksumOffset);
    uint64_t const computed = crc64(bytes.first(checksumOffset));
    if (stored != computed)
    {
        return readError("it is corrupted: the checksum at " + byteText(checksumOffset) + " is " + hex(stored)
            + " but bytes 0 to " + std::to_string(checksumOffset - 1) + " give " + hex(computed));
    }

    std::string identity(reinterpret_cast<char const*>(bytes.data() + kHeaderSize), identitySize);
    for (std::size_t i = 0; i < identity.size(); ++i)
    {
        auto const c = static_cast<uint8_t>(identity[i]);
        if (c < 0x20U || c > 0x7EU)
        {
            return readError("its identity holds byte value " + std::to_string(c) + " at " + byteText(kHeaderSize + i)
                + "; an identity is printable ASCII");
        }
    }

    auto cache = create(std::move(identity), editable, recorder);
    KeyBytes previous{};
    for (std::size_t i = 0; i < entryCount; ++i)
    {
        std::size_t const offset = entriesOffset + i * kEntrySize;
        uint8_t const* entry = bytes.data() + offset;
        KeyBytes key{};
        std::memcpy(key.data(), entry, key.size());
        if (i > 0 && !(previous < key))
        {
            return readError("entry " + std::to_string(i) + " (at " + byteText(offset) + ") has key "
                + toString(keyOf(key)) + ", not above the key of entry " + std::to_string(i - 1)
                + "; keys are stored once each, in ascending order");
        }
        TimingCacheValue value{};
        value.tacticHash = get<uint64_t>(entry + 16);
        value.timingMSec = std::bit_cast<float>(get<uint32_t>(entry + 24));
        if (!isStorableTime(value.timingMSec))
        {
            return readError("entry " + std::to_string(i) + " (at " + byteText(offset) + ") has time "
                + number(value.timingMSec) + " ms; a time is finite and at least 0");
        }
        cache->mEntries.emplace_hint(cache->mEntries.end(), key, value);
        previous = key;
    }
    return cache;
}

std::optional<TimingCacheValue> TimingCache::lookup(TimingCacheKey const& key) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    auto const found = mEntries.find(bytesOf(key));
    if (found == mEntries.end())
    {
        return std::nullopt;
    }
    return found->second;
}

std::optional<Error> TimingCache::record(TimingCacheKey const& key, TimingCacheValue const& value)
{
    if (!isStorableTime(value.timingMSec))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "cannot record time " + number(value.timingMSec) + " ms for key " + toString(key)
                + " in the timing cache; a time is finite and at least 0"};
    }
    std::lock_guard<std::mutex> lock(mMutex);
    mEntries.insert_or_assign(bytesOf(key), value);
    return std::nullopt;
}

std::size_t TimingCache::size() const
{
    std::lock_guard<std::mutex> lock(mMutex);
    return mEntries.size();
}

nvinfer1::IHostMemory* TimingCache::Impl::serialize() const noexcept
{
    return mCache.mReporter.guard("ITimingCache::serialize", static_cast<nvinfer1::IHostMemory*>(nullptr),
        [&]() -> nvinfer1::IHostMemory* { return new HostMemory(mCache.serializeToBytes()); });
}

bool TimingCache::Impl::combine(nvinfer1::ITimingCache const& inputCache, bool ignoreMismatch) noexcept
{
    constexpr char const* kWhere = "ITimingCache::combine";
    TimingCache const* input = find(&inputCache);
    if (input == nullptr)
    {
        mCache.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere,
            ": the input cache was not made by kiln (IBuilderConfig::createTimingCache)");
        return false;
    }
    if (input == &mCache)
    {
        return true;
    }
    if (input->mIdentity != mCache.mIdentity)
    {
        if (!ignoreMismatch)
        {
            mCache.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": the input cache holds timings of ",
                quotedText(input->mIdentity), " but this cache those of ", quotedText(mCache.mIdentity),
                "; pass ignoreMismatch = true to combine them anyway");
            return false;
        }
        mCache.mReporter.warning(kWhere, ": combining timings of ", quotedText(input->mIdentity), " into a cache of ",
            quotedText(mCache.mIdentity), " (ignoreMismatch); they may not hold here");
    }
    return mCache.mReporter.guard(kWhere, false, [&] {
        std::scoped_lock lock(mCache.mMutex, input->mMutex);
        // As TensorRT's: entries this cache already holds are kept; only the keys it lacks are added.
        for (auto const& [key, value] : input->mEntries)
        {
            mCache.mEntries.try_emplace(key, value);
        }
        return true;
    });
}

bool TimingCache::Impl::reset() noexcept
{
    std::lock_guard<std::mutex> lock(mCache.mMutex);
    mCache.mEntries.clear();
    return true;
}

int64_t TimingCache::Impl::queryKeys(TimingCacheKey* keyBuffer, int64_t capacity) const noexcept
{
    std::lock_guard<std::mutex> lock(mCache.mMutex);
    if (keyBuffer == nullptr)
    {
        return static_cast<int64_t>(mCache.mEntries.size());
    }
    if (!mCache.mReporter.checkAtLeast("ITimingCache::queryKeys", "capacity", capacity, int64_t{0}))
    {
        return -1;
    }
    int64_t written = 0;
    for (auto it = mCache.mEntries.begin(); it != mCache.mEntries.end() && written < capacity; ++it, ++written)
    {
        keyBuffer[written] = keyOf(it->first);
    }
    return written;
}

TimingCacheValue TimingCache::Impl::query(TimingCacheKey const& key) const noexcept
{
    std::lock_guard<std::mutex> lock(mCache.mMutex);
    auto const found = mCache.mEntries.find(bytesOf(key));
    if (found == mCache.mEntries.end())
    {
        return TimingCacheValue{TimingCacheValue::kINVALID_TACTIC_HASH, std::numeric_limits<float>::quiet_NaN()};
    }
    return found->second;
}

bool TimingCache::Impl::update(TimingCacheKey const& key, TimingCacheValue const& value) noexcept
{
    constexpr char const* kWhere = "ITimingCache::update";
    if (!mCache.mEditable)
    {
        mCache.mReporter.error(ErrorCode::kINVALID_STATE, kWhere,
            ": this cache is not editable; create it with BuilderFlag::kEDITABLE_TIMING_CACHE set on the "
            "IBuilderConfig");
        return false;
    }
    bool const remove = std::isnan(value.timingMSec);
    if (!remove && !isStorableTime(value.timingMSec))
    {
        mCache.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": time ", static_cast<double>(value.timingMSec),
            " ms for key ", KeyText(key).view(),
            " is not a time; a time is finite and at least 0 (NaN removes the entry)");
        return false;
    }
    std::lock_guard<std::mutex> lock(mCache.mMutex);
    auto const found = mCache.mEntries.find(bytesOf(key));
    if (found == mCache.mEntries.end())
    {
        mCache.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": the cache holds no entry of key ",
            KeyText(key).view(), "; update only replaces or removes existing entries");
        return false;
    }
    if (remove)
    {
        mCache.mEntries.erase(found);
    }
    else
    {
        found->second = value;
    }
    return true;
}

} // namespace kiln
