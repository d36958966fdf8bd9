// SPDX-License-Identifier: Apache-2.0
// LayerProfile: an IProfiler that sums IProfiler::reportLayerTime per layer over several runs (kiln times a CUDA
// engine's layers with CUDA events while a profiler is set on the context), and prints the mean per layer.
//
//     kiln_bench::LayerProfile profile;
//     context->setProfiler(&profile);
//     for (int run = 0; run < 10; ++run) { context->enqueueV3(stream); }
//     context->setProfiler(nullptr);
//     profile.print(std::cerr, 10);
#pragma once

#include "NvInferRuntime.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace kiln_bench
{

class LayerProfile final : public nvinfer1::IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        auto const found
            = std::find_if(mLayers.begin(), mLayers.end(), [&](auto const& layer) { return layer.first == layerName; });
        if (found == mLayers.end())
        {
            mLayers.emplace_back(layerName, ms);
        }
        else
        {
            found->second += ms;
        }
    }

    std::vector<std::pair<std::string, float>> const& layers() const noexcept { return mLayers; }

    //! One line per layer, "  <mean ms>  <name>", in the order first reported, then the sum and the layer count.
    void print(std::ostream& out, int runs) const
    {
        float total = 0.F;
        for (auto const& [name, ms] : mLayers)
        {
            out << "  " << std::fixed << std::setprecision(4) << ms / runs << "  " << name << "\n";
            total += ms / runs;
        }
        out << "  " << total << "  (" << mLayers.size() << " layers)\n";
    }

private:
    std::vector<std::pair<std::string, float>> mLayers;
};

} // namespace kiln_bench
