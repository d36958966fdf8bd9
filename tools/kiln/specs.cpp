// SPDX-License-Identifier: Apache-2.0
#include "specs.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace kiln_tool
{
namespace
{

using nvinfer1::MemoryPoolType;

struct PoolName
{
    std::string_view name;
    MemoryPoolType pool;
};

//! trtexec's pool names.
constexpr std::array<PoolName, 5> kPools{{
    {"workspace", MemoryPoolType::kWORKSPACE},
    {"dlaSRAM", MemoryPoolType::kDLA_MANAGED_SRAM},
    {"dlaLocalDRAM", MemoryPoolType::kDLA_LOCAL_DRAM},
    {"dlaGlobalDRAM", MemoryPoolType::kDLA_GLOBAL_DRAM},
    {"tacticSharedMem", MemoryPoolType::kTACTIC_SHARED_MEMORY},
}};

//! text split at the commas outside single quotes; empty entries are an error.
std::vector<std::string_view> splitEntries(std::string_view text)
{
    std::vector<std::string_view> entries;
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i)
    {
        if (i < text.size() && text[i] == '\'')
        {
            quoted = !quoted;
        }
        else if (i == text.size() || (text[i] == ',' && !quoted))
        {
            std::string_view const entry = text.substr(start, i - start);
            if (entry.empty())
            {
                throw SpecError("'" + std::string(text) + "' has an empty entry");
            }
            entries.push_back(entry);
            start = i + 1;
        }
    }
    if (quoted)
    {
        throw SpecError("'" + std::string(text) + "' has an unclosed quote");
    }
    return entries;
}

//! entry split into a name and a value at a colon: after the closing quote of a quoted name, else at the last
//! (lastColon) or first colon.
std::pair<std::string, std::string_view> splitName(std::string_view entry, bool lastColon, std::string_view syntax)
{
    std::size_t colon = std::string_view::npos;
    std::string name;
    if (entry.front() == '\'')
    {
        std::size_t const close = entry.find('\'', 1);
        colon = close + 1;
        name = std::string(entry.substr(1, close - 1));
        if (colon >= entry.size() || entry[colon] != ':')
        {
            throw SpecError("'" + std::string(entry) + "' is not " + std::string(syntax)
                + ": a quoted name must be followed by ':'");
        }
    }
    else
    {
        colon = lastColon ? entry.rfind(':') : entry.find(':');
        if (colon == std::string_view::npos || colon == 0)
        {
            throw SpecError("'" + std::string(entry) + "' is not " + std::string(syntax));
        }
        name = std::string(entry.substr(0, colon));
    }
    if (name.empty())
    {
        throw SpecError("'" + std::string(entry) + "' has an empty name");
    }
    return {std::move(name), entry.substr(colon + 1)};
}

nvinfer1::Dims parseDims(std::string_view text, std::string_view entry)
{
    nvinfer1::Dims dims{};
    dims.nbDims = 0;
    if (text.empty())
    {
        return dims; // a scalar
    }
    std::size_t start = 0;
    while (start <= text.size())
    {
        std::size_t const end = std::min(text.find('x', start), text.size());
        std::string_view const extent = text.substr(start, end - start);
        int64_t value = -1;
        auto const [rest, error] = std::from_chars(extent.data(), extent.data() + extent.size(), value);
        if (extent.empty() || error != std::errc() || rest != extent.data() + extent.size() || value < 0)
        {
            throw SpecError("'" + std::string(entry) + "': '" + std::string(extent)
                + "' is not an extent (a non-negative integer; extents are separated by 'x')");
        }
        if (dims.nbDims == nvinfer1::Dims::MAX_DIMS)
        {
            throw SpecError(
                "'" + std::string(entry) + "' has more than " + std::to_string(nvinfer1::Dims::MAX_DIMS) + " extents");
        }
        dims.d[dims.nbDims++] = value;
        start = end + 1;
    }
    return dims;
}

} // namespace

ShapeMap parseShapeList(std::string_view text)
{
    ShapeMap shapes;
    for (std::string_view const entry : splitEntries(text))
    {
        auto [name, value] = splitName(entry, /*lastColon=*/true, "name:AxBxC");
        shapes[std::move(name)] = parseDims(value, entry);
    }
    return shapes;
}

std::string dimsText(nvinfer1::Dims const& dims)
{
    std::string text;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? "x" : "") + std::to_string(dims.d[i]);
    }
    return text;
}

std::vector<MemoryPool> parseMemoryPools(std::string_view text)
{
    std::vector<MemoryPool> pools;
    for (std::string_view const entry : splitEntries(text))
    {
        auto const [name, value] = splitName(entry, /*lastColon=*/false, "pool:size (e.g. workspace:1024M)");
        // A named copy for the lambda: clang before 16 refuses to capture a structured binding.
        std::string const& wanted = name;
        auto const known
            = std::find_if(kPools.begin(), kPools.end(), [&](PoolName const& p) { return p.name == wanted; });
        if (known == kPools.end())
        {
            throw SpecError("'" + std::string(entry) + "': unknown pool '" + name
                + "' (pools: workspace, dlaSRAM, dlaLocalDRAM, dlaGlobalDRAM, tacticSharedMem)");
        }
        double size = -1.0;
        auto const [rest, error] = std::from_chars(value.data(), value.data() + value.size(), size);
        std::string_view const unit = value.substr(static_cast<std::size_t>(rest - value.data()));
        double scale = 0.0;
        if (unit == "B")
        {
            scale = 1.0;
        }
        else if (unit == "K")
        {
            scale = 1024.0;
        }
        else if (unit == "M" || unit.empty())
        {
            scale = 1024.0 * 1024.0;
        }
        else if (unit == "G")
        {
            scale = 1024.0 * 1024.0 * 1024.0;
        }
        double const bytes = size * scale;
        if (error != std::errc() || rest == value.data() || scale == 0.0 || !(size >= 0.0)
            || bytes >= static_cast<double>(std::numeric_limits<std::size_t>::max()))
        {
            throw SpecError("'" + std::string(entry)
                + "': the size is not a non-negative number with an optional unit B, K, M or G (M when none)");
        }
        pools.push_back({known->pool, static_cast<std::size_t>(std::llround(bytes))});
    }
    return pools;
}

std::string_view poolName(nvinfer1::MemoryPoolType pool) noexcept
{
    auto const known = std::find_if(kPools.begin(), kPools.end(), [&](PoolName const& p) { return p.pool == pool; });
    return known != kPools.end() ? known->name : "pool";
}

std::vector<NamedFile> parseNamedFiles(std::string_view text)
{
    std::vector<NamedFile> files;
    for (std::string_view const entry : splitEntries(text))
    {
        auto [name, path] = splitName(entry, /*lastColon=*/false, "name:file");
        if (path.empty())
        {
            throw SpecError("'" + std::string(entry) + "' names no file");
        }
        files.push_back({std::move(name), std::string(path)});
    }
    return files;
}

} // namespace kiln_tool
