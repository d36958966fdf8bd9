// SPDX-License-Identifier: Apache-2.0
// A direct loop: for each output element, every combination of the summed labels' indices, the product of the
// inputs' elements there, summed in double.
#include "backends/host/einsum.h"

#include "backends/host/data_movement.h"
#include "network/einsum_equation.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "einsum: " + message};
}

} // namespace

Expected<EinsumGeometry> einsumGeometry(EinsumParams const& params, std::span<Dims const> shapes)
{
    if (shapes.empty() || shapes.size() > static_cast<std::size_t>(kMaxEinsumInputs))
    {
        return invalid(
            std::to_string(shapes.size()) + " inputs; an Einsum takes 1 to " + std::to_string(kMaxEinsumInputs));
    }
    std::vector<int32_t> ranks;
    for (Dims const& dims : shapes)
    {
        if (!isValidShape(dims))
        {
            return invalid("the shape " + shapeString(dims) + " is not concrete");
        }
        ranks.push_back(dims.nbDims);
    }
    Expected<EinsumEquation> const parsed = parseEinsum(params.equation);
    if (!parsed)
    {
        return invalid("the equation \"" + params.equation + "\": " + parsed.error().message);
    }
    Expected<EinsumLabels> const bound = bindEinsum(parsed.value(), ranks);
    if (!bound)
    {
        return invalid("the equation \"" + params.equation + "\": " + bound.error().message);
    }
    EinsumLabels const& labels = bound.value();
    if (labels.nbLabels > kMaxEinsumLabels)
    {
        return invalid("the equation has " + std::to_string(labels.nbLabels) + " labels; at most "
            + std::to_string(kMaxEinsumLabels) + " are possible");
    }
    EinsumGeometry g;
    g.nbInputs = static_cast<int32_t>(shapes.size());
    g.nbOutput = labels.nbOutput;
    g.nbLabels = labels.nbLabels;
    for (int32_t k = 0; k < g.nbLabels; ++k)
    {
        g.extents[k] = -1;
    }
    for (std::size_t i = 0; i < shapes.size(); ++i)
    {
        for (int32_t a = 0; a < shapes[i].nbDims; ++a)
        {
            int64_t const extent = shapes[i].d[a];
            int64_t& known = g.extents[labels.inputAxes[i][static_cast<std::size_t>(a)]];
            if (known < 0 || known == 1)
            {
                known = extent;
            }
            else if (extent != 1 && extent != known)
            {
                return invalid("the equation \"" + params.equation + "\" gives one label to axes of extents "
                    + std::to_string(known) + " and " + std::to_string(extent) + " (input " + std::to_string(i) + " "
                    + shapeString(shapes[i]) + ")");
            }
        }
    }
    for (std::size_t i = 0; i < shapes.size(); ++i)
    {
        Index const strides = rowMajorStrides(shapes[i]);
        for (int32_t a = 0; a < shapes[i].nbDims; ++a)
        {
            if (shapes[i].d[a] != 1)
            {
                g.strides[i][labels.inputAxes[i][static_cast<std::size_t>(a)]] += strides[static_cast<std::size_t>(a)];
            }
        }
    }
    // The labels' extents come from different inputs (an extent 1 broadcasts), so their products are checked: each
    // with its zeros taken as 1, then the two together, the terms the kernels loop over.
    std::optional<int64_t> spans[2] = {1, 1};
    bool empty[2] = {false, false};
    for (int32_t k = 0; k < g.nbLabels; ++k)
    {
        int32_t const which = k < g.nbOutput ? 0 : 1;
        empty[which] = empty[which] || g.extents[k] == 0;
        spans[which] = spans[which] ? checkedProduct(*spans[which], std::max<int64_t>(g.extents[k], 1)) : std::nullopt;
    }
    if (!spans[0] || !spans[1] || !checkedProduct(*spans[0], *spans[1]))
    {
        return invalid(
            "the equation \"" + params.equation + "\" multiplies its labels' extents past a 64-bit count of terms");
    }
    g.outputCount = empty[0] ? 0 : *spans[0];
    g.sumCount = empty[1] ? 0 : *spans[1];
    return g;
}

Expected<TensorDesc> inferEinsum(EinsumParams const& params, std::span<TensorDesc const> inputs)
{
    std::vector<Dims> shapes;
    for (TensorDesc const& input : inputs)
    {
        if (!contains(kEinsumTypes, input.type) || input.type != inputs.front().type)
        {
            return invalid(std::string("the inputs are ") + dataTypeName(inputs.front().type) + " and "
                + dataTypeName(input.type) + "; an Einsum takes inputs of one type (" + typeSetString(kEinsumTypes)
                + ")");
        }
        shapes.push_back(input.dims);
    }
    Expected<EinsumGeometry> const g = einsumGeometry(params, shapes);
    if (!g)
    {
        return g.error();
    }
    Dims out{g.value().nbOutput, {}};
    for (int32_t k = 0; k < out.nbDims; ++k)
    {
        out.d[k] = g.value().extents[k];
    }
    return TensorDesc{inputs.front().type, out};
}

Status runEinsum(EinsumParams const& params, std::span<HostTensor const> inputs, HostTensor const& out)
{
    std::vector<TensorDesc> descs;
    std::vector<Dims> shapes;
    for (HostTensor const& input : inputs)
    {
        descs.push_back({input.type, input.dims});
        shapes.push_back(input.dims);
    }
    Expected<TensorDesc> const desc = inferEinsum(params, descs);
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (std::optional<Error> const error = checkTensor(inputs[i], "input " + std::to_string(i)))
        {
            return invalid(error->message);
        }
    }
    if (std::optional<Error> const error = checkTensor(out, "output"))
    {
        return invalid(error->message);
    }
    EinsumGeometry const g = einsumGeometry(params, shapes).value();
    for (int64_t o = 0; o < g.outputCount; ++o)
    {
        double sum = 0.0;
        for (int64_t s = 0; s < g.sumCount; ++s)
        {
            int64_t offsets[kMaxEinsumInputs];
            einsumOffsets(g, o, s, offsets);
            double product = 1.0;
            for (int32_t j = 0; j < g.nbInputs; ++j)
            {
                product *= loadFloat(inputs[static_cast<std::size_t>(j)], offsets[j]);
            }
            sum += product;
        }
        storeFloat(out, o, sum);
    }
    return Done{};
}

} // namespace kiln::host
