// SPDX-License-Identifier: Apache-2.0
// The tensors kiln_model_bench reads and writes: a folder with one raw little-endian file per tensor and a manifest,
// manifest.txt, of one line per tensor, fields separated by tabs (bench/models/tensor_files.py writes and reads the
// same format):
//
//     input_ids<TAB>int64<TAB>32x128<TAB>input_ids.bin
//
// name, dtype (numpy's name: float32, float16, int64, int32, int8, uint8, bool), shape ("x"-separated extents, "" for
// a scalar) and the file name within the folder. Also the trtexec-style shape list, "name:32x128,mask:32x128".
//
//     std::vector<kiln_bench::HostTensor> inputs = kiln_bench::readTensors("work/bert/b32/inputs");
//     kiln_bench::writeTensors("dump", outputs);
#pragma once

#include "NvInfer.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace kiln_bench
{

//! A tensor in host memory: its bytes in the element type dtype names.
struct HostTensor
{
    std::string name;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::Dims dims{};
    std::vector<std::byte> bytes;
};

struct DtypeName
{
    char const* name;
    nvinfer1::DataType type;
    int32_t size;
};

inline constexpr DtypeName kDtypes[] = {
    {"float32", nvinfer1::DataType::kFLOAT, 4},
    {"float16", nvinfer1::DataType::kHALF, 2},
    {"int64", nvinfer1::DataType::kINT64, 8},
    {"int32", nvinfer1::DataType::kINT32, 4},
    {"int8", nvinfer1::DataType::kINT8, 1},
    {"uint8", nvinfer1::DataType::kUINT8, 1},
    {"bool", nvinfer1::DataType::kBOOL, 1},
};

inline std::optional<DtypeName> dtypeByName(std::string_view name)
{
    for (DtypeName const& entry : kDtypes)
    {
        if (name == entry.name)
        {
            return entry;
        }
    }
    return std::nullopt;
}

inline std::optional<DtypeName> dtypeByType(nvinfer1::DataType type)
{
    for (DtypeName const& entry : kDtypes)
    {
        if (type == entry.type)
        {
            return entry;
        }
    }
    return std::nullopt;
}

//! "32x128" for {32, 128}, "" for a scalar.
inline std::string shapeText(nvinfer1::Dims const& dims)
{
    std::string text;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? "x" : "") + std::to_string(dims.d[i]);
    }
    return text;
}

//! The extents of "32x128" ("" is a scalar); throws std::runtime_error naming text when it is not one.
inline nvinfer1::Dims parseShape(std::string const& text)
{
    nvinfer1::Dims dims{};
    std::stringstream stream(text);
    std::string extent;
    while (!text.empty() && std::getline(stream, extent, 'x'))
    {
        std::size_t used = 0;
        int64_t value = -1;
        try
        {
            value = std::stoll(extent, &used);
        }
        catch (std::exception const&)
        {
            used = 0;
        }
        if (used != extent.size() || value < 0 || dims.nbDims == nvinfer1::Dims::MAX_DIMS)
        {
            throw std::runtime_error("'" + text + "' is not a shape like 32x128");
        }
        dims.d[dims.nbDims++] = value;
    }
    return dims;
}

//! "name:32x128,other:1x3" as a map; throws std::runtime_error when an entry has no ':'.
inline std::map<std::string, nvinfer1::Dims> parseShapeList(std::string const& text)
{
    std::map<std::string, nvinfer1::Dims> shapes;
    std::stringstream stream(text);
    std::string entry;
    while (std::getline(stream, entry, ','))
    {
        std::size_t const colon = entry.rfind(':');
        if (colon == std::string::npos)
        {
            throw std::runtime_error("--shapes entry '" + entry + "' is not name:32x128");
        }
        shapes[entry.substr(0, colon)] = parseShape(entry.substr(colon + 1));
    }
    return shapes;
}

inline int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

//! Every tensor of folder's manifest.txt, with its bytes; throws std::runtime_error naming what is wrong.
inline std::vector<HostTensor> readTensors(std::string const& folder)
{
    std::ifstream manifest(folder + "/manifest.txt");
    if (!manifest)
    {
        throw std::runtime_error("cannot open " + folder + "/manifest.txt");
    }
    std::vector<HostTensor> tensors;
    std::string line;
    while (std::getline(manifest, line))
    {
        if (line.empty())
        {
            continue;
        }
        std::vector<std::string> fields;
        std::stringstream stream(line);
        std::string field;
        while (std::getline(stream, field, '\t'))
        {
            fields.push_back(field);
        }
        if (fields.size() != 4)
        {
            throw std::runtime_error(folder + "/manifest.txt: '" + line + "' is not name, dtype, shape, file");
        }
        std::optional<DtypeName> const dtype = dtypeByName(fields[1]);
        if (!dtype)
        {
            throw std::runtime_error(folder + "/manifest.txt: unknown dtype " + fields[1]);
        }
        HostTensor tensor{fields[0], dtype->type, parseShape(fields[2]), {}};
        std::size_t const size = static_cast<std::size_t>(volume(tensor.dims) * dtype->size);
        tensor.bytes.resize(size);
        std::ifstream file(folder + "/" + fields[3], std::ios::binary | std::ios::ate);
        if (!file || static_cast<std::size_t>(file.tellg()) != size)
        {
            throw std::runtime_error(folder + "/" + fields[3] + " is missing or does not hold " + std::to_string(size)
                + " bytes (" + fields[1] + " " + fields[2] + ")");
        }
        file.seekg(0);
        file.read(reinterpret_cast<char*>(tensor.bytes.data()), static_cast<std::streamsize>(size));
        tensors.push_back(std::move(tensor));
    }
    return tensors;
}

//! A file name for a tensor name: letters, digits, '-', '_' and '.' kept, anything else as '_', then ".bin".
inline std::string tensorFileName(std::string const& name, std::size_t index)
{
    std::string file = std::to_string(index) + "_";
    for (char const c : name)
    {
        bool const keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
            || c == '_' || c == '.';
        file += keep ? c : '_';
    }
    return file + ".bin";
}

//! Writes each tensor to folder (created when missing) and the manifest.txt naming them.
inline void writeTensors(std::string const& folder, std::vector<HostTensor> const& tensors)
{
    std::error_code ignored; // a folder that cannot be made shows as the failure to write into it
    std::filesystem::create_directories(folder, ignored);
    std::ofstream manifest(folder + "/manifest.txt");
    for (std::size_t i = 0; i < tensors.size(); ++i)
    {
        HostTensor const& tensor = tensors[i];
        std::optional<DtypeName> const dtype = dtypeByType(tensor.type);
        if (!dtype)
        {
            throw std::runtime_error("the output " + tensor.name + " has a type the dump does not write");
        }
        std::string const file = tensorFileName(tensor.name, i);
        std::ofstream out(folder + "/" + file, std::ios::binary);
        out.write(
            reinterpret_cast<char const*>(tensor.bytes.data()), static_cast<std::streamsize>(tensor.bytes.size()));
        manifest << tensor.name << '\t' << dtype->name << '\t' << shapeText(tensor.dims) << '\t' << file << '\n';
        if (!out)
        {
            throw std::runtime_error("cannot write " + folder + "/" + file);
        }
    }
    if (!manifest)
    {
        throw std::runtime_error("cannot write " + folder + "/manifest.txt");
    }
}

} // namespace kiln_bench
