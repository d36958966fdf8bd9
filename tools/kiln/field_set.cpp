// SPDX-License-Identifier: Apache-2.0
#include "field_set.h"

#include "specs.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <sstream>

namespace kiln_tool
{
namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

template <typename T>
std::vector<T> valuesOf(OwnedField const& field)
{
    std::vector<T> values(field.bytes.size() / sizeof(T));
    std::memcpy(values.data(), field.bytes.data(), values.size() * sizeof(T));
    return values;
}

template <typename T>
std::string listText(std::vector<T> const& values)
{
    std::ostringstream text;
    std::size_t const shown = std::min<std::size_t>(values.size(), 8);
    for (std::size_t i = 0; i < shown; ++i)
    {
        text << (i > 0 ? ", " : "") << +values[i];
    }
    if (shown < values.size())
    {
        text << ", ... (" << values.size() << " values)";
    }
    return text.str();
}

std::vector<std::string> split(std::string_view text, char separator)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true)
    {
        std::size_t const end = text.find(separator, start);
        parts.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
        {
            return parts;
        }
        start = end + 1;
    }
}

template <typename T>
T number(std::string const& name, std::string const& item)
{
    T value{};
    auto const [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size())
    {
        throw SpecError("--field " + name + ": '" + item + "' is not a " + std::string(sizeof(T) <= 2 ? "small " : "")
            + (std::is_floating_point_v<T> ? "number" : "integer") + " of the field's type");
    }
    return value;
}

template <typename T>
void appendNumbers(OwnedField& field, std::string_view text)
{
    for (std::string const& item : split(text, ','))
    {
        T const value = number<T>(field.name, item);
        char const* bytes = reinterpret_cast<char const*>(&value);
        field.bytes.insert(field.bytes.end(), bytes, bytes + sizeof(T));
        ++field.length;
    }
}

} // namespace

std::string_view fieldTypeName(PluginFieldType type) noexcept
{
    switch (type)
    {
    case PluginFieldType::kFLOAT16: return "kFLOAT16";
    case PluginFieldType::kFLOAT32: return "kFLOAT32";
    case PluginFieldType::kFLOAT64: return "kFLOAT64";
    case PluginFieldType::kINT8: return "kINT8";
    case PluginFieldType::kINT16: return "kINT16";
    case PluginFieldType::kINT32: return "kINT32";
    case PluginFieldType::kCHAR: return "kCHAR";
    case PluginFieldType::kDIMS: return "kDIMS";
    case PluginFieldType::kUNKNOWN: return "kUNKNOWN";
    case PluginFieldType::kBF16: return "kBF16";
    case PluginFieldType::kINT64: return "kINT64";
    case PluginFieldType::kFP8: return "kFP8";
    case PluginFieldType::kINT4: return "kINT4";
    case PluginFieldType::kFP4: return "kFP4";
    }
    return "unknown";
}

int64_t fieldByteCount(PluginFieldType type, int64_t length) noexcept
{
    switch (type)
    {
    case PluginFieldType::kINT8:
    case PluginFieldType::kCHAR:
    case PluginFieldType::kUNKNOWN:
    case PluginFieldType::kFP8: return length;
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kINT16:
    case PluginFieldType::kBF16: return length * 2;
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kINT32: return length * 4;
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kINT64: return length * 8;
    case PluginFieldType::kDIMS: return length * static_cast<int64_t>(sizeof(nvinfer1::Dims));
    case PluginFieldType::kINT4:
    case PluginFieldType::kFP4: return (length + 1) / 2;
    }
    return -1;
}

std::string fieldValueText(OwnedField const& field)
{
    std::string value;
    if (!field.hasData)
    {
        value = "no data";
    }
    else
    {
        switch (field.type)
        {
        case PluginFieldType::kFLOAT32: value = listText(valuesOf<float>(field)); break;
        case PluginFieldType::kFLOAT64: value = listText(valuesOf<double>(field)); break;
        case PluginFieldType::kINT8: value = listText(valuesOf<int8_t>(field)); break;
        case PluginFieldType::kINT16: value = listText(valuesOf<int16_t>(field)); break;
        case PluginFieldType::kINT32: value = listText(valuesOf<int32_t>(field)); break;
        case PluginFieldType::kINT64: value = listText(valuesOf<int64_t>(field)); break;
        case PluginFieldType::kCHAR:
            value
                = "'" + std::string(field.bytes.begin(), std::find(field.bytes.begin(), field.bytes.end(), '\0')) + "'";
            break;
        case PluginFieldType::kDIMS:
            for (nvinfer1::Dims const& dims : valuesOf<nvinfer1::Dims>(field))
            {
                value += (value.empty() ? "" : ", ") + (dims.nbDims == 0 ? std::string("scalar") : dimsText(dims));
            }
            break;
        default:
        {
            static char const* const kHex = "0123456789abcdef";
            value = std::to_string(field.bytes.size()) + " bytes ";
            for (std::size_t i = 0; i < std::min<std::size_t>(field.bytes.size(), 16); ++i)
            {
                auto const byte = static_cast<unsigned char>(field.bytes[i]);
                value += std::string{kHex[byte >> 4], kHex[byte & 15]};
            }
            value += field.bytes.size() > 16 ? "..." : "";
        }
        }
    }
    return value + " (" + std::string(fieldTypeName(field.type)) + " x " + std::to_string(field.length) + ")";
}

FieldSet::FieldSet(FieldSet const& other)
    : mFields(other.mFields)
    , mProblems(other.mProblems)
{
}

FieldSet& FieldSet::operator=(FieldSet const& other)
{
    mFields = other.mFields;
    mProblems = other.mProblems;
    mViews.clear();
    return *this;
}

FieldSet FieldSet::copyOf(PluginFieldCollection const* fields)
{
    FieldSet set;
    if (fields == nullptr)
    {
        return set;
    }
    if (fields->nbFields > 0 && fields->fields == nullptr)
    {
        set.mProblems.push_back("nbFields is " + std::to_string(fields->nbFields) + " but fields is null");
        return set;
    }
    for (int32_t i = 0; i < fields->nbFields; ++i)
    {
        PluginField const& field = fields->fields[i];
        std::string const where = "field " + std::to_string(i);
        int64_t const bytes = fieldByteCount(field.type, field.length);
        if (field.name == nullptr)
        {
            set.mProblems.push_back(where + " has a null name");
        }
        else if (field.length < 0 || bytes < 0)
        {
            set.mProblems.push_back(where + " (\"" + field.name + "\") has length " + std::to_string(field.length)
                + " of type " + std::to_string(static_cast<int32_t>(field.type)));
        }
        else if (field.data == nullptr && field.length > 0)
        {
            set.mProblems.push_back(
                where + " (\"" + field.name + "\") has length " + std::to_string(field.length) + " but null data");
        }
        else
        {
            OwnedField owned{field.name, field.type, field.length, {}, field.data != nullptr};
            auto const* data = static_cast<char const*>(field.data);
            owned.bytes.assign(data, data + (data != nullptr ? bytes : 0));
            set.add(std::move(owned));
        }
    }
    return set;
}

void FieldSet::add(OwnedField field)
{
    mFields.push_back(std::move(field));
    mViews.clear();
}

PluginFieldCollection const* FieldSet::collection() const
{
    mViews.clear();
    for (OwnedField const& field : mFields)
    {
        mViews.emplace_back(field.name.c_str(), field.hasData ? field.bytes.data() : nullptr, field.type, field.length);
    }
    mCollection = PluginFieldCollection{static_cast<int32_t>(mViews.size()), mViews.data()};
    return &mCollection;
}

std::string FieldSet::names() const
{
    std::string names;
    for (OwnedField const& field : mFields)
    {
        names += (names.empty() ? "" : ", ") + field.name;
    }
    return names.empty() ? "no fields" : names;
}

std::optional<std::string> fieldDifference(FieldSet const& expected, FieldSet const& actual)
{
    auto const find = [](FieldSet const& set, std::string const& name) -> OwnedField const* {
        for (OwnedField const& field : set.fields())
        {
            if (field.name == name)
            {
                return &field;
            }
        }
        return nullptr;
    };
    for (OwnedField const& want : expected.fields())
    {
        OwnedField const* got = find(actual, want.name);
        if (got == nullptr)
        {
            return "field \"" + want.name + "\" (" + fieldValueText(want) + ") is missing";
        }
        if (got->type != want.type || got->length != want.length || got->bytes != want.bytes)
        {
            return "field \"" + want.name + "\" was " + fieldValueText(want) + ", is " + fieldValueText(*got);
        }
    }
    for (OwnedField const& got : actual.fields())
    {
        if (find(expected, got.name) == nullptr)
        {
            return "field \"" + got.name + "\" (" + fieldValueText(got) + ") is new";
        }
    }
    return std::nullopt;
}

OwnedField parseField(std::string const& name, PluginFieldType type, std::string_view text)
{
    OwnedField field{name, type, 0, {}, true};
    switch (type)
    {
    case PluginFieldType::kFLOAT32: appendNumbers<float>(field, text); break;
    case PluginFieldType::kFLOAT64: appendNumbers<double>(field, text); break;
    case PluginFieldType::kINT8: appendNumbers<int8_t>(field, text); break;
    case PluginFieldType::kINT16: appendNumbers<int16_t>(field, text); break;
    case PluginFieldType::kINT32: appendNumbers<int32_t>(field, text); break;
    case PluginFieldType::kINT64: appendNumbers<int64_t>(field, text); break;
    case PluginFieldType::kCHAR:
        field.bytes.assign(text.begin(), text.end());
        field.length = static_cast<int32_t>(field.bytes.size());
        field.bytes.push_back('\0'); // for plugins that read it as a C string; not counted in length
        break;
    case PluginFieldType::kDIMS:
        for (std::string const& item : split(text, ','))
        {
            nvinfer1::Dims dims{};
            for (std::string const& extent : split(item, 'x'))
            {
                if (dims.nbDims == nvinfer1::Dims::MAX_DIMS)
                {
                    throw SpecError("--field " + name + ": '" + item + "' has more than 8 extents");
                }
                dims.d[dims.nbDims++] = number<int64_t>(name, extent);
            }
            char const* bytes = reinterpret_cast<char const*>(&dims);
            field.bytes.insert(field.bytes.end(), bytes, bytes + sizeof(dims));
            ++field.length;
        }
        break;
    case PluginFieldType::kUNKNOWN:
        if (text.size() % 2 != 0)
        {
            throw SpecError(
                "--field " + name + ": a kUNKNOWN field takes hex bytes (\"0a0b\"), an even count of digits");
        }
        for (std::size_t i = 0; i < text.size(); i += 2)
        {
            uint8_t byte{};
            auto const [end, error] = std::from_chars(text.data() + i, text.data() + i + 2, byte, 16);
            if (error != std::errc() || end != text.data() + i + 2)
            {
                throw SpecError("--field " + name + ": '" + std::string(text.substr(i, 2)) + "' is not a hex byte");
            }
            field.bytes.push_back(static_cast<char>(byte));
        }
        field.length = static_cast<int32_t>(field.bytes.size());
        break;
    default:
        throw SpecError("--field " + name + ": values of type " + std::string(fieldTypeName(type))
            + " cannot be given on the command line (FP32, FP64, INT8/16/32/64, CHAR, DIMS and UNKNOWN can)");
    }
    return field;
}

FieldSet sampleFields(PluginFieldCollection const* declared, std::map<std::string, std::string> const& given,
    std::vector<std::string>& missing)
{
    FieldSet fields;
    for (int32_t i = 0; declared != nullptr && declared->fields != nullptr && i < declared->nbFields; ++i)
    {
        PluginField const& field = declared->fields[i];
        if (field.name == nullptr)
        {
            continue;
        }
        auto const value = given.find(field.name);
        if (value != given.end())
        {
            fields.add(parseField(field.name, field.type, value->second));
        }
        else if (field.data != nullptr && field.length >= 0 && fieldByteCount(field.type, field.length) >= 0)
        {
            auto const* data = static_cast<char const*>(field.data);
            fields.add(OwnedField{field.name, field.type, field.length,
                std::vector<char>(data, data + fieldByteCount(field.type, field.length)), true});
        }
        else
        {
            missing.push_back(field.name);
        }
    }
    return fields;
}

} // namespace kiln_tool
