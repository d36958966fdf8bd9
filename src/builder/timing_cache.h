// SPDX-License-Identifier: Apache-2.0
// The timing cache: what a build measured, kept so that later builds (and other layers of the same build) reuse
// the choice instead of timing again. Each entry maps a 128-bit key (a hash of everything the timing depended on:
// the plugin or kernel, its attributes, its input and output shapes, types and formats) to the tactic chosen and
// its time. A cache carries an identity, the backend and kiln version that made its timings ("kiln host 0.1.0";
// a CUDA backend will add the device); timings of one identity say little about another, so combining caches or
// giving one to a config refuses a different identity unless the caller passes ignoreMismatch.
//
// TimingCache is kiln's ITimingCache. The application makes it with IBuilderConfig::createTimingCache() and owns
// it; the builder reads and records through the internal methods below. Every method locks the cache, so builds on
// several threads may share one.
//
//     TimingCache& cache = TimingCache::of(*settings.timingCache);
//     TimingCacheKey const key = makeTimingCacheKey(description);
//     if (auto const hit = cache.lookup(key)) { /* use hit->tacticHash */ }
//     else { /* time the tactics */ cache.record(key, {hashTactic(tacticName), milliseconds}); }
//
// The serialized form (all integers little-endian; written and read byte by byte, so the same on every machine):
//   0       char[8]  magic "KILNTIME"
//   8       u32      format version (kTimingCacheFormatVersion); any other version is refused
//   12      u32      identity length L, 1 to kMaxTimingCacheIdentity
//   16      u64      entry count N
//   24      char[L]  identity, printable ASCII
//   24+L    N entries of 28 bytes, keys strictly ascending: key u8[16], tacticHash u64, timingMSec f32 (IEEE bits,
//                    finite and at least 0)
//   end-8   u64      CRC-64/XZ of every byte before it
// Reading checks the whole blob before it trusts a byte of it, never reads outside it, and names what is wrong and
// where (bad magic, another version, truncated at byte N, a checksum mismatch, entry i out of order, ...).
#pragma once

#include "core/error.h"
#include "network/report.h"

#include "NvInfer.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln
{

//! The version of the serialized form this kiln reads and writes.
constexpr uint32_t kTimingCacheFormatVersion = 1;

//! The longest identity a cache may carry, in bytes.
constexpr std::size_t kMaxTimingCacheIdentity = 256;

//! A 128-bit key of text: the same text gives the same key in every process and on every machine. A well-mixed
//! hash (two independent 64-bit lanes of SplitMix64's finalizer), not a cryptographic one: texts made to collide
//! can be found, texts that differ by accident collide with a probability near 2^-128.
nvinfer1::TimingCacheKey makeTimingCacheKey(std::string_view text) noexcept;

//! A stable 64-bit hash of a tactic's description, for TimingCacheValue::tacticHash; never kINVALID_TACTIC_HASH.
//! Not cryptographic either.
uint64_t hashTactic(std::string_view text) noexcept;

//! "0x" and the 32 hexadecimal digits of key's bytes in order: how messages and tools show a key.
std::string toString(nvinfer1::TimingCacheKey const& key);

//! The identity of the caches the host backend's builds make: "kiln host " and kiln's version ("kiln host 0.1.0").
std::string hostTimingCacheIdentity();

class TimingCache final : public nvinfer1::ITimingCache
{
public:
    //! An empty cache of identity (made storable: cut to kMaxTimingCacheIdentity bytes, '?' for each byte that is
    //! not printable ASCII, "?" for an empty one). Only an editable cache accepts ITimingCache::update(). Errors of the
    //! API methods go to the logger and to recorder (the creating builder's; may be null), which the cache keeps
    //! referenced.
    TimingCache(std::string identity, bool editable, nvinfer1::IErrorRecorder* recorder) noexcept;
    ~TimingCache() noexcept override = default;

    static std::unique_ptr<TimingCache> create(
        std::string identity, bool editable, nvinfer1::IErrorRecorder* recorder = nullptr);

    //! The cache that serialize() wrote into [blob, blob + size), or what is wrong with the blob ("cannot read the
    //! timing cache: ..."). Never reads outside the blob.
    static Expected<std::unique_ptr<TimingCache>> deserialize(
        void const* blob, std::size_t size, bool editable, nvinfer1::IErrorRecorder* recorder = nullptr);

    //! The serialized form (see above); ITimingCache::serialize() returns these bytes.
    std::vector<uint8_t> serializeToBytes() const;

    //! The value recorded for key, or nullopt.
    std::optional<nvinfer1::TimingCacheValue> lookup(nvinfer1::TimingCacheKey const& key) const;

    //! Sets the value of key, adding the entry or replacing its value, even in a cache that is not editable (the
    //! builder records as it times). An error, and the cache unchanged, when value's time is not finite or below 0.
    std::optional<Error> record(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value);

    //! The number of entries.
    std::size_t size() const;

    //! What made the timings; fixed at creation.
    std::string const& identity() const noexcept { return mIdentity; }

    //! Whether ITimingCache::update() is allowed; fixed at creation.
    bool editable() const noexcept { return mEditable; }

    //! The TimingCache behind an ITimingCache kiln made (the builder records into the config's const cache, as
    //! TensorRT's builder does).
    static TimingCache& of(nvinfer1::ITimingCache const& cache) noexcept
    {
        return const_cast<TimingCache&>(static_cast<TimingCache const&>(cache));
    }

    //! The TimingCache behind cache, or nullptr when cache was not made by kiln.
    static TimingCache* find(nvinfer1::ITimingCache const* cache) noexcept;

private:
    using KeyBytes = std::array<uint8_t, sizeof(nvinfer1::TimingCacheKey::data)>;

    class Impl final : public nvinfer1::apiv::VTimingCache
    {
    public:
        explicit Impl(TimingCache& cache)
            : mCache(cache)
        {
        }
        nvinfer1::IHostMemory* serialize() const noexcept override;
        bool combine(nvinfer1::ITimingCache const& inputCache, bool ignoreMismatch) noexcept override;
        bool reset() noexcept override;
        int64_t queryKeys(nvinfer1::TimingCacheKey* keyBuffer, int64_t capacity) const noexcept override;
        nvinfer1::TimingCacheValue query(nvinfer1::TimingCacheKey const& key) const noexcept override;
        bool update(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value) noexcept override;

    private:
        TimingCache& mCache;
    };

    static KeyBytes bytesOf(nvinfer1::TimingCacheKey const& key) noexcept;
    static nvinfer1::TimingCacheKey keyOf(KeyBytes const& bytes) noexcept;

    Impl mImplObject{*this};
    Reporter mReporter;
    std::string const mIdentity;
    bool const mEditable;
    mutable std::mutex mMutex;
    std::map<KeyBytes, nvinfer1::TimingCacheValue> mEntries; //!< Guarded by mMutex; ordered, so bytes are stable.
};

} // namespace kiln
