// SPDX-License-Identifier: Apache-2.0
// Plugin fields as an engine keeps them: the bytes of a PluginFieldCollection copied into PluginFieldRecords (when
// the builder asks getFieldsToSerialize()), and a collection viewing records again (what the runtime hands to
// IPluginCreatorV3One::createPlugin).
//
//     auto records = copyFields(*runtime->getFieldsToSerialize());            // Expected<vector<PluginFieldRecord>>
//     FieldView view(records.value());
//     creator.createPlugin(name, view.collection(), TensorRTPhase::kRUNTIME);  // view outlives the call
#pragma once

#include "core/error.h"
#include "network/params.h"
#include "plugin/plugin_lookup.h" // fieldTypeName

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

//! Bytes that length elements of a field of type take, or nullopt for an unknown type or a negative length.
std::optional<int64_t> fieldBytes(nvinfer1::PluginFieldType type, int64_t length) noexcept;

//! Deep copies of every field of collection; an error names the field that is malformed (a null name, an unknown
//! type, a negative length, null data with a non-zero length).
Expected<std::vector<PluginFieldRecord>> copyFields(nvinfer1::PluginFieldCollection const& collection);

//! The first problem of a field record (as a plan holds it), or nullopt.
std::optional<std::string> fieldProblem(PluginFieldRecord const& field);

//! A PluginFieldCollection over records, valid while the view and the records live.
class FieldView
{
public:
    explicit FieldView(std::vector<PluginFieldRecord> const& records);
    FieldView(FieldView const&) = delete;
    FieldView& operator=(FieldView const&) = delete;

    nvinfer1::PluginFieldCollection const* collection() const noexcept { return &mCollection; }

private:
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

} // namespace kiln
