// SPDX-License-Identifier: Apache-2.0
#include "plugin/plugin_fields.h"

#include "plan/model_support.h"

#include <cstring>

namespace kiln
{

using nvinfer1::PluginFieldType;

std::optional<int64_t> fieldBytes(PluginFieldType type, int64_t length) noexcept
{
    if (length < 0)
    {
        return std::nullopt;
    }
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
    case PluginFieldType::kFP4: return (length + 1) / 2; // Two elements per byte.
    }
    return std::nullopt;
}

Expected<std::vector<PluginFieldRecord>> copyFields(nvinfer1::PluginFieldCollection const& collection)
{
    auto const invalid = [](std::string message) { return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, message}; };
    if (collection.nbFields < 0 || (collection.nbFields > 0 && collection.fields == nullptr))
    {
        return invalid(cat("the collection has ", collection.nbFields, " fields at ",
            collection.fields == nullptr ? "a null pointer" : "an address"));
    }
    std::vector<PluginFieldRecord> records;
    for (int32_t i = 0; i < collection.nbFields; ++i)
    {
        nvinfer1::PluginField const& field = collection.fields[i];
        if (field.name == nullptr)
        {
            return invalid(cat("field ", i, " has a null name"));
        }
        auto const bytes = fieldBytes(field.type, field.length);
        if (!bytes)
        {
            return invalid(cat("field ", quotedText(field.name), " has ",
                field.length < 0 ? cat("the negative length ", field.length)
                                 : cat("the unknown type ", static_cast<int32_t>(field.type))));
        }
        if (field.data == nullptr && bytes.value() > 0)
        {
            return invalid(cat("field ", quotedText(field.name), " has ", field.length, " elements of ",
                fieldTypeName(field.type), " at a null pointer"));
        }
        PluginFieldRecord record{field.name, field.type, field.length, {}};
        auto const* data = static_cast<uint8_t const*>(field.data);
        record.data.assign(data, data + bytes.value());
        records.push_back(std::move(record));
    }
    return records;
}

std::optional<std::string> fieldProblem(PluginFieldRecord const& field)
{
    auto const bytes = fieldBytes(field.type, field.length);
    if (!bytes)
    {
        return cat("field ", quotedText(field.name.c_str()), " has ",
            field.length < 0 ? cat("the negative length ", field.length)
                             : cat("the unknown type ", static_cast<int32_t>(field.type)));
    }
    if (bytes.value() != static_cast<int64_t>(field.data.size()))
    {
        return cat("field ", quotedText(field.name.c_str()), " holds ", field.data.size(), " bytes; ", field.length,
            " elements of ", fieldTypeName(field.type), " take ", bytes.value());
    }
    return std::nullopt;
}

FieldView::FieldView(std::vector<PluginFieldRecord> const& records)
{
    for (PluginFieldRecord const& record : records)
    {
        mFields.emplace_back(
            record.name.c_str(), record.data.empty() ? nullptr : record.data.data(), record.type, record.length);
    }
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.empty() ? nullptr : mFields.data();
}

} // namespace kiln
