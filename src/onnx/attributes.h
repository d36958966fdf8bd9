// SPDX-License-Identifier: Apache-2.0
// Typed access to a node's attributes. Inside a model-local function, attributes that refer to the caller's
// (ref_attr_name) are resolved against the call's attributes.
//
//     Attributes attrs(node, callerAttributes);
//     int64_t axis = attrs.get<int64_t>("axis", 1);
//     std::vector<int64_t> pads = attrs.get<std::vector<int64_t>>("pads", {});
//     std::string mode = attrs.get<std::string>("mode", "constant");
#pragma once

#include "onnx/errors.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::onnx_import
{

//! The attributes of one node.
class Attributes
{
public:
    //! The node's attributes; caller holds the attributes of the function call the node is inside of (or nullptr).
    explicit Attributes(::onnx::NodeProto const& node, Attributes const* caller = nullptr);

    bool has(std::string const& name) const { return mByName.count(name) != 0; }
    //! The attribute, or nullptr.
    ::onnx::AttributeProto const* find(std::string const& name) const;
    //! Every attribute by name.
    std::map<std::string, ::onnx::AttributeProto const*> const& all() const noexcept { return mByName; }

    //! The value of name as T (int64_t, int32_t, float, std::string, std::vector of those, or
    //! ::onnx::TensorProto const*), or fallback when the node does not have it. A value of the wrong attribute type
    //! fails with kUNSUPPORTED_NODE_ATTR.
    template <typename T>
    T get(std::string const& name, T const& fallback) const
    {
        ::onnx::AttributeProto const* attribute = find(name);
        return attribute == nullptr ? fallback : read<T>(*attribute);
    }

    //! The value of name as T; a missing attribute fails with kINVALID_NODE.
    template <typename T>
    T required(std::string const& name) const
    {
        ::onnx::AttributeProto const* attribute = find(name);
        require(attribute != nullptr, ErrorCode::kINVALID_NODE, "the required attribute '", name, "' is missing");
        return read<T>(*attribute);
    }

    //! Converts one attribute (exposed for the plugin field mapping).
    template <typename T>
    static T read(::onnx::AttributeProto const& attribute);

private:
    std::map<std::string, ::onnx::AttributeProto const*> mByName;
};

// The types read() converts to (defined in attributes.cpp).
template <>
int64_t Attributes::read<int64_t>(::onnx::AttributeProto const&);
template <>
int32_t Attributes::read<int32_t>(::onnx::AttributeProto const&);
template <>
bool Attributes::read<bool>(::onnx::AttributeProto const&);
template <>
float Attributes::read<float>(::onnx::AttributeProto const&);
template <>
std::string Attributes::read<std::string>(::onnx::AttributeProto const&);
template <>
std::vector<int64_t> Attributes::read<std::vector<int64_t>>(::onnx::AttributeProto const&);
template <>
std::vector<int32_t> Attributes::read<std::vector<int32_t>>(::onnx::AttributeProto const&);
template <>
std::vector<float> Attributes::read<std::vector<float>>(::onnx::AttributeProto const&);
template <>
std::vector<std::string> Attributes::read<std::vector<std::string>>(::onnx::AttributeProto const&);
template <>
::onnx::TensorProto const* Attributes::read<::onnx::TensorProto const*>(::onnx::AttributeProto const&);
template <>
::onnx::GraphProto const* Attributes::read<::onnx::GraphProto const*>(::onnx::AttributeProto const&);

//! The name of an AttributeProto type, for messages ("INTS").
char const* attributeTypeName(int type) noexcept;

} // namespace kiln::onnx_import
