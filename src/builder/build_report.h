// SPDX-License-Identifier: Apache-2.0
// What the builder says about a build, as TensorRT's builder does: at kINFO the network and backend, the layer count
// after each rewrite (fusions, reformats), the memory planned and the time taken; at kVERBOSE every layer of the
// engine with its inputs' and outputs' types and formats and the tactic chosen. Plugins report their own choice and
// timings (plugin_build.cpp, plugin_build_v2.cpp); this is the engine-wide part, through the library's logger.
//
//     BuildReport report(network.name(), model.backend);     // "building network 'x' ..."
//     report.rewrite("epilogue fusion", before, model);       // kVERBOSE when nothing changed
//     report.finish(model);                                   // layers, memory, time
#pragma once

#include "plan/engine_model.h"

#include <chrono>
#include <cstddef>
#include <string>

namespace kiln
{

class BuildReport
{
public:
    //! Logs the start of the build of network name (layers in the network, profiles) for backend.
    BuildReport(std::string name, PlanBackend backend, std::size_t nbLayers, std::size_t nbProfiles);

    //! Logs what pass (a fusion family, the reformats) did to the layer count, which was before.
    void rewrite(char const* pass, std::size_t before, EngineModel const& model) const;

    //! Logs every layer (kVERBOSE), the memory planned and the time since the report began (kINFO).
    void finish(EngineModel const& model) const;

private:
    std::string mName;
    std::chrono::steady_clock::time_point mStart;
};

} // namespace kiln
