// SPDX-License-Identifier: Apache-2.0
// GELU written with primitive layers (builder/fusion.h, fuseGelu) becomes one activation layer. The exporters write
// its two forms as
//     erf:  y = x * (1 + erf(x / 1.4142135)) * 0.5                         ActivationType::kGELU_ERF
//     tanh: y = 0.5 * x * (1 + tanh(0.7978846 * (x + 0.044715 * x^3)))     ActivationType::kGELU_TANH
// with x / sqrt(2) also as x * 0.70710677, x^3 as Pow(x, 3), (x * x) * x or x * (x * x), the product of x, 0.5 and
// (1 + ...) as (x * s) * 0.5 or (x * 0.5) * s, and every commutative operation in either operand order.
//
// A form matches when its constants are one-element constants (not refittable) within a tolerance of their float32
// values that their stored type allows (a half constant is 1.4140625 for sqrt 2), every x is the same tensor, and every
// tensor between is of x's float type, linear, read only by the next layer of the form and not a network output or
// shape symbol. The form's last layer becomes the activation of x (keeping its name and output); the others are
// removed, their assertions moved to it, and the constants they read are left for removeUnreadLayers.
//
// Matching starts at the last product and walks back through sole readers, so two matches never share a layer.
#include "builder/fusion.h"
#include "builder/fusion_graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <variant>
#include <vector>

namespace kiln
{
namespace
{

using Op = nvinfer1::ElementWiseOperation;

constexpr float kSqrt2 = 1.41421356F;
constexpr float kSqrtHalf = 0.707106781F;
constexpr float kSqrt2OverPi = 0.797884561F;
constexpr float kCubeFactor = 0.044715F;

//! A matched form: the layer that becomes the activation, its input and the layers removed.
struct GeluMatch
{
    int32_t last{-1};
    int32_t x{kNoTensor};
    nvinfer1::ActivationType type{};
    std::vector<int32_t> absorbed;
};

//! The relative distance at which a constant stored as type still stands for a float32 value: a few float ulps, or
//! one ulp of a 16-bit type's shorter mantissa.
float tolerance(DataType type)
{
    switch (type)
    {
    case DataType::kHALF: return 1.F / 1024.F;
    case DataType::kBF16: return 1.F / 128.F;
    default: return 1e-6F;
    }
}

//! Walks one candidate form back from its last layer.
class GeluMatcher
{
public:
    GeluMatcher(EngineModel const& model, Readers const& readers)
        : mModel(model)
        , mReaders(readers)
    {
    }

    std::optional<GeluMatch> match(int32_t last)
    {
        std::optional<std::array<int32_t, 2>> const operands = operandsOf(last, Op::kPROD);
        if (!operands)
        {
            return std::nullopt;
        }
        TensorRecord const& out = tensorAt(mModel, layerAt(mModel, last).outputs[0]);
        if (!pointwiseType(out.type) || out.format != nvinfer1::TensorFormat::kLINEAR)
        {
            return std::nullopt;
        }
        mType = out.type;
        mRank = out.shape.size();
        for (int32_t const first : {0, 1})
        {
            int32_t const p = (*operands)[static_cast<std::size_t>(first)];
            int32_t const q = (*operands)[static_cast<std::size_t>(1 - first)];
            mAbsorbed.clear();
            // (x * s) * 0.5: p is the constant 0.5, q the product of x and s.
            if (near(p, 0.5F))
            {
                if (int32_t const product = interior(q, last); product >= 0)
                {
                    if (std::optional<GeluMatch> found = productOfXAndOnePlus(product, last))
                    {
                        return found;
                    }
                }
            }
            // (x * 0.5) * s: p is x * 0.5, q the sum 1 + ...
            mAbsorbed.clear();
            int32_t const half = interior(p, last);
            std::optional<int32_t> const x = half >= 0 ? otherThanConstant(half, Op::kPROD, 0.5F) : std::nullopt;
            if (x)
            {
                mAbsorbed.push_back(half);
                if (std::optional<GeluMatch> found = onePlus(q, *x, last))
                {
                    return found;
                }
            }
        }
        return std::nullopt;
    }

private:
    //! The two inputs of a plain element-wise layer of op.
    std::optional<std::array<int32_t, 2>> operandsOf(int32_t layer, Op op) const
    {
        LayerRecord const& record = layerAt(mModel, layer);
        if (elementWiseOp(record) != op)
        {
            return std::nullopt;
        }
        return std::array<int32_t, 2>{record.inputs[0], record.inputs[1]};
    }

    //! Whether tensor is a one-element constant standing for value, of a rank that does not widen x's.
    bool near(int32_t tensor, float value) const
    {
        std::optional<float> const constant = scalarConstant(mModel, tensor);
        TensorRecord const& record = tensorAt(mModel, tensor);
        return constant && record.shape.size() <= mRank
            && std::fabs(*constant - value) <= tolerance(record.type) * std::fabs(value);
    }

    //! The layer that makes tensor, when the tensor lies inside the form: of the form's type, linear, read by reader
    //! alone and nothing else; -1 otherwise.
    int32_t interior(int32_t tensor, int32_t reader) const
    {
        TensorRecord const& record = tensorAt(mModel, tensor);
        int32_t const producer = record.producer;
        if (producer < 0 || record.type != mType || record.format != nvinfer1::TensorFormat::kLINEAR
            || record.shape.size() != mRank || soleReader(mReaders, tensor) != reader
            || !plainLayer(layerAt(mModel, producer)))
        {
            return -1;
        }
        return producer;
    }

    //! The other operand of an element-wise layer of op whose one operand is the constant value (for kDIV and kPOW, the
    //! second operand only).
    std::optional<int32_t> otherThanConstant(int32_t layer, Op op, float value) const
    {
        std::optional<std::array<int32_t, 2>> const operands = operandsOf(layer, op);
        if (!operands)
        {
            return std::nullopt;
        }
        if (near((*operands)[1], value))
        {
            return (*operands)[0];
        }
        bool const commutes = op != Op::kDIV && op != Op::kPOW;
        if (commutes && near((*operands)[0], value))
        {
            return (*operands)[1];
        }
        return std::nullopt;
    }

    //! product = x * s (either order), s the sum 1 + ...
    std::optional<GeluMatch> productOfXAndOnePlus(int32_t product, int32_t last)
    {
        std::optional<std::array<int32_t, 2>> const operands = operandsOf(product, Op::kPROD);
        if (!operands)
        {
            return std::nullopt;
        }
        std::vector<int32_t> const before = mAbsorbed;
        for (int32_t const first : {0, 1})
        {
            mAbsorbed = before;
            mAbsorbed.push_back(product);
            int32_t const x = (*operands)[static_cast<std::size_t>(first)];
            int32_t const s = (*operands)[static_cast<std::size_t>(1 - first)];
            if (std::optional<GeluMatch> found = onePlus(s, x, last, product))
            {
                return found;
            }
        }
        return std::nullopt;
    }

    //! s = 1 + erf(...) or 1 + tanh(...) of x, read by reader; last is the form's last layer.
    std::optional<GeluMatch> onePlus(int32_t s, int32_t x, int32_t last, int32_t reader = -1)
    {
        TensorRecord const& input = tensorAt(mModel, x);
        if (input.type != mType || input.shape.size() != mRank)
        {
            return std::nullopt;
        }
        int32_t const sum = interior(s, reader >= 0 ? reader : last);
        std::optional<int32_t> const e = sum >= 0 ? otherThanConstant(sum, Op::kSUM, 1.F) : std::nullopt;
        int32_t const function = e ? interior(*e, sum) : -1;
        if (function < 0)
        {
            return std::nullopt;
        }
        mAbsorbed.push_back(sum);
        mAbsorbed.push_back(function);
        LayerRecord const& f = layerAt(mModel, function);
        std::optional<nvinfer1::ActivationType> type;
        if (auto const* unary = std::get_if<UnaryParams>(&f.params);
            unary != nullptr && unary->op == nvinfer1::UnaryOperation::kERF && erfArgument(f.inputs[0], x, function))
        {
            type = nvinfer1::ActivationType::kGELU_ERF;
        }
        else if (auto const* activation = std::get_if<ActivationParams>(&f.params); activation != nullptr
                 && activation->type == nvinfer1::ActivationType::kTANH && tanhArgument(f.inputs[0], x, function))
        {
            type = nvinfer1::ActivationType::kGELU_TANH;
        }
        if (!type)
        {
            return std::nullopt;
        }
        return GeluMatch{last, x, *type, mAbsorbed};
    }

    //! d = x / sqrt(2) or x * (1 / sqrt(2)), read by reader.
    bool erfArgument(int32_t d, int32_t x, int32_t reader)
    {
        int32_t const scaling = interior(d, reader);
        if (scaling < 0
            || (otherThanConstant(scaling, Op::kDIV, kSqrt2) != x
                && otherThanConstant(scaling, Op::kPROD, kSqrtHalf) != x))
        {
            return false;
        }
        mAbsorbed.push_back(scaling);
        return true;
    }

    //! u = sqrt(2 / pi) * (x + 0.044715 * x^3), read by reader.
    bool tanhArgument(int32_t u, int32_t x, int32_t reader)
    {
        int32_t const scaling = interior(u, reader);
        std::optional<int32_t> const v
            = scaling >= 0 ? otherThanConstant(scaling, Op::kPROD, kSqrt2OverPi) : std::nullopt;
        int32_t const sum = v ? interior(*v, scaling) : -1;
        std::optional<std::array<int32_t, 2>> const addends = sum >= 0 ? operandsOf(sum, Op::kSUM) : std::nullopt;
        if (!addends || ((*addends)[0] == x) == ((*addends)[1] == x))
        {
            return false;
        }
        int32_t const w = (*addends)[0] == x ? (*addends)[1] : (*addends)[0];
        int32_t const term = interior(w, sum);
        std::optional<int32_t> const cube = term >= 0 ? otherThanConstant(term, Op::kPROD, kCubeFactor) : std::nullopt;
        int32_t const power = cube ? interior(*cube, term) : -1;
        if (power < 0 || !cubeOf(power, x))
        {
            return false;
        }
        mAbsorbed.insert(mAbsorbed.end(), {scaling, sum, term, power});
        return true;
    }

    //! Whether layer computes x^3: Pow(x, 3), (x * x) * x or x * (x * x) (the square then absorbed too).
    bool cubeOf(int32_t layer, int32_t x)
    {
        if (otherThanConstant(layer, Op::kPOW, 3.F) == x)
        {
            return true;
        }
        std::optional<std::array<int32_t, 2>> const factors = operandsOf(layer, Op::kPROD);
        if (!factors || ((*factors)[0] == x) == ((*factors)[1] == x))
        {
            return false;
        }
        int32_t const square = interior((*factors)[0] == x ? (*factors)[1] : (*factors)[0], layer);
        if (square < 0 || operandsOf(square, Op::kPROD) != std::array<int32_t, 2>{x, x})
        {
            return false;
        }
        mAbsorbed.push_back(square);
        return true;
    }

    EngineModel const& mModel;
    Readers const& mReaders;
    DataType mType{};
    std::size_t mRank{};
    std::vector<int32_t> mAbsorbed;
};

} // namespace

int32_t fuseGelu(EngineModel& model)
{
    Readers const readers = readersOf(model);
    GeluMatcher matcher(model, readers);
    std::size_t const nbLayers = model.layers.size();
    std::vector<int32_t> movedTo(nbLayers, -1);
    std::vector<bool> taken(nbLayers, false);
    bool fused = false;
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        std::optional<GeluMatch> const found = matcher.match(static_cast<int32_t>(l));
        if (!found || taken[l] || std::any_of(found->absorbed.begin(), found->absorbed.end(), [&](int32_t a) {
                return taken[static_cast<std::size_t>(a)];
            }))
        {
            continue;
        }
        taken[l] = true;
        for (int32_t const absorbed : found->absorbed)
        {
            taken[static_cast<std::size_t>(absorbed)] = true;
            movedTo[static_cast<std::size_t>(absorbed)] = static_cast<int32_t>(l);
        }
        LayerRecord& layer = model.layers[l];
        layer.type = LayerType::kACTIVATION;
        layer.params = ActivationParams{found->type};
        layer.inputs = {found->x};
        fused = true;
    }
    if (!fused)
    {
        return 0;
    }
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        if (movedTo[l] < 0)
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const removed = static_cast<int32_t>(nbLayers - sequence.size());
    keepLayers(model, sequence, movedTo);
    return removed;
}

} // namespace kiln
