// SPDX-License-Identifier: Apache-2.0
// The value syntaxes of trtexec's flags, parsed into values: shape lists (--shapes and friends), memory pool sizes
// (--memPoolSize) and tensor-file lists (--loadInputs). A tensor name may be quoted with single quotes, as trtexec
// allows, to hold commas or colons. Each parser throws SpecError, whose message quotes the offending part.
//
//     ShapeMap shapes = parseShapeList("input_ids:1x128,'mask:0':1x128");  // {"input_ids": 1x128, "mask:0": 1x128}
//     std::vector<MemoryPool> pools = parseMemoryPools("workspace:1024M,tacticSharedMem:48K");
//     std::vector<NamedFile> files = parseNamedFiles("x:x.bin");
#pragma once

#include "NvInfer.h"

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kiln_tool
{

//! A flag's value that does not follow its syntax.
class SpecError : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

//! Shapes by tensor name; a later entry for a name replaces an earlier one (trtexec's rule).
using ShapeMap = std::map<std::string, nvinfer1::Dims>;

//! "name:AxBxC[,name:AxBxC...]" (the name split at its last colon unless quoted; "name:" is a scalar).
ShapeMap parseShapeList(std::string_view text);

//! dims as trtexec writes them: "1x3x224x224" ("" for a scalar).
std::string dimsText(nvinfer1::Dims const& dims);

struct MemoryPool
{
    nvinfer1::MemoryPoolType pool{};
    std::size_t bytes{};
};

//! "pool:size[unit][,pool:size...]": pools workspace, dlaSRAM, dlaLocalDRAM, dlaGlobalDRAM, tacticSharedMem; units
//! B, K, M, G (powers of 1024); M when none. Fractions are allowed ("1.5G").
std::vector<MemoryPool> parseMemoryPools(std::string_view text);

//! trtexec's name of pool ("workspace", ...).
std::string_view poolName(nvinfer1::MemoryPoolType pool) noexcept;

struct NamedFile
{
    std::string name;
    std::string path;
};

//! "name:path[,name:path...]" (the name split at its first colon unless quoted).
std::vector<NamedFile> parseNamedFiles(std::string_view text);

} // namespace kiln_tool
