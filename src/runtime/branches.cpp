// SPDX-License-Identifier: Apache-2.0
#include "runtime/branches.h"
#include "plan/tensor_readers.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace kiln
{

namespace
{

//! Builds the tree of branch nodes, one per (condition, side, parent).
class BranchTree
{
public:
    explicit BranchTree(std::vector<BranchNode>& nodes)
        : mNodes(nodes)
    {
    }

    int32_t child(int32_t parent, int32_t condition, bool onTrue)
    {
        auto const key = std::make_tuple(parent, condition, onTrue);
        if (auto const found = mIndex.find(key); found != mIndex.end())
        {
            return found->second;
        }
        mNodes.push_back(BranchNode{condition, onTrue, parent});
        auto const index = static_cast<int32_t>(mNodes.size() - 1);
        mIndex.emplace(key, index);
        return index;
    }

    int32_t depth(int32_t node) const
    {
        int32_t d = 0;
        for (; node >= 0; node = mNodes[static_cast<std::size_t>(node)].parent)
        {
            ++d;
        }
        return d;
    }

    //! The closest branch that encloses both a and b (-1: none, the layer always runs).
    int32_t join(int32_t a, int32_t b) const
    {
        int32_t da = depth(a);
        int32_t db = depth(b);
        for (; da > db; --da)
        {
            a = mNodes[static_cast<std::size_t>(a)].parent;
        }
        for (; db > da; --db)
        {
            b = mNodes[static_cast<std::size_t>(b)].parent;
        }
        while (a != b)
        {
            a = mNodes[static_cast<std::size_t>(a)].parent;
            b = mNodes[static_cast<std::size_t>(b)].parent;
        }
        return a;
    }

private:
    std::vector<BranchNode>& mNodes;
    std::map<std::tuple<int32_t, int32_t, bool>, int32_t> mIndex;
};

} // namespace

Branches findBranches(EngineModel const& model)
{
    Branches branches;
    std::size_t const nbLayers = model.layers.size();
    branches.layers.assign(nbLayers, -1);
    bool const any = std::any_of(model.layers.begin(), model.layers.end(),
        [](LayerRecord const& layer) { return layer.type == LayerType::kCONDITIONAL_OUTPUT; });
    if (!any)
    {
        return branches;
    }
    // Per tensor, the layers that read it and at which input.
    auto const readers = tensorReaders(model);
    BranchTree tree(branches.nodes);
    // Readers come after their producers: from the last layer back, every reader's branch is known.
    for (std::size_t l = nbLayers; l-- > 0;)
    {
        LayerRecord const& layer = model.layers[l];
        bool always = false;
        bool read = false;
        int32_t branch = -1;
        for (int32_t output : layer.outputs)
        {
            auto const t = static_cast<std::size_t>(output);
            always = always || model.tensors[t].isOutput;
            for (auto const& [reader, input] : readers[t])
            {
                LayerRecord const& readerLayer = model.layers[reader];
                int32_t under = branches.layers[reader];
                if (readerLayer.type == LayerType::kCONDITIONAL_OUTPUT && input < 2 && readerLayer.inputs.size() == 3)
                {
                    under = tree.child(under, readerLayer.inputs[2], input == 0);
                }
                branch = read ? tree.join(branch, under) : under;
                read = true;
            }
        }
        if (always || !read)
        {
            continue;
        }
        // Out of every branch whose condition is not known yet when the layer runs.
        int32_t kept = branch;
        for (int32_t node = branch; node >= 0; node = branches.nodes[static_cast<std::size_t>(node)].parent)
        {
            int32_t const producer
                = model.tensors[static_cast<std::size_t>(branches.nodes[static_cast<std::size_t>(node)].condition)]
                      .producer;
            if (producer < 0 || static_cast<std::size_t>(producer) >= l)
            {
                kept = branches.nodes[static_cast<std::size_t>(node)].parent;
            }
        }
        branches.layers[l] = kept;
    }
    return branches;
}

} // namespace kiln
