// SPDX-License-Identifier: Apache-2.0
// The timing-cache fuzz target: any bytes go to IBuilderConfig::createTimingCache. A cache it refuses is nullptr with
// an error logged; a cache it accepts is serialized, read back (which must succeed, with the same keys), queried for
// every key, combined with an empty cache and with itself, and used by a small build on the host backend.
//
//     KILN_BACKEND=host kiln_timing_cache_fuzz [--iterations N] [--seed S] [--replay]
//     build/tests/fuzz/fuzz_seeds/timing_cache
#include "NvInfer.h"
#include "fuzz/driver.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace
{

[[noreturn]] void fail(char const* what)
{
    std::fprintf(stderr, "%s\n", what);
    std::abort();
}

std::vector<nvinfer1::TimingCacheKey> keysOf(nvinfer1::ITimingCache const& cache)
{
    int64_t const count = cache.queryKeys(nullptr, 0);
    if (count < 0 || count > (int64_t{1} << 24))
    {
        fail("queryKeys gave an impossible count");
    }
    std::vector<nvinfer1::TimingCacheKey> keys(static_cast<std::size_t>(count));
    if (count > 0 && cache.queryKeys(keys.data(), count) != count)
    {
        fail("queryKeys wrote another count than it announced");
    }
    return keys;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static kiln::fuzz::CountingLogger logger;
    static std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    long const errorsBefore = logger.errors;
    std::unique_ptr<nvinfer1::ITimingCache> cache{config->createTimingCache(data, size)};
    if (!cache)
    {
        if (logger.errors == errorsBefore)
        {
            fail("createTimingCache returned nullptr and logged no error");
        }
        return 0;
    }
    std::vector<nvinfer1::TimingCacheKey> const keys = keysOf(*cache);
    for (nvinfer1::TimingCacheKey const& key : keys)
    {
        (void)cache->query(key);
    }
    std::unique_ptr<nvinfer1::IHostMemory> bytes{cache->serialize()};
    if (!bytes)
    {
        fail("an accepted cache does not serialize");
    }
    std::unique_ptr<nvinfer1::ITimingCache> again{config->createTimingCache(bytes->data(), bytes->size())};
    if (!again || keysOf(*again).size() != keys.size())
    {
        fail("a serialized cache does not read back with the same keys");
    }
    std::unique_ptr<nvinfer1::ITimingCache> empty{config->createTimingCache(nullptr, 0)};
    if (!empty || !empty->combine(*cache, true))
    {
        fail("an empty cache does not take an accepted cache's entries");
    }
    cache->combine(*again, false);
    // A small build that reads and writes the cache.
    if (!config->setTimingCache(*cache, true))
    {
        return 0;
    }
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, nvinfer1::Dims2{2, 4});
    nvinfer1::ITensor* y = network->addActivation(*x, nvinfer1::ActivationType::kRELU)->getOutput(0);
    y->setName("y");
    network->markOutput(*y);
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan)
    {
        fail("a build with an accepted timing cache failed");
    }
    return 0;
}

#ifndef KILN_LIBFUZZER
int main(int argc, char** argv)
{
    return kiln::fuzz::runFuzzDriver(argc, argv, "kiln_timing_cache_fuzz", {});
}
#endif
