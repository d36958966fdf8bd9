// SPDX-License-Identifier: Apache-2.0
// Writes timing caches with entries for the timing-cache fuzz target's seeds (a host build records none, and
// ITimingCache::update only replaces entries): one of the host backend's identity with six entries, one of another
// machine's identity with two.
//
//     kiln_fuzz_cache_seeds OUT_DIR      # OUT_DIR/host_six_entries.cache, OUT_DIR/other_device.cache
#include "builder/timing_cache.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace
{

bool writeCache(std::filesystem::path const& path, std::string identity, int entries)
{
    std::unique_ptr<kiln::TimingCache> cache = kiln::TimingCache::create(std::move(identity), true);
    for (int i = 0; i < entries; ++i)
    {
        std::string const text = "fuzz seed entry " + std::to_string(i);
        if (cache->record(kiln::makeTimingCacheKey(text),
                nvinfer1::TimingCacheValue{kiln::hashTactic(text), 0.125F * static_cast<float>(i + 1)}))
        {
            return false;
        }
    }
    std::vector<uint8_t> const bytes = cache->serializeToBytes();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<char const*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: kiln_fuzz_cache_seeds OUT_DIR\n");
        return 1;
    }
    std::filesystem::path const out = argv[1];
    std::filesystem::create_directories(out);
    bool const ok = writeCache(out / "host_six_entries.cache", kiln::hostTimingCacheIdentity(), 6)
        && writeCache(out / "other_device.cache", "kiln cuda sm_90 NVIDIA H200", 2);
    return ok ? 0 : 1;
}
