// SPDX-License-Identifier: Apache-2.0
#include "plan/loops.h"
#include "plan/tensor_readers.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string>

namespace kiln
{

namespace
{

//! The loop a boundary layer names, or -1 for another kind.
int32_t boundaryLoop(LayerRecord const& layer) noexcept
{
    if (auto const* p = std::get_if<TripLimitParams>(&layer.params))
    {
        return p->loop;
    }
    if (auto const* p = std::get_if<RecurrenceParams>(&layer.params))
    {
        return p->loop;
    }
    if (auto const* p = std::get_if<IteratorParams>(&layer.params))
    {
        return p->loop;
    }
    if (auto const* p = std::get_if<LoopOutputParams>(&layer.params))
    {
        return p->loop;
    }
    return -1;
}

Error loopError(LayerRecord const& layer, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE, "layer '" + layer.name + "': " + message};
}

} // namespace

Expected<Loops> findLoops(EngineModel const& model)
{
    Loops loops;
    std::size_t const nbLayers = model.layers.size();
    loops.layers.assign(nbLayers, -1);
    std::map<int32_t, std::size_t> blockOf; // loop index -> block
    std::vector<int32_t> loopOfLayer(nbLayers, -1);
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        int32_t const loop = boundaryLoop(model.layers[l]);
        if (loop >= 0)
        {
            loopOfLayer[l] = loop;
            blockOf.emplace(loop, 0);
        }
    }
    if (blockOf.empty())
    {
        return loops;
    }
    auto const readers = tensorReaders(model);
    // The body: forward from the iterators' and recurrences' outputs, stopping at the loop's outputs.
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        LayerRecord const& seed = model.layers[l];
        if (seed.type != LayerType::kITERATOR && seed.type != LayerType::kRECURRENCE)
        {
            continue;
        }
        int32_t const loop = loopOfLayer[l];
        std::vector<int32_t> pending(seed.outputs.begin(), seed.outputs.end());
        while (!pending.empty())
        {
            auto const t = static_cast<std::size_t>(pending.back());
            pending.pop_back();
            for (auto const& [reader, input] : readers[t])
            {
                LayerRecord const& layer = model.layers[reader];
                if (isLoopBackEdge(layer, input))
                {
                    continue;
                }
                int32_t const other = boundaryLoop(layer);
                if (other >= 0 && other != loop)
                {
                    return loopError(layer, "a loop inside another loop is not supported yet by kiln");
                }
                if (other == loop)
                {
                    continue; // a boundary layer of the loop: a member already; its outputs are outside
                }
                if (loopOfLayer[reader] == loop)
                {
                    continue;
                }
                if (loopOfLayer[reader] >= 0)
                {
                    return loopError(layer,
                        "it reads values of two loops; a loop inside another loop is not "
                        "supported yet by kiln");
                }
                loopOfLayer[reader] = loop;
                pending.insert(pending.end(), layer.outputs.begin(), layer.outputs.end());
            }
        }
    }
    // Blocks in the order of their first member.
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        int32_t const loop = loopOfLayer[l];
        if (loop < 0)
        {
            continue;
        }
        auto& block = blockOf[loop];
        if (block == 0)
        {
            loops.blocks.emplace_back();
            loops.blocks.back().loop = loop;
            block = loops.blocks.size();
        }
        LoopBlock& b = loops.blocks[block - 1];
        loops.layers[l] = static_cast<int32_t>(block - 1);
        auto const index = static_cast<int32_t>(l);
        b.members.push_back(index);
        LayerRecord const& layer = model.layers[l];
        switch (layer.type)
        {
        case LayerType::kTRIP_LIMIT: b.tripLimits.push_back(index); break;
        case LayerType::kITERATOR: b.iterators.push_back(index); break;
        case LayerType::kRECURRENCE: b.recurrences.push_back(index); break;
        case LayerType::kLOOP_OUTPUT:
        {
            b.outputs.push_back(index);
            auto const& p = std::get<LoopOutputParams>(layer.params);
            if (p.kind == nvinfer1::LoopOutput::kLAST_VALUE)
            {
                int32_t const producer = layer.inputs.empty() || layer.inputs[0] < 0
                    ? -1
                    : model.tensors[static_cast<std::size_t>(layer.inputs[0])].producer;
                bool const recurrence = producer >= 0
                    && model.layers[static_cast<std::size_t>(producer)].type == LayerType::kRECURRENCE
                    && loopOfLayer[static_cast<std::size_t>(producer)] == loop;
                if (!recurrence)
                {
                    return loopError(layer, "a kLAST_VALUE output must read a recurrence of its loop");
                }
            }
            break;
        }
        default: break;
        }
    }
    // The layers each kWHILE condition depends on, within the body.
    for (LoopBlock& block : loops.blocks)
    {
        bool hasCount = false;
        for (int32_t limit : block.tripLimits)
        {
            LayerRecord const& layer = model.layers[static_cast<std::size_t>(limit)];
            if (std::get<TripLimitParams>(layer.params).kind != nvinfer1::TripLimit::kWHILE)
            {
                hasCount = true;
                continue;
            }
            std::vector<int32_t> pending{layer.inputs.at(0)};
            while (!pending.empty())
            {
                int32_t const producer = model.tensors[static_cast<std::size_t>(pending.back())].producer;
                pending.pop_back();
                if (producer < 0 || loops.layers[static_cast<std::size_t>(producer)] < 0
                    || model.layers[static_cast<std::size_t>(producer)].type == LayerType::kRECURRENCE
                    || std::find(block.conditionLayers.begin(), block.conditionLayers.end(), producer)
                        != block.conditionLayers.end())
                {
                    continue;
                }
                block.conditionLayers.push_back(producer);
                for (int32_t input : model.layers[static_cast<std::size_t>(producer)].inputs)
                {
                    if (input >= 0)
                    {
                        pending.push_back(input);
                    }
                }
            }
            std::sort(block.conditionLayers.begin(), block.conditionLayers.end());
        }
        if (block.tripLimits.empty())
        {
            return loopError(model.layers[static_cast<std::size_t>(block.members.front())],
                "its loop has no trip limit; add one with ILoop::addTripLimit");
        }
        static_cast<void>(hasCount);
    }
    return loops;
}

std::vector<int32_t> loopOrder(EngineModel const& model, Loops const& loops)
{
    // Nodes: each layer outside loops, and each loop block; a block stands where its first member is.
    std::size_t const nbLayers = model.layers.size();
    auto const nodeOf = [&](std::size_t l) -> std::size_t {
        int32_t const block = loops.layers[l];
        return block < 0 ? l : static_cast<std::size_t>(loops.blocks[static_cast<std::size_t>(block)].members.front());
    };
    std::vector<std::vector<std::size_t>> successors(nbLayers);
    std::vector<int32_t> pendingInputs(nbLayers, 0);
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        LayerRecord const& layer = model.layers[l];
        for (std::size_t i = 0; i < layer.inputs.size(); ++i)
        {
            if (layer.inputs[i] < 0 || isLoopBackEdge(layer, i))
            {
                continue;
            }
            int32_t const producer = model.tensors[static_cast<std::size_t>(layer.inputs[i])].producer;
            if (producer < 0)
            {
                continue;
            }
            std::size_t const from = nodeOf(static_cast<std::size_t>(producer));
            std::size_t const to = nodeOf(l);
            if (from != to)
            {
                successors[from].push_back(to);
                ++pendingInputs[to];
            }
        }
    }
    // Kahn's algorithm, the earliest ready node first: the order changes only where loops require it.
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        if (nodeOf(l) == l && pendingInputs[l] == 0)
        {
            ready.push(l);
        }
    }
    std::vector<int32_t> order;
    while (!ready.empty())
    {
        std::size_t const node = ready.top();
        ready.pop();
        int32_t const block = loops.layers[node];
        if (block < 0)
        {
            order.push_back(static_cast<int32_t>(node));
        }
        else
        {
            auto const& members = loops.blocks[static_cast<std::size_t>(block)].members;
            order.insert(order.end(), members.begin(), members.end());
        }
        for (std::size_t next : successors[node])
        {
            if (--pendingInputs[next] == 0)
            {
                ready.push(next);
            }
        }
    }
    return order; // shorter than the layers when a loop's output feeds back into the loop
}

} // namespace kiln
