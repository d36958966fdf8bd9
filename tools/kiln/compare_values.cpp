// SPDX-License-Identifier: Apache-2.0
#include "compare_values.h"

#include "files.h"
#include "logger.h"
#include "values.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>

namespace kiln_tool
{
namespace
{

using nlohmann::json;

//! "2x3x8x8" as extents; "" is a scalar. Empty when text is not that.
std::optional<std::vector<int64_t>> parseDimensions(std::string const& text)
{
    std::vector<int64_t> dims;
    if (text.empty())
    {
        return dims;
    }
    std::size_t start = 0;
    while (start <= text.size())
    {
        std::size_t const end = std::min(text.find('x', start), text.size());
        std::string const part = text.substr(start, end - start);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 18)
        {
            return std::nullopt;
        }
        dims.push_back(std::stoll(part));
        start = end + 1;
    }
    return dims;
}

} // namespace

std::vector<int64_t> dimsOf(nvinfer1::Dims const& dims)
{
    return std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
}

int64_t elementCount(std::vector<int64_t> const& dims)
{
    int64_t count = 1;
    for (int64_t const extent : dims)
    {
        count *= extent;
    }
    return count;
}

std::string shapeText(std::vector<int64_t> const& dims)
{
    if (dims.empty())
    {
        return "scalar";
    }
    std::string text;
    for (int64_t const extent : dims)
    {
        text += (text.empty() ? "" : "x") + std::to_string(extent);
    }
    return text;
}

std::vector<int64_t> unflatten(int64_t index, std::vector<int64_t> const& dims)
{
    std::vector<int64_t> position(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;)
    {
        int64_t const extent = std::max<int64_t>(dims[i], 1);
        position[i] = index % extent;
        index /= extent;
    }
    return position;
}

std::string indexText(std::vector<int64_t> const& index)
{
    std::string text = "[";
    for (std::size_t i = 0; i < index.size(); ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(index[i]);
    }
    return text + "]";
}

TensorValues valuesOf(IoTensor const& tensor)
{
    TensorValues values;
    values.name = tensor.name;
    values.type = std::string(typeName(tensor.type));
    values.dims = dimsOf(tensor.dims);
    int64_t const count = elementCount(values.dims);
    values.values.resize(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        values.values[static_cast<std::size_t>(i)] = readValue(tensor.host, tensor.type, i);
    }
    return values;
}

InputTensor inputOf(IoTensor const& tensor, std::string source)
{
    InputTensor input;
    input.name = tensor.name;
    input.type = tensor.type;
    input.dims = dimsOf(tensor.dims);
    auto const* bytes = static_cast<char const*>(tensor.host);
    input.bytes.assign(bytes, bytes + tensor.bytes);
    input.source = std::move(source);
    return input;
}

std::vector<TensorValues> readOutputsJson(std::string const& path)
{
    std::vector<char> const bytes = readFile(path, "--loadOutputs");
    json const document = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
    std::string const where = "--loadOutputs: " + path;
    if (!document.is_array())
    {
        throw Failure(where
            + " is not a JSON array of {\"name\", \"dimensions\", \"values\"} objects (the layout --exportOutput "
              "writes)");
    }
    std::vector<TensorValues> outputs;
    for (std::size_t entry = 0; entry < document.size(); ++entry)
    {
        json const& item = document[entry];
        std::string const which = where + ": entry " + std::to_string(entry);
        if (!item.is_object() || !item.contains("name") || !item["name"].is_string() || !item.contains("dimensions")
            || !item["dimensions"].is_string() || !item.contains("values") || !item["values"].is_array())
        {
            throw Failure(which
                + " is not an object with a string \"name\", a string \"dimensions\" and an array "
                  "\"values\"");
        }
        TensorValues values;
        values.name = item["name"].get<std::string>();
        std::string const dimensions = item["dimensions"].get<std::string>();
        std::optional<std::vector<int64_t>> const dims = parseDimensions(dimensions);
        if (!dims)
        {
            throw Failure(which + " ('" + values.name + "'): the dimensions \"" + dimensions
                + "\" are not extents joined by x (\"2x3x8x8\"; \"\" for a scalar)");
        }
        values.dims = *dims;
        json const& list = item["values"];
        if (static_cast<int64_t>(list.size()) != elementCount(values.dims))
        {
            throw Failure(which + " ('" + values.name + "'): " + std::to_string(list.size())
                + " values for the dimensions " + shapeText(values.dims) + ", which hold "
                + std::to_string(elementCount(values.dims)));
        }
        values.values.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i)
        {
            json const& value = list[i];
            if (value.is_null())
            {
                values.unknownNonFinite.resize(list.size());
                values.unknownNonFinite[i] = true;
                values.values.push_back(std::numeric_limits<double>::quiet_NaN());
            }
            else if (value.is_number())
            {
                values.values.push_back(value.get<double>());
            }
            else
            {
                throw Failure(which + " ('" + values.name + "'): value " + std::to_string(i) + " is " + value.dump()
                    + ", not a number or null");
            }
        }
        outputs.push_back(std::move(values));
    }
    return outputs;
}

} // namespace kiln_tool
