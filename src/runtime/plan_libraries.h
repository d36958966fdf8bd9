// SPDX-License-Identifier: Apache-2.0
// The plugin libraries a plan carries (EngineModel::pluginLibraries; IBuilderConfig::setPluginsToSerialize), loaded for
// the engines that need them. For each creator in the plan's inventory, a creator already registered under its name,
// version and namespace is used (the application's takes precedence, and the log says which was used); the libraries
// that provide the others are loaded, which runs their code, so only when the runtime allows it
// (IRuntime::setEngineHostCodeAllowed(true)); without it the plan is refused, naming the libraries and the setting.
// A library is written to an anonymous in-memory file (or, where the runtime's TempfileControlFlags allow no in-memory
// files, a temporary file removed once loaded), checked against its checksum first, loaded, and its missing creators
// registered in the registry the engine's plugins come from. It stays loaded, and its creators registered, while any
// engine uses it: engines of one plan (or of plans carrying the same library) share one load; the last engine's
// destruction deregisters the creators and unloads the library. Execution contexts must be destroyed before their
// engine (as TensorRT requires): their plugins' code lives in the library.
//
//     auto libraries = usePlanLibraries(model, *getPluginRegistry(), PlanLibraryPolicy{runtimeAllowsHostCode});
//     if (!libraries) { ... libraries.error() names the libraries and why ... }
//     engine->setPlanLibraries(std::move(libraries.value()));   // then the engine's plugins are made
#pragma once

#include "core/error.h"
#include "plan/engine_model.h"

#include "NvInferRuntime.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

//! What the runtime allows: IRuntime::setEngineHostCodeAllowed, setTempfileControlFlags and setTemporaryDirectory.
struct PlanLibraryPolicy
{
    bool hostCodeAllowed{};
    bool inMemoryFiles{true};       //!< TempfileControlFlag::kALLOW_IN_MEMORY_FILES
    bool temporaryFiles{true};      //!< TempfileControlFlag::kALLOW_TEMPORARY_FILES
    std::string temporaryDirectory; //!< Empty: $TMPDIR, else /tmp.
};

struct SharedPlanLibrary;

//! What one engine holds of its plan's libraries: those it uses stay loaded, with their creators registered, until it
//! is destroyed (and no other engine uses them).
class PlanLibraries
{
public:
    //! Where the creator of an entry of the plan's inventory that an engine uses comes from.
    enum class Source
    {
        kREGISTERED, //!< Registered before the engine was made: by the application (or by a library it loaded).
        kPLAN,       //!< Registered from a library a plan carries, for this engine or another.
    };

    //! Per library of the plan, in order: whether it is loaded for this engine, and each creator's source.
    struct Status
    {
        bool loaded{};
        std::vector<Source> creators;
    };

    PlanLibraries() = default;
    ~PlanLibraries();
    PlanLibraries(PlanLibraries const&) = delete;
    PlanLibraries& operator=(PlanLibraries const&) = delete;

    std::vector<Status> const& status() const noexcept { return mStatus; }

private:
    friend Expected<std::unique_ptr<PlanLibraries>> usePlanLibraries(
        EngineModel const&, nvinfer1::IPluginRegistry&, PlanLibraryPolicy const&);

    //! Counts this engine among the users of library (once).
    void hold(SharedPlanLibrary& library);

    std::vector<SharedPlanLibrary*> mHeld;
    std::vector<Status> mStatus;
};

//! Makes the creators of model's plugin libraries available in registry for an engine of model, as described above;
//! the error names the libraries and says why they cannot be used (host code not allowed, a corrupted library, one
//! that does not load or no longer provides a creator of its inventory).
Expected<std::unique_ptr<PlanLibraries>> usePlanLibraries(
    EngineModel const& model, nvinfer1::IPluginRegistry& registry, PlanLibraryPolicy const& policy);

} // namespace kiln
