// SPDX-License-Identifier: Apache-2.0
// The fuzz targets' own mutation driver (driver.h).
#include "driver.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>

namespace kiln::fuzz
{
namespace
{

std::vector<uint8_t> readFile(std::filesystem::path const& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

//! The files a seed argument names: itself, or a directory's regular files in name order.
std::vector<std::filesystem::path> filesOf(std::filesystem::path const& seed)
{
    std::error_code error;
    if (!std::filesystem::is_directory(seed, error))
    {
        return std::filesystem::exists(seed, error) ? std::vector<std::filesystem::path>{seed}
                                                    : std::vector<std::filesystem::path>{};
    }
    std::vector<std::filesystem::path> files;
    for (auto const& entry : std::filesystem::directory_iterator(seed, error))
    {
        if (entry.is_regular_file(error))
        {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<uint8_t> mutate(std::vector<uint8_t> bytes, std::mt19937_64& random)
{
    auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(random() % n); };
    int const edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e)
    {
        switch (random() % 6)
        {
        case 0: // flip a bit
            if (!bytes.empty())
            {
                bytes[pick(bytes.size())] ^= static_cast<uint8_t>(1U << (random() % 8));
            }
            break;
        case 1: // overwrite a byte with an interesting value
            if (!bytes.empty())
            {
                uint8_t const values[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x10, 0x12, 0x1a, 0x22};
                bytes[pick(bytes.size())] = values[pick(sizeof values)];
            }
            break;
        case 2: // truncate
            bytes.resize(pick(bytes.size() + 1));
            break;
        case 3: // insert random bytes
        {
            size_t const at = pick(bytes.size() + 1);
            size_t const n = 1 + pick(8);
            for (size_t i = 0; i < n; ++i)
            {
                bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(random()));
            }
            break;
        }
        case 4: // duplicate a range
            if (!bytes.empty() && bytes.size() < (1U << 20))
            {
                size_t const from = pick(bytes.size());
                size_t const n = 1 + pick(std::min<size_t>(64, bytes.size() - from));
                std::vector<uint8_t> chunk(bytes.begin() + static_cast<std::ptrdiff_t>(from),
                    bytes.begin() + static_cast<std::ptrdiff_t>(from + n));
                bytes.insert(
                    bytes.begin() + static_cast<std::ptrdiff_t>(pick(bytes.size() + 1)), chunk.begin(), chunk.end());
            }
            break;
        default: // erase a range
            if (!bytes.empty())
            {
                size_t const from = pick(bytes.size());
                size_t const n = 1 + pick(std::min<size_t>(16, bytes.size() - from));
                bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(from),
                    bytes.begin() + static_cast<std::ptrdiff_t>(from + n));
            }
            break;
        }
    }
    return bytes;
}

} // namespace

int runFuzzDriver(int argc, char** argv, char const* name, std::vector<std::filesystem::path> const& defaultSeeds)
{
    long iterations = 2000;
    uint64_t seed = 2026;
    bool replay = false;
    std::vector<std::filesystem::path> seeds;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        try
        {
            if (arg == "--iterations" && i + 1 < argc)
            {
                iterations = std::stol(argv[++i]);
                continue;
            }
            if (arg == "--seed" && i + 1 < argc)
            {
                seed = std::stoull(argv[++i]);
                continue;
            }
        }
        catch (std::exception const&)
        {
            std::fprintf(stderr, "%s: %s takes a number\n", name, arg.c_str());
            return 1;
        }
        if (arg == "--replay")
        {
            replay = true;
        }
        else
        {
            seeds.emplace_back(arg);
        }
    }
    std::vector<std::filesystem::path> files;
    for (auto const& s : seeds.empty() ? defaultSeeds : seeds)
    {
        std::vector<std::filesystem::path> const found = filesOf(s);
        files.insert(files.end(), found.begin(), found.end());
    }
    std::vector<std::vector<uint8_t>> corpus;
    for (auto const& path : files)
    {
        corpus.push_back(readFile(path));
        LLVMFuzzerTestOneInput(corpus.back().data(), corpus.back().size());
    }
    if (replay)
    {
        std::printf("%s: %zu inputs replayed without a crash\n", name, files.size());
        return 0;
    }
    if (corpus.empty())
    {
        std::fprintf(stderr, "%s: no seed could be read (give files or directories)\n", name);
        return 1;
    }
    corpus.emplace_back(); // the empty input
    std::mt19937_64 random(seed);
    for (long i = 0; i < iterations; ++i)
    {
        std::vector<uint8_t> input = mutate(corpus[static_cast<size_t>(random() % corpus.size())], random);
        LLVMFuzzerTestOneInput(input.data(), input.size());
    }
    std::printf("%s: %zu seeds and %ld mutations of them (seed %llu) ran without a crash\n", name, files.size(),
        iterations, static_cast<unsigned long long>(seed));
    return 0;
}

} // namespace kiln::fuzz
