// SPDX-License-Identifier: Apache-2.0
#include "onnx/attributes.h"

namespace kiln::onnx_import
{

using ::onnx::AttributeProto;

char const* attributeTypeName(int type) noexcept
{
    switch (type)
    {
    case AttributeProto::FLOAT: return "FLOAT";
    case AttributeProto::INT: return "INT";
    case AttributeProto::STRING: return "STRING";
    case AttributeProto::TENSOR: return "TENSOR";
    case AttributeProto::GRAPH: return "GRAPH";
    case AttributeProto::SPARSE_TENSOR: return "SPARSE_TENSOR";
    case AttributeProto::TYPE_PROTO: return "TYPE_PROTO";
    case AttributeProto::FLOATS: return "FLOATS";
    case AttributeProto::INTS: return "INTS";
    case AttributeProto::STRINGS: return "STRINGS";
    case AttributeProto::TENSORS: return "TENSORS";
    case AttributeProto::GRAPHS: return "GRAPHS";
    case AttributeProto::SPARSE_TENSORS: return "SPARSE_TENSORS";
    case AttributeProto::TYPE_PROTOS: return "TYPE_PROTOS";
    default: return "UNDEFINED";
    }
}

Attributes::Attributes(::onnx::NodeProto const& node, Attributes const* caller)
{
    for (AttributeProto const& attribute : node.attribute())
    {
        if (!attribute.ref_attr_name().empty())
        {
            // Inside a function body: the value is the caller's attribute of that name, if the call has one.
            AttributeProto const* value = caller != nullptr ? caller->find(attribute.ref_attr_name()) : nullptr;
            if (value != nullptr)
            {
                mByName[attribute.name()] = value;
            }
            continue;
        }
        mByName[attribute.name()] = &attribute;
    }
}

AttributeProto const* Attributes::find(std::string const& name) const
{
    auto found = mByName.find(name);
    return found == mByName.end() ? nullptr : found->second;
}

namespace
{

void expectType(AttributeProto const& attribute, AttributeProto::AttributeType type)
{
    // Old exporters sometimes leave the type unset; the field that holds a value tells then.
    require(attribute.type() == type || attribute.type() == AttributeProto::UNDEFINED,
        ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute '", attribute.name(), "' is of type ",
        attributeTypeName(attribute.type()), ", expected ", attributeTypeName(type));
}

} // namespace

template <>
int64_t Attributes::read<int64_t>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::INT);
    return attribute.i();
}

template <>
int32_t Attributes::read<int32_t>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::INT);
    int64_t value = attribute.i();
    require(value >= INT32_MIN && value <= INT32_MAX, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute '",
        attribute.name(), "' is ", value, ", which does not fit in 32 bits");
    return static_cast<int32_t>(value);
}

template <>
bool Attributes::read<bool>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::INT);
    return attribute.i() != 0;
}

template <>
float Attributes::read<float>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::FLOAT);
    return attribute.f();
}

template <>
std::string Attributes::read<std::string>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::STRING);
    return attribute.s();
}

template <>
std::vector<int64_t> Attributes::read<std::vector<int64_t>>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::INTS);
    return {attribute.ints().begin(), attribute.ints().end()};
}

template <>
std::vector<int32_t> Attributes::read<std::vector<int32_t>>(AttributeProto const& attribute)
{
    std::vector<int32_t> values;
    for (int64_t value : read<std::vector<int64_t>>(attribute))
    {
        require(value >= INT32_MIN && value <= INT32_MAX, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute '",
            attribute.name(), "' holds ", value, ", which does not fit in 32 bits");
        values.push_back(static_cast<int32_t>(value));
    }
    return values;
}

template <>
std::vector<float> Attributes::read<std::vector<float>>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::FLOATS);
    return {attribute.floats().begin(), attribute.floats().end()};
}

template <>
std::vector<std::string> Attributes::read<std::vector<std::string>>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::STRINGS);
    return {attribute.strings().begin(), attribute.strings().end()};
}

template <>
::onnx::TensorProto const* Attributes::read<::onnx::TensorProto const*>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::TENSOR);
    return &attribute.t();
}

template <>
::onnx::GraphProto const* Attributes::read<::onnx::GraphProto const*>(AttributeProto const& attribute)
{
    expectType(attribute, AttributeProto::GRAPH);
    return &attribute.g();
}

} // namespace kiln::onnx_import
