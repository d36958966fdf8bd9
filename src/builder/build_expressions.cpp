// SPDX-License-Identifier: Apache-2.0
// The build step's shape expressions: the part of the expression DAG that the engine's tensors and assertions use,
// copied into the model with the symbols it refers to.
#include "builder/build_passes.h"

#include <algorithm>

#include <map>
#include <set>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

//! Copies the part of the expression DAG the engine uses into EngineModel::exprs and ::symbols. Nodes keep their
//! creation order, so operands come before the operations that use them.
class ExprExport
{
public:
    explicit ExprExport(ExprContext const& exprs)
        : mExprs(exprs)
    {
    }

    //! Adds expr and every node it refers to.
    void add(DimExpr const* expr)
    {
        std::vector<DimExpr const*> pending{expr};
        while (!pending.empty())
        {
            DimExpr const* node = pending.back();
            pending.pop_back();
            if (node == nullptr || !mNodes.emplace(node->id(), node).second)
            {
                continue;
            }
            if (node->kind() == DimExpr::Kind::kOPERATION)
            {
                pending.push_back(node->lhs());
                pending.push_back(node->rhs());
            }
            else if (node->kind() == DimExpr::Kind::kSYMBOL)
            {
                mSymbols.insert(node->symbol());
                SymbolInfo const& info = mExprs.symbolInfo(node->symbol());
                pending.push_back(info.optimum);
                pending.push_back(info.upperBound);
            }
        }
    }

    void add(SymbolicDims const& dims)
    {
        for (DimExpr const* expr : dims)
        {
            add(expr);
        }
    }

    //! Writes the nodes and symbols added into model; tensors maps each kept tensor to its index there, layerIndex
    //! each kept layer to its position in the engine.
    std::optional<Error> write(EngineModel& model, NetworkShapes const& shapes,
        std::unordered_map<Tensor const*, int32_t> const& tensors,
        std::unordered_map<Layer const*, int32_t> const& layerIndex)
    {
        for (SymbolId symbol : mSymbols)
        {
            SymbolInfo const& info = mExprs.symbolInfo(symbol);
            SymbolRecord record{info.name, info.kind};
            if (info.kind == SymbolKind::kSIZE_TENSOR)
            {
                // The size tensor is the output whose one value is the symbol, made by the layer that declared it
                // (a plugin, a non-zero or an NMS layer). Layers downstream may pass the value on (a Shape layer of an
                // output sized by it holds it too): the earliest layer's output is the declaring one.
                Tensor const* made = nullptr;
                int32_t madeAt = 0;
                for (auto const& [tensor, symbolic] : shapes.tensors)
                {
                    auto const& values = symbolic.values;
                    auto const layer
                        = tensor->producer() != nullptr ? layerIndex.find(tensor->producer()) : layerIndex.end();
                    if (values && values->size() == 1 && values->front()->kind() == DimExpr::Kind::kSYMBOL
                        && values->front()->symbol() == symbol && tensors.count(tensor) != 0
                        && layer != layerIndex.end() && (made == nullptr || layer->second < madeAt))
                    {
                        made = tensor;
                        madeAt = layer->second;
                    }
                }
                if (made == nullptr)
                {
                    return Error{ErrorCode::kINTERNAL_ERROR,
                        "the size tensor " + info.name + " is not among the engine's tensors"};
                }
                record.tensor = tensors.at(made);
            }
            else
            {
                auto const source = shapes.sources.find(symbol);
                auto const tensor = source != shapes.sources.end() ? tensors.find(source->second.owner) : tensors.end();
                if (tensor == tensors.end())
                {
                    return Error{ErrorCode::kINTERNAL_ERROR,
                        "the symbol " + info.name + " has no source tensor among the engine's tensors"};
                }
                record.tensor = tensor->second;
                record.index = source->second.index;
            }
            mSymbolIndex[symbol] = static_cast<uint32_t>(model.symbols.size());
            model.symbols.push_back(std::move(record));
        }
        for (auto const& [id, node] : mNodes)
        {
            ExprRecord record;
            record.kind = node->kind();
            record.value = node->value();
            if (node->kind() == DimExpr::Kind::kSYMBOL)
            {
                record.symbol = mSymbolIndex.at(node->symbol());
            }
            if (node->kind() == DimExpr::Kind::kOPERATION)
            {
                record.op = node->op();
                record.lhs = index(node->lhs());
                record.rhs = index(node->rhs());
            }
            mIndex[id] = static_cast<uint32_t>(model.exprs.size());
            model.exprs.push_back(record);
        }
        for (SymbolId symbol : mSymbols)
        {
            SymbolInfo const& info = mExprs.symbolInfo(symbol);
            SymbolRecord& record = model.symbols[mSymbolIndex.at(symbol)];
            record.optimum = info.optimum != nullptr ? static_cast<int32_t>(index(info.optimum)) : -1;
            record.upperBound = info.upperBound != nullptr ? static_cast<int32_t>(index(info.upperBound)) : -1;
        }
        return std::nullopt;
    }

    //! The index in EngineModel::exprs of a node added and written.
    uint32_t index(DimExpr const* expr) const { return mIndex.at(expr->id()); }

    std::vector<uint32_t> indices(SymbolicDims const& dims) const
    {
        std::vector<uint32_t> result;
        for (DimExpr const* expr : dims)
        {
            result.push_back(index(expr));
        }
        return result;
    }

private:
    ExprContext const& mExprs;
    std::map<uint32_t, DimExpr const*> mNodes; //!< By id: creation order.
    std::set<SymbolId> mSymbols;
    std::map<SymbolId, uint32_t> mSymbolIndex;
    std::map<uint32_t, uint32_t> mIndex;
};

} // namespace

std::optional<Error> exportShapes(EngineModel& model, ExprContext const& exprs, NetworkShapes const& shapes,
    KeptTensors const& tensors, std::vector<Layer const*> const& order)
{
    std::unordered_map<Layer const*, int32_t> layerIndex;
    for (std::size_t l = 0; l < order.size(); ++l)
    {
        layerIndex[order[l]] = static_cast<int32_t>(l);
    }
    ExprExport exported(exprs);
    for (Tensor const* tensor : tensors.list)
    {
        SymbolicTensor const& symbolic = shapes.tensors.at(tensor);
        exported.add(*symbolic.shape);
        if (symbolic.values)
        {
            exported.add(*symbolic.values);
        }
    }
    for (LayerAssertion const& entry : shapes.assertions)
    {
        if (layerIndex.count(entry.layer) != 0)
        {
            exported.add(entry.assertion.condition);
        }
    }
    if (auto problem = exported.write(model, shapes, tensors.index, layerIndex))
    {
        return problem;
    }
    for (std::size_t t = 0; t < tensors.list.size(); ++t)
    {
        SymbolicTensor const& symbolic = shapes.tensors.at(tensors.list[t]);
        model.tensors[t].shape = exported.indices(*symbolic.shape);
        if (symbolic.values)
        {
            model.tensors[t].values = exported.indices(*symbolic.values);
        }
    }
    for (LayerAssertion const& entry : shapes.assertions)
    {
        if (auto const found = layerIndex.find(entry.layer); found != layerIndex.end())
        {
            model.assertions.push_back(
                AssertionRecord{exported.index(entry.assertion.condition), entry.assertion.message, found->second});
        }
    }
    return std::nullopt;
}

} // namespace kiln
