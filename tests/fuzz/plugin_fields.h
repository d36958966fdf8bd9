// SPDX-License-Identifier: Apache-2.0
// The plugin-field fuzz target's input encoding (fuzz_plugin_fields.cpp decodes it; make_seeds.cpp writes seeds):
//   byte 0      which creator of the registry's list (modulo its size)
//   byte 1      bit 0: the phase a V3 creator is asked in (0 kBUILD, 1 kRUNTIME)
//   then fields, each:
//     name      one byte: the creator's field name of that index (modulo their number), or 255 and then a length byte
//               (at most 32) and that many characters
//     type      one byte: PluginFieldType (modulo 14)
//     length    two bytes, little-endian: the element count, cut to what the rest of the input holds
//     data      the elements' bytes
// A field's data is copied to 8-byte aligned storage, as a plan's decoder delivers it.
#pragma once

#include "NvInferRuntime.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::fuzz
{

//! The bytes of one element of type (kINT4 and kFP4 count as one byte: length counts bytes for them here).
inline int32_t fieldElementBytes(nvinfer1::PluginFieldType type)
{
    switch (type)
    {
    case nvinfer1::PluginFieldType::kFLOAT16:
    case nvinfer1::PluginFieldType::kINT16:
    case nvinfer1::PluginFieldType::kBF16: return 2;
    case nvinfer1::PluginFieldType::kFLOAT32:
    case nvinfer1::PluginFieldType::kINT32: return 4;
    case nvinfer1::PluginFieldType::kFLOAT64:
    case nvinfer1::PluginFieldType::kINT64: return 8;
    case nvinfer1::PluginFieldType::kDIMS: return static_cast<int32_t>(sizeof(nvinfer1::Dims));
    default: return 1;
    }
}

//! The field collection an input encodes, with storage for its names and data.
struct DecodedFields
{
    uint8_t creator{};
    bool runtimePhase{};
    std::vector<std::string> names;
    std::vector<std::vector<uint64_t>> data;
    std::vector<nvinfer1::PluginField> fields;
    nvinfer1::PluginFieldCollection collection{};
};

//! Decodes data (any bytes) for a creator whose field names are fieldNames (may be null).
inline DecodedFields decodeFields(
    uint8_t const* data, std::size_t size, nvinfer1::PluginFieldCollection const* fieldNames)
{
    DecodedFields out;
    std::size_t at = 0;
    auto const next = [&]() -> int32_t { return at < size ? data[at++] : -1; };
    out.creator = static_cast<uint8_t>(size > 0 ? data[0] : 0);
    out.runtimePhase = size > 1 && (data[1] & 1U) != 0;
    at = size > 2 ? 2 : size;
    int32_t const known = fieldNames != nullptr && fieldNames->fields != nullptr ? fieldNames->nbFields : 0;
    while (at < size && out.fields.size() < 64)
    {
        int32_t const selector = next();
        std::string name;
        if (selector == 255)
        {
            int32_t length = next();
            length = length < 0 ? 0 : length % 33;
            for (int32_t i = 0; i < length && at < size; ++i)
            {
                name.push_back(static_cast<char>(data[at++]));
            }
        }
        else if (known > 0 && fieldNames->fields[selector % known].name != nullptr)
        {
            name = fieldNames->fields[selector % known].name;
        }
        int32_t const typeByte = next();
        int32_t const low = next();
        int32_t const high = next();
        if (typeByte < 0 || low < 0 || high < 0)
        {
            break;
        }
        auto const type = static_cast<nvinfer1::PluginFieldType>(typeByte % 14);
        int64_t const element = fieldElementBytes(type);
        int64_t length = low | (high << 8);
        length = std::min<int64_t>(length, static_cast<int64_t>(size - at) / element);
        out.names.push_back(std::move(name));
        out.data.emplace_back(static_cast<std::size_t>((length * element + 7) / 8 + 1), 0);
        std::memcpy(out.data.back().data(), data + at, static_cast<std::size_t>(length * element));
        at += static_cast<std::size_t>(length * element);
        out.fields.push_back(
            nvinfer1::PluginField{nullptr, out.data.back().data(), type, static_cast<int32_t>(length)});
    }
    for (std::size_t i = 0; i < out.fields.size(); ++i)
    {
        out.fields[i].name = out.names[i].c_str();
    }
    out.collection = nvinfer1::PluginFieldCollection{static_cast<int32_t>(out.fields.size()), out.fields.data()};
    return out;
}

//! The field names of a V3 or V1 creator; null for another kind.
inline nvinfer1::PluginFieldCollection const* creatorFieldNames(nvinfer1::IPluginCreatorInterface& creator)
{
    std::string const kind = creator.getInterfaceInfo().kind;
    if (kind == "PLUGIN CREATOR_V3ONE")
    {
        return static_cast<nvinfer1::IPluginCreatorV3One&>(creator).getFieldNames();
    }
    if (kind == "PLUGIN CREATOR_V1")
    {
        return static_cast<nvinfer1::IPluginCreator&>(creator).getFieldNames();
    }
    return nullptr;
}

//! The encoding of creator (index `index` in the registry's list) with each of its fields named once, of its type and
//! length (at least 1), zeros for values; the run-time phase.
inline std::vector<uint8_t> encodeDefaultFields(uint8_t index, nvinfer1::IPluginCreatorInterface& creator)
{
    std::vector<uint8_t> bytes{index, 1};
    nvinfer1::PluginFieldCollection const* names = creatorFieldNames(creator);
    for (int32_t i = 0; names != nullptr && names->fields != nullptr && i < names->nbFields && i < 255; ++i)
    {
        nvinfer1::PluginField const& field = names->fields[i];
        int32_t const length = std::max(field.length, 1) & 0xFFFF;
        bytes.push_back(static_cast<uint8_t>(i));
        bytes.push_back(static_cast<uint8_t>(static_cast<int32_t>(field.type) & 0xFF));
        bytes.push_back(static_cast<uint8_t>(length & 0xFF));
        bytes.push_back(static_cast<uint8_t>(length >> 8));
        bytes.insert(bytes.end(), static_cast<std::size_t>(length * fieldElementBytes(field.type)), 0);
    }
    return bytes;
}

} // namespace kiln::fuzz
