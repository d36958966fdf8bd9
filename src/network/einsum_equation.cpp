// SPDX-License-Identifier: Apache-2.0
// Where the rules come from: numpy's einsum documentation (implicit and explicit modes, "...", diagonals) and ONNX's
// Einsum operator (onnx.ai, Einsum-12), which follows it; TensorRT's IEinsumLayer reference (labels that must match or
// broadcast). ASCII order for the implicit output is numpy's (it walks the labels by character code).
#include "network/einsum_equation.h"

#include "NvInferRuntime.h"

#include <algorithm>
#include <array>

namespace kiln
{

namespace
{

Error invalid(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

bool isLabel(char c) noexcept
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

//! One term of text (spaces removed); what names it in messages ("term 0", "the output term").
Expected<EinsumTerm> parseTerm(std::string_view text, std::string const& what)
{
    EinsumTerm term;
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        char const c = text[i];
        if (isLabel(c))
        {
            term.letters += c;
            continue;
        }
        if (c == '.')
        {
            if (text.substr(i, 3) != "...")
            {
                return invalid(what + " has a '.' that is not part of \"...\"");
            }
            if (term.ellipsis >= 0)
            {
                return invalid(what + " has \"...\" twice");
            }
            term.ellipsis = static_cast<int32_t>(term.letters.size());
            i += 2;
            continue;
        }
        return invalid(what + " has the character '" + std::string(1, c)
            + "', which is not a label (a-z, A-Z), ',', \"->\" or \"...\"");
    }
    return term;
}

} // namespace

Expected<EinsumEquation> parseEinsum(std::string_view text)
{
    std::string compact;
    for (char const c : text)
    {
        if (c != ' ')
        {
            compact += c;
        }
    }
    std::size_t const arrow = compact.find("->");
    if (arrow != std::string::npos && compact.find("->", arrow + 2) != std::string::npos)
    {
        return invalid("\"->\" appears twice");
    }
    std::string_view const all(compact);
    std::string_view const lhs = all.substr(0, arrow);
    EinsumEquation equation;
    std::size_t start = 0;
    while (true)
    {
        std::size_t const comma = lhs.find(',', start);
        std::string_view const piece
            = lhs.substr(start, comma == std::string_view::npos ? lhs.size() - start : comma - start);
        Expected<EinsumTerm> term = parseTerm(piece, "term " + std::to_string(equation.inputs.size()));
        if (!term)
        {
            return term.error();
        }
        equation.inputs.push_back(std::move(term.value()));
        if (comma == std::string_view::npos)
        {
            break;
        }
        start = comma + 1;
    }
    if (arrow == std::string::npos)
    {
        return equation;
    }
    std::string_view const rhs = all.substr(arrow + 2);
    if (rhs.find(',') != std::string_view::npos)
    {
        return invalid("the output term (after \"->\") has a ','; there is one output");
    }
    Expected<EinsumTerm> output = parseTerm(rhs, "the output term");
    if (!output)
    {
        return output.error();
    }
    std::string const& letters = output.value().letters;
    for (std::size_t i = 0; i < letters.size(); ++i)
    {
        char const c = letters[i];
        if (letters.find(c, i + 1) != std::string::npos)
        {
            return invalid(std::string("the output label '") + c + "' appears twice");
        }
        bool const known = std::any_of(equation.inputs.begin(), equation.inputs.end(),
            [&](EinsumTerm const& term) { return term.letters.find(c) != std::string::npos; });
        if (!known)
        {
            return invalid(std::string("the output label '") + c + "' is in no input term");
        }
    }
    equation.output = std::move(output.value());
    return equation;
}

Expected<EinsumLabels> bindEinsum(EinsumEquation const& equation, std::vector<int32_t> const& ranks)
{
    if (ranks.size() != equation.inputs.size())
    {
        return invalid("the equation has " + std::to_string(equation.inputs.size()) + " input term"
            + (equation.inputs.size() == 1 ? "" : "s") + " but there are " + std::to_string(ranks.size()) + " input"
            + (ranks.size() == 1 ? "" : "s"));
    }
    // The axes each input's "..." stands for, and E, the most of them.
    std::vector<int32_t> ellipsisAxes(ranks.size(), 0);
    int32_t most = 0;
    for (std::size_t i = 0; i < ranks.size(); ++i)
    {
        EinsumTerm const& term = equation.inputs[i];
        auto const letters = static_cast<int32_t>(term.letters.size());
        bool const fits = term.ellipsis >= 0 ? letters <= ranks[i] : letters == ranks[i];
        if (!fits)
        {
            return invalid("term " + std::to_string(i) + " has " + std::to_string(letters) + " label"
                + (letters == 1 ? "" : "s") + (term.ellipsis >= 0 ? " and \"...\"" : "") + " but input "
                + std::to_string(i) + " has rank " + std::to_string(ranks[i]));
        }
        ellipsisAxes[i] = term.ellipsis >= 0 ? ranks[i] - letters : 0;
        most = std::max(most, ellipsisAxes[i]);
    }
    // Symbols: a letter is its character code (0..127), "..." axis j is 128 + j.
    constexpr int32_t kEllipsisBase = 128;
    std::array<int32_t, 128> counts{};
    for (EinsumTerm const& term : equation.inputs)
    {
        for (char const c : term.letters)
        {
            ++counts[static_cast<unsigned char>(c)];
        }
    }
    std::vector<int32_t> outputSymbols;
    if (equation.output)
    {
        EinsumTerm const& out = *equation.output;
        if (most > 0 && out.ellipsis < 0)
        {
            return invalid("\"...\" stands for " + std::to_string(most) + " ax" + (most == 1 ? "is" : "es")
                + " of the inputs but the output term has no \"...\"");
        }
        for (std::size_t k = 0; k <= out.letters.size(); ++k)
        {
            if (static_cast<int32_t>(k) == out.ellipsis)
            {
                for (int32_t j = 0; j < most; ++j)
                {
                    outputSymbols.push_back(kEllipsisBase + j);
                }
            }
            if (k < out.letters.size())
            {
                outputSymbols.push_back(static_cast<unsigned char>(out.letters[k]));
            }
        }
    }
    else
    {
        for (int32_t j = 0; j < most; ++j)
        {
            outputSymbols.push_back(kEllipsisBase + j);
        }
        for (int32_t c = 0; c < 128; ++c)
        {
            if (counts[static_cast<std::size_t>(c)] == 1)
            {
                outputSymbols.push_back(c);
            }
        }
    }
    if (outputSymbols.size() > static_cast<std::size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return invalid("the output would have " + std::to_string(outputSymbols.size()) + " axes; at most "
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + " are possible");
    }
    // Label numbers: the output's symbols in order, then the summed letters in ASCII order.
    std::array<int32_t, kEllipsisBase + nvinfer1::Dims::MAX_DIMS> label{};
    label.fill(-1);
    EinsumLabels labels;
    for (int32_t const symbol : outputSymbols)
    {
        label[static_cast<std::size_t>(symbol)] = labels.nbLabels++;
    }
    labels.nbOutput = labels.nbLabels;
    for (int32_t c = 0; c < 128; ++c)
    {
        if (counts[static_cast<std::size_t>(c)] > 0 && label[static_cast<std::size_t>(c)] < 0)
        {
            label[static_cast<std::size_t>(c)] = labels.nbLabels++;
        }
    }
    for (std::size_t i = 0; i < ranks.size(); ++i)
    {
        EinsumTerm const& term = equation.inputs[i];
        std::vector<int32_t> axes;
        for (std::size_t k = 0; k <= term.letters.size(); ++k)
        {
            if (static_cast<int32_t>(k) == term.ellipsis)
            {
                for (int32_t j = 0; j < ellipsisAxes[i]; ++j)
                {
                    axes.push_back(label[static_cast<std::size_t>(kEllipsisBase + most - ellipsisAxes[i] + j)]);
                }
            }
            if (k < term.letters.size())
            {
                axes.push_back(label[static_cast<unsigned char>(term.letters[k])]);
            }
        }
        labels.inputAxes.push_back(std::move(axes));
    }
    return labels;
}

} // namespace kiln
