// SPDX-License-Identifier: Apache-2.0
#include "builder/build_report.h"

#include "backends/host/reformat.h"
#include "core/data_type.h"
#include "core/logging.h"
#include "network/layer_kinds.h"

#include <numeric>

namespace kiln
{
namespace
{

//! "'x' (kHALF kHWC8)".
std::string tensorText(EngineModel const& model, int32_t index)
{
    if (index < 0 || static_cast<std::size_t>(index) >= model.tensors.size())
    {
        return "(none)";
    }
    TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(index)];
    return "'" + tensor.name + "' (" + dataTypeName(tensor.type) + " " + host::formatName(tensor.format) + ")";
}

std::string tensorsText(EngineModel const& model, std::vector<int32_t> const& indices)
{
    std::string text;
    for (int32_t index : indices)
    {
        text += (text.empty() ? "" : ", ") + tensorText(model, index);
    }
    return text;
}

//! "1.5 MiB (1572864 bytes)".
std::string bytesText(int64_t bytes)
{
    constexpr double kMiB = 1024.0 * 1024.0;
    return std::to_string(static_cast<double>(bytes) / kMiB).substr(0, 8) + " MiB (" + std::to_string(bytes)
        + " bytes)";
}

} // namespace

BuildReport::BuildReport(std::string name, PlanBackend backend, std::size_t nbLayers, std::size_t nbProfiles)
    : mName(std::move(name))
    , mStart(std::chrono::steady_clock::now())
{
    log(Severity::kINFO,
        "building network '" + mName + "' for kiln's " + (backend == PlanBackend::kCUDA ? "CUDA" : "host")
            + " backend: " + std::to_string(nbLayers) + " layers, " + std::to_string(nbProfiles)
            + " optimization profile" + (nbProfiles == 1 ? "" : "s"));
}

void BuildReport::rewrite(char const* pass, std::size_t before, EngineModel const& model) const
{
    std::size_t const after = model.layers.size();
    log(after == before ? Severity::kVERBOSE : Severity::kINFO,
        std::string(pass) + ": " + std::to_string(before) + " -> " + std::to_string(after) + " layers");
}

void BuildReport::finish(EngineModel const& model) const
{
    for (LayerRecord const& layer : model.layers)
    {
        std::string line = "layer '" + layer.name + "' (" + layerClassName(layer.type)
            + "): " + tensorsText(model, layer.inputs) + " -> " + tensorsText(model, layer.outputs);
        if (!layer.tacticName.empty())
        {
            line += ", tactic " + layer.tacticName;
        }
        if (layer.epilogue)
        {
            line += ", fused activation";
        }
        log(Severity::kVERBOSE, line);
    }
    int64_t const weights = std::accumulate(model.weights.begin(), model.weights.end(), int64_t{0},
        [](int64_t sum, WeightsBlob const& blob) { return sum + static_cast<int64_t>(blob.view().size()); });
    std::string memory;
    for (std::size_t p = 0; p < model.profiles.size(); ++p)
    {
        memory += (p == 0 ? "" : ", ") + std::string("profile ") + std::to_string(p) + " "
            + bytesText(model.profiles[p].activationBytes);
    }
    log(Severity::kINFO,
        "network '" + mName + "': " + std::to_string(model.layers.size()) + " layers, "
            + std::to_string(model.tensors.size()) + " tensors; weights " + bytesText(weights) + "; activation memory "
            + bytesText(model.deviceMemorySize) + (memory.empty() ? "" : " (" + memory + ")"));
    auto const elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - mStart).count();
    log(Severity::kINFO,
        "network '" + mName + "': engine built in " + std::to_string(elapsed / 1000.0).substr(0, 6) + " s");
}

} // namespace kiln
