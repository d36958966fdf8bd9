// SPDX-License-Identifier: Apache-2.0
// Plugin fields the kiln tool owns: a deep copy of a PluginFieldCollection (names, types, lengths and bytes), which
// outlives the plugin that returned it, compares with another, and hands createPlugin a collection again; and the
// fields `kiln check-plugin` creates a plugin with (a creator's declared fields, with values from `--field`).
//
//     FieldSet const serialized = FieldSet::copyOf(runtime->getFieldsToSerialize());
//     std::optional<std::string> const changed = fieldDifference(serialized, FieldSet::copyOf(...));
//     creator.createPlugin("name", serialized.collection(), TensorRTPhase::kRUNTIME);
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln_tool
{

//! The enumerator's name: "kFLOAT32", ...
std::string_view fieldTypeName(nvinfer1::PluginFieldType type) noexcept;

//! The bytes length elements of type take (packed 4-bit types: half a byte each, rounded up); -1 for an unknown type.
int64_t fieldByteCount(nvinfer1::PluginFieldType type, int64_t length) noexcept;

//! One field, owned.
struct OwnedField
{
    std::string name;
    nvinfer1::PluginFieldType type{};
    int32_t length{};
    std::vector<char> bytes; //!< fieldByteCount(type, length) bytes; empty when data was null.
    bool hasData{};
};

//! "2.5" / "1, 2, 3" / "'text'" / "16 bytes 0a0b..." with its type and length: "2.5 (kFLOAT32 x 1)".
std::string fieldValueText(OwnedField const& field);

class FieldSet
{
public:
    FieldSet() = default;
    FieldSet(FieldSet const& other);
    FieldSet& operator=(FieldSet const& other);

    //! A deep copy of fields (null: empty). A field that cannot be copied (null name, negative length, unknown type,
    //! null data with a length) is left out and described in problems().
    static FieldSet copyOf(nvinfer1::PluginFieldCollection const* fields);

    void add(OwnedField field);
    std::vector<OwnedField> const& fields() const noexcept { return mFields; }
    std::vector<std::string> const& problems() const noexcept { return mProblems; }
    //! A collection over this set's fields, valid while the set lives unchanged.
    nvinfer1::PluginFieldCollection const* collection() const;
    //! "scale, axis" ("no fields" when empty).
    std::string names() const;

private:
    std::vector<OwnedField> mFields;
    std::vector<std::string> mProblems;
    mutable std::vector<nvinfer1::PluginField> mViews;
    mutable nvinfer1::PluginFieldCollection mCollection{};
};

//! How actual differs from expected, field by field (by name), or nullopt when they hold the same fields.
std::optional<std::string> fieldDifference(FieldSet const& expected, FieldSet const& actual);

//! The field name of type parsed from text ("1,2,3"; a kCHAR field takes text as is; a kDIMS field "2x3,4x5"; a
//! kUNKNOWN field hex bytes "0a0b"); a SpecError says what does not parse.
OwnedField parseField(std::string const& name, nvinfer1::PluginFieldType type, std::string_view text);

//! The fields to create a plugin with: each declared field with its value from given (by name), else its declared
//! data; a declared field with neither is left out and its name added to missing. Given names the creator does not
//! declare are ignored. A SpecError for a given value that does not parse.
FieldSet sampleFields(nvinfer1::PluginFieldCollection const* declared, std::map<std::string, std::string> const& given,
    std::vector<std::string>& missing);

} // namespace kiln_tool
