// SPDX-License-Identifier: Apache-2.0
// IRefitter: new values for an engine's refittable weights (plan/refit.h), given by layer and role or by name, then
// written into the engine in one step. createInferRefitter (createInferRefitter_INTERNAL) and
// ICudaEngine's createRefitter make one for an engine built refittable.
//
//     std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(*engine, logger)};
//     refitter->setNamedWeights("w", newValues);   // the type and count of getWeightsPrototype("w")
//     refitter->refitCudaEngine();                 // every layer that holds a form of "w" gets the new values
//
// A refit first derives what every layer stores from the values given (a copy, a type conversion, a channels-last
// kernel: storedWeights), and only when every derivation succeeded writes them into the engine's blobs, so a failed
// refit leaves the engine as it was. A CUDA engine's device copy of each rewritten blob is then updated on the stream.
// The engine's contexts must not run during a refit. Weights a plan left out (kSTRIP_PLAN) are "missing" until a
// refit gives them; until then the engine's contexts refuse to run.
#pragma once

#include "network/report.h"
#include "runtime/engine.h"

#include "NvInferRuntime.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln
{

class Refitter final : public nvinfer1::IRefitter
{
public:
    //! A refitter of engine, which must be refittable and outlive it.
    Refitter(Engine& engine, nvinfer1::ILogger& logger);
    ~Refitter() noexcept override;

private:
    //! Weights given for one entry of the engine's refittable weights, until the next refit.
    struct Given
    {
        Weights weights;
        nvinfer1::TensorLocation location{nvinfer1::TensorLocation::kHOST};
    };

    //! One rewrite of a blob's bytes that a refit makes.
    struct Write
    {
        int32_t blob{};
        int64_t offset{};
        std::vector<uint8_t> bytes;
    };

    class Impl final : public nvinfer1::apiv::VRefitter
    {
    public:
        explicit Impl(Refitter& refitter)
            : mRefitter(refitter)
        {
        }

        nvinfer1::IRefitter* getPImpl() noexcept override { return &mRefitter; }
        bool setWeights(char const* layerName, nvinfer1::WeightsRole role, Weights const weights) noexcept override;
        bool refitCudaEngine() noexcept override;
        int32_t getMissing(int32_t size, char const** layerNames, nvinfer1::WeightsRole* roles) noexcept override;
        int32_t getAll(int32_t size, char const** layerNames, nvinfer1::WeightsRole* roles) noexcept override;
        bool setDynamicRange(char const* tensorName, float min, float max) noexcept override;
        float getDynamicRangeMin(char const* tensorName) const noexcept override;
        float getDynamicRangeMax(char const* tensorName) const noexcept override;
        int32_t getTensorsWithDynamicRange(int32_t size, char const** tensorNames) const noexcept override;
        void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
        nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
        bool setNamedWeights(char const* name, Weights weights) noexcept override;
        int32_t getMissingWeights(int32_t size, char const** weightsNames) noexcept override;
        int32_t getAllWeights(int32_t size, char const** weightsNames) noexcept override;
        nvinfer1::ILogger* getLogger() const noexcept override;
        bool setMaxThreads(int32_t maxThreads) noexcept override;
        int32_t getMaxThreads() const noexcept override;
        bool setNamedWeightsWithLocation(
            char const* name, Weights weights, nvinfer1::TensorLocation location) noexcept override;
        Weights getNamedWeights(char const* weightsName) const noexcept override;
        nvinfer1::TensorLocation getWeightsLocation(char const* weightsName) const noexcept override;
        bool unsetNamedWeights(char const* weightsName) noexcept override;
        void setWeightsValidation(bool weightsValidation) noexcept override;
        bool getWeightsValidation() const noexcept override;
        bool refitCudaEngineAsync(cudaStream_t stream) noexcept override;
        Weights getWeightsPrototype(char const* weightsName) const noexcept override;

    private:
        Refitter& mRefitter;
    };

    RefitRecord const& refit() const noexcept { return mEngine.program().model().refit; }

    //! The entries called name; reports method's error and returns none for a null or unknown name.
    std::vector<int32_t> named(char const* method, char const* name) const;
    //! Whether weights may be given for entry (type, count, values, location); else reports method's error.
    bool acceptable(char const* method, int32_t entry, Weights const& weights, nvinfer1::TensorLocation location) const;
    //! The entries whose values the engine lacks (left out of the plan) and that were not given since.
    std::vector<int32_t> missing() const;
    //! Every entry.
    std::vector<int32_t> allEntries() const;
    //! The distinct names of entries, in entry order (unnamed entries left out).
    std::vector<char const*> namesOf(std::vector<int32_t> const& entries) const;
    //! Writes the first size items of list to out (size and out checked for method); returns the list's size.
    template <typename T>
    int32_t listOut(char const* method, std::vector<T> const& list, int32_t size, T* out) const;
    //! `weights "w" (layer "conv", kKERNEL)`.
    std::string describe(int32_t entry) const;
    //! The refit itself (see the file comment); synchronous waits for stream.
    bool refit(char const* method, cudaStream_t stream, bool synchronous);
    //! The blob rewrites entry's given values make, appended to writes; an error names the weights and the layer.
    std::optional<Error> derive(int32_t entry, std::vector<Write>& writes) const;

    Impl mImplObject{*this};
    Engine& mEngine;
    nvinfer1::ILogger& mLogger;
    Reporter mReporter;
    std::vector<std::optional<Given>> mGiven;                    //!< Per entry of refit().weights.
    std::vector<std::vector<std::pair<int32_t, int32_t>>> mUses; //!< Per entry: the (layer, slot) holding it.
    int32_t mMaxThreads{1};
    bool mValidation{true};
};

} // namespace kiln
