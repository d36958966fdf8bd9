// SPDX-License-Identifier: Apache-2.0
#include "runtime/refitter.h"

#include "core/data_type.h"
#include "core/entry_point.h"
#include "core/float_convert.h"
#include "plan/model_support.h"
#include "plan/refit.h"

#if KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;
using nvinfer1::TensorLocation;
using nvinfer1::WeightsRole;

//! The first value of float weights that converting to type would turn into an infinity, as a message; nullopt when
//! every value fits (validation of IRefitter::setWeightsValidation).
std::optional<std::string> conversionProblem(Weights const& source, DataType type)
{
    if (source.type != DataType::kFLOAT || (type != DataType::kHALF && type != DataType::kBF16))
    {
        return std::nullopt;
    }
    auto const* values = static_cast<uint8_t const*>(source.values);
    for (int64_t i = 0; i < source.count; ++i)
    {
        float value{};
        std::memcpy(&value, values + i * 4, sizeof(value));
        float const converted
            = type == DataType::kHALF ? halfToFloat(floatToHalf(value)) : bf16ToFloat(floatToBf16(value));
        if (std::isfinite(value) && !std::isfinite(converted))
        {
            return cat("value ", i, " (", static_cast<double>(value), ") does not fit in ", dataTypeName(type),
                ", the type the engine keeps these weights in");
        }
    }
    return std::nullopt;
}

} // namespace

Refitter::Refitter(Engine& engine, nvinfer1::ILogger& logger)
    : mEngine(engine)
    , mLogger(logger)
    , mGiven(refit().weights.size())
    , mUses(refit().weights.size())
{
    mImpl = &mImplObject;
    auto const& layers = mEngine.program().model().layers;
    for (std::size_t l = 0; l < layers.size(); ++l)
    {
        for (int32_t slot = 0; slot < kRefitSlots; ++slot)
        {
            int32_t const entry = layers[l].refit[static_cast<std::size_t>(slot)];
            if (entry >= 0)
            {
                mUses[static_cast<std::size_t>(entry)].emplace_back(static_cast<int32_t>(l), slot);
            }
        }
    }
}

Refitter::~Refitter() noexcept = default;

std::string Refitter::describe(int32_t entry) const
{
    RefitWeightsRecord const& record = refit().weights[static_cast<std::size_t>(entry)];
    std::string const layer = cat("layer ", quotedText(record.layer), ", ", weightsRoleName(record.role));
    return record.name.empty() ? "the weights of " + layer : cat("weights ", quotedText(record.name), " (", layer, ")");
}

std::vector<int32_t> Refitter::named(char const* method, char const* name) const
{
    std::vector<int32_t> entries;
    if (name == nullptr)
    {
        mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the weights name is null");
        return entries;
    }
    for (std::size_t e = 0; e < refit().weights.size(); ++e)
    {
        if (refit().weights[e].name == name)
        {
            entries.push_back(static_cast<int32_t>(e));
        }
    }
    if (entries.empty())
    {
        mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the engine has no refittable weights called ",
            quotedText(name), " (getAllWeights lists the ", namesOf(allEntries()).size(),
            " it has; weights are named with INetworkDefinition::setWeightsName)");
    }
    return entries;
}

bool Refitter::acceptable(char const* method, int32_t entry, Weights const& weights, TensorLocation location) const
{
    RefitWeightsRecord const& record = refit().weights[static_cast<std::size_t>(entry)];
    if (weights.type != record.type || weights.count != record.count)
    {
        mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": ", describe(entry), " take ", record.count,
            " elements of ", dataTypeName(record.type), "; the weights given have ", weights.count, " elements of ",
            isValidEnum(weights.type) ? dataTypeName(weights.type) : "an invalid type");
        return false;
    }
    if (weights.values == nullptr)
    {
        mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the values given for ", describe(entry), " are null");
        return false;
    }
    if (!isValidEnum(location))
    {
        mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": ", location, " is no TensorLocation");
        return false;
    }
#if !KILN_WITH_CUDA
    if (location == TensorLocation::kDEVICE)
    {
        mReporter.error(ErrorCode::kUNSUPPORTED_STATE, method, ": ", describe(entry),
            " are given in device memory, but this kiln was built without CUDA; give them in host memory (kHOST)");
        return false;
    }
#endif
    return true;
}

std::vector<int32_t> Refitter::missing() const
{
    std::vector<int32_t> entries;
    auto const& model = mEngine.program().model();
    BlobFinder const blobs(model.weights);
    for (std::size_t e = 0; e < mUses.size(); ++e)
    {
        bool const absent = std::any_of(mUses[e].begin(), mUses[e].end(), [&](auto const& use) {
            Weights const* field = weightsField(model.layers[static_cast<std::size_t>(use.first)].params, use.second);
            auto const place = field != nullptr ? blobs.find(*field) : std::nullopt;
            return place && model.weights[static_cast<std::size_t>(place->blob)].stripped;
        });
        if (absent && !mGiven[e])
        {
            entries.push_back(static_cast<int32_t>(e));
        }
    }
    return entries;
}

std::vector<int32_t> Refitter::allEntries() const
{
    std::vector<int32_t> entries(refit().weights.size());
    std::iota(entries.begin(), entries.end(), 0);
    return entries;
}

std::vector<char const*> Refitter::namesOf(std::vector<int32_t> const& entries) const
{
    std::vector<char const*> names;
    std::set<std::string> seen;
    for (int32_t const e : entries)
    {
        RefitWeightsRecord const& record = refit().weights[static_cast<std::size_t>(e)];
        if (!record.name.empty() && seen.insert(record.name).second)
        {
            names.push_back(record.name.c_str());
        }
    }
    return names;
}

template <typename T>
int32_t Refitter::listOut(char const* method, std::vector<T> const& list, int32_t size, T* out) const
{
    if (size < 0 || (size > 0 && out == nullptr))
    {
        mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": size is ", size, " and the array is ",
            out == nullptr ? "null" : "given", "; give a size of at least 0, and an array when it is more");
        return -1;
    }
    std::copy_n(list.begin(), std::min<std::size_t>(list.size(), static_cast<std::size_t>(size)), out);
    return static_cast<int32_t>(list.size());
}

std::optional<Error> Refitter::derive(int32_t entry, std::vector<Write>& writes) const
{
    Given const& given = *mGiven[static_cast<std::size_t>(entry)];
    Weights source = given.weights;
    std::vector<uint8_t> staged;
    if (given.location == TensorLocation::kDEVICE)
    {
#if KILN_WITH_CUDA
        staged.resize(static_cast<std::size_t>(storageBytes(source.type, source.count)));
        if (cudaError_t const status = cudaMemcpy(staged.data(), source.values, staged.size(), cudaMemcpyDefault);
            status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return Error{ErrorCode::kFAILED_EXECUTION,
                cat("cannot read ", describe(entry), " from device memory: ", cudaGetErrorString(status))};
        }
        source.values = staged.data();
#endif
    }
    EngineModel const& model = mEngine.program().model();
    BlobFinder const blobs(model.weights);
    for (auto const& [l, slot] : mUses[static_cast<std::size_t>(entry)])
    {
        LayerRecord const& layer = model.layers[static_cast<std::size_t>(l)];
        Weights const* field = weightsField(layer.params, slot);
        auto const place = field != nullptr ? blobs.find(*field) : std::nullopt;
        if (!place)
        {
            return Error{ErrorCode::kINTERNAL_ERROR,
                cat(describe(entry), ": engine layer ", quotedText(layer.name), " keeps them outside its blobs")};
        }
        if (mValidation)
        {
            if (auto problem = conversionProblem(source, field->type))
            {
                return Error{ErrorCode::kINVALID_ARGUMENT,
                    cat(describe(entry), ": ", *problem, " (layer ", quotedText(layer.name), ")")};
            }
        }
        auto bytes = storedWeights(model, layer, slot, source);
        if (!bytes)
        {
            return Error{bytes.error().code, cat(describe(entry), ": ", bytes.error().message)};
        }
        writes.push_back(Write{place->blob, place->offset, std::move(bytes.value())});
    }
    return std::nullopt;
}

bool Refitter::refit(char const* method, cudaStream_t stream, bool synchronous)
{
    if (std::vector<int32_t> const absent = missing(); !absent.empty())
    {
        mReporter.error(ErrorCode::kINVALID_STATE, method, ": ", absent.size(),
            " refittable weights are not in the engine (it was built with BuilderFlag::kSTRIP_PLAN) and were not given, ",
            "the first: ", describe(absent.front()), "; give every weights getMissingWeights or getMissing lists");
        return false;
    }
    std::vector<Write> writes;
    for (std::size_t e = 0; e < mGiven.size(); ++e)
    {
        if (!mGiven[e])
        {
            continue;
        }
        if (auto problem = derive(static_cast<int32_t>(e), writes))
        {
            mReporter.error(problem->code, method, ": ", problem->message, "; the engine is unchanged");
            return false;
        }
    }
    std::vector<WeightsBlob>& blobs = mEngine.refitBlobs();
    std::set<int32_t> touched;
    for (Write const& write : writes)
    {
        WeightsBlob& blob = blobs[static_cast<std::size_t>(write.blob)];
        if (blob.bytes.empty() || write.offset + static_cast<int64_t>(write.bytes.size()) > std::ssize(blob.bytes))
        {
            mReporter.error(ErrorCode::kINTERNAL_ERROR, method, ": weights blob ", write.blob,
                " cannot take the refitted values (it is borrowed or too small)");
            return false;
        }
        std::memcpy(blob.bytes.data() + write.offset, write.bytes.data(), write.bytes.size());
        blob.stripped = false;
        touched.insert(write.blob);
    }
    mEngine.setWeightsMissing(
        std::any_of(blobs.begin(), blobs.end(), [](WeightsBlob const& blob) { return blob.stripped; }));
    std::fill(mGiven.begin(), mGiven.end(), std::nullopt);
    if (WeightsRefresh const& refresh = mEngine.weightsRefresh())
    {
        for (int32_t const b : touched)
        {
            if (auto problem = refresh(blobs[static_cast<std::size_t>(b)], stream))
            {
                mReporter.error(problem->code, method, ": ", problem->message);
                return false;
            }
        }
#if KILN_WITH_CUDA
        if (synchronous)
        {
            if (cudaError_t const status = cudaStreamSynchronize(stream); status != cudaSuccess)
            {
                static_cast<void>(cudaGetLastError());
                mReporter.error(ErrorCode::kFAILED_EXECUTION, method,
                    ": copying the refitted weights to the device: ", cudaGetErrorString(status));
                return false;
            }
        }
#endif
    }
    static_cast<void>(synchronous);
    return true;
}

// ---- IRefitter
// -------------------------------------------------------------------------------------------------------

bool Refitter::Impl::setWeights(char const* layerName, WeightsRole role, Weights const weights) noexcept
{
    constexpr char const* kWhere = "IRefitter::setWeights";
    Refitter& r = mRefitter;
    return r.mReporter.guard(kWhere, false, [&] {
        if (layerName == nullptr)
        {
            r.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": the layer name is null");
            return false;
        }
        if (!isValidEnum(role))
        {
            r.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": layer ", quotedText(layerName), ": ", role,
                " is no WeightsRole");
            return false;
        }
        std::vector<int32_t> matches;
        std::string roles;
        for (std::size_t e = 0; e < r.refit().weights.size(); ++e)
        {
            RefitWeightsRecord const& record = r.refit().weights[e];
            if (record.layer == layerName)
            {
                roles += cat(roles.empty() ? "" : ", ", weightsRoleName(record.role));
                if (record.role == role)
                {
                    matches.push_back(static_cast<int32_t>(e));
                }
            }
        }
        if (matches.size() != 1)
        {
            r.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": layer ", quotedText(layerName),
                matches.empty() ? " has no refittable weights of role "
                                : " is the name of several layers with weights of role ",
                weightsRoleName(role),
                roles.empty() ? std::string(" (no layer of that name has refittable weights; getAll lists them)")
                              : " (its refittable weights: " + roles + ")");
            return false;
        }
        if (!r.acceptable(kWhere, matches.front(), weights, TensorLocation::kHOST))
        {
            return false;
        }
        r.mGiven[static_cast<std::size_t>(matches.front())] = Given{weights, TensorLocation::kHOST};
        return true;
    });
}

bool Refitter::Impl::refitCudaEngine() noexcept
{
    constexpr char const* kWhere = "IRefitter::refitCudaEngine";
    return mRefitter.mReporter.guard(kWhere, false, [&] { return mRefitter.refit(kWhere, nullptr, true); });
}

bool Refitter::Impl::refitCudaEngineAsync(cudaStream_t stream) noexcept
{
    constexpr char const* kWhere = "IRefitter::refitCudaEngineAsync";
    return mRefitter.mReporter.guard(kWhere, false, [&] { return mRefitter.refit(kWhere, stream, false); });
}

int32_t Refitter::Impl::getMissing(int32_t size, char const** layerNames, WeightsRole* roles) noexcept
{
    constexpr char const* kWhere = "IRefitter::getMissing";
    return mRefitter.mReporter.guard(kWhere, -1, [&] {
        std::vector<char const*> names;
        std::vector<WeightsRole> kinds;
        for (int32_t const e : mRefitter.missing())
        {
            names.push_back(mRefitter.refit().weights[static_cast<std::size_t>(e)].layer.c_str());
            kinds.push_back(mRefitter.refit().weights[static_cast<std::size_t>(e)].role);
        }
        int32_t const count = mRefitter.listOut(kWhere, names, size, layerNames);
        return count < 0 ? count : mRefitter.listOut(kWhere, kinds, size, roles);
    });
}

int32_t Refitter::Impl::getAll(int32_t size, char const** layerNames, WeightsRole* roles) noexcept
{
    constexpr char const* kWhere = "IRefitter::getAll";
    return mRefitter.mReporter.guard(kWhere, -1, [&] {
        std::vector<char const*> names;
        std::vector<WeightsRole> kinds;
        for (RefitWeightsRecord const& record : mRefitter.refit().weights)
        {
            names.push_back(record.layer.c_str());
            kinds.push_back(record.role);
        }
        int32_t const count = mRefitter.listOut(kWhere, names, size, layerNames);
        return count < 0 ? count : mRefitter.listOut(kWhere, kinds, size, roles);
    });
}

bool Refitter::Impl::setDynamicRange(char const* tensorName, float /*min*/, float /*max*/) noexcept
{
    mRefitter.mReporter.error(ErrorCode::kUNSUPPORTED_STATE, "IRefitter::setDynamicRange: tensor ",
        quotedText(tensorName), ": kiln fixes dynamic ranges when it builds the engine (use explicit quantization)");
    return false;
}

float Refitter::Impl::getDynamicRangeMin(char const* tensorName) const noexcept
{
    mRefitter.mReporter.error(ErrorCode::kUNSUPPORTED_STATE, "IRefitter::getDynamicRangeMin: tensor ",
        quotedText(tensorName), ": kiln refits no dynamic ranges");
    return 0.F;
}

float Refitter::Impl::getDynamicRangeMax(char const* tensorName) const noexcept
{
    mRefitter.mReporter.error(ErrorCode::kUNSUPPORTED_STATE, "IRefitter::getDynamicRangeMax: tensor ",
        quotedText(tensorName), ": kiln refits no dynamic ranges");
    return 0.F;
}

int32_t Refitter::Impl::getTensorsWithDynamicRange(int32_t /*size*/, char const** /*tensorNames*/) const noexcept
{
    return 0; // kiln refits no dynamic ranges.
}

void Refitter::Impl::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mRefitter.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* Refitter::Impl::getErrorRecorder() const noexcept
{
    return mRefitter.mReporter.recorder();
}

bool Refitter::Impl::setNamedWeights(char const* name, Weights weights) noexcept
{
    return setNamedWeightsWithLocation(name, weights, TensorLocation::kHOST);
}

bool Refitter::Impl::setNamedWeightsWithLocation(char const* name, Weights weights, TensorLocation location) noexcept
{
    constexpr char const* kWhere = "IRefitter::setNamedWeights";
    Refitter& r = mRefitter;
    return r.mReporter.guard(kWhere, false, [&] {
        std::vector<int32_t> const entries = r.named(kWhere, name);
        if (entries.empty() || !r.acceptable(kWhere, entries.front(), weights, location))
        {
            return false;
        }
        for (int32_t const e : entries)
        {
            r.mGiven[static_cast<std::size_t>(e)] = Given{weights, location};
        }
        return true;
    });
}

int32_t Refitter::Impl::getMissingWeights(int32_t size, char const** weightsNames) noexcept
{
    constexpr char const* kWhere = "IRefitter::getMissingWeights";
    return mRefitter.mReporter.guard(kWhere, -1,
        [&] { return mRefitter.listOut(kWhere, mRefitter.namesOf(mRefitter.missing()), size, weightsNames); });
}

int32_t Refitter::Impl::getAllWeights(int32_t size, char const** weightsNames) noexcept
{
    constexpr char const* kWhere = "IRefitter::getAllWeights";
    return mRefitter.mReporter.guard(kWhere, -1,
        [&] { return mRefitter.listOut(kWhere, mRefitter.namesOf(mRefitter.allEntries()), size, weightsNames); });
}

nvinfer1::ILogger* Refitter::Impl::getLogger() const noexcept
{
    return &mRefitter.mLogger;
}

bool Refitter::Impl::setMaxThreads(int32_t maxThreads) noexcept
{
    if (!mRefitter.mReporter.checkAtLeast("IRefitter::setMaxThreads", "maxThreads", maxThreads, 1))
    {
        return false;
    }
    if (maxThreads > 1)
    {
        mRefitter.mReporter.warning("IRefitter::setMaxThreads: kiln refits on one thread; maxThreads ", maxThreads,
            " is kept for getMaxThreads() only");
    }
    mRefitter.mMaxThreads = maxThreads;
    return true;
}

int32_t Refitter::Impl::getMaxThreads() const noexcept
{
    return mRefitter.mMaxThreads;
}

Weights Refitter::Impl::getNamedWeights(char const* weightsName) const noexcept
{
    constexpr char const* kWhere = "IRefitter::getNamedWeights";
    return mRefitter.mReporter.guard(kWhere, Weights{DataType::kFLOAT, nullptr, 0}, [&] {
        std::vector<int32_t> const entries = mRefitter.named(kWhere, weightsName);
        auto const& given = entries.empty() ? std::nullopt : mRefitter.mGiven[static_cast<std::size_t>(entries[0])];
        return given ? given->weights : Weights{DataType::kFLOAT, nullptr, 0};
    });
}

TensorLocation Refitter::Impl::getWeightsLocation(char const* weightsName) const noexcept
{
    constexpr char const* kWhere = "IRefitter::getWeightsLocation";
    return mRefitter.mReporter.guard(kWhere, TensorLocation::kHOST, [&] {
        std::vector<int32_t> const entries = mRefitter.named(kWhere, weightsName);
        auto const& given = entries.empty() ? std::nullopt : mRefitter.mGiven[static_cast<std::size_t>(entries[0])];
        return given ? given->location : TensorLocation::kHOST;
    });
}

bool Refitter::Impl::unsetNamedWeights(char const* weightsName) noexcept
{
    constexpr char const* kWhere = "IRefitter::unsetNamedWeights";
    Refitter& r = mRefitter;
    return r.mReporter.guard(kWhere, false, [&] {
        std::vector<int32_t> const entries = r.named(kWhere, weightsName);
        bool const given = std::any_of(entries.begin(), entries.end(),
            [&](int32_t e) { return r.mGiven[static_cast<std::size_t>(e)].has_value(); });
        if (!entries.empty() && !given)
        {
            r.mReporter.error(ErrorCode::kINVALID_STATE, kWhere, ": no values were given for weights ",
                quotedText(weightsName), " since the last refit");
        }
        for (int32_t const e : entries)
        {
            r.mGiven[static_cast<std::size_t>(e)].reset();
        }
        return given;
    });
}

void Refitter::Impl::setWeightsValidation(bool weightsValidation) noexcept
{
    mRefitter.mValidation = weightsValidation;
}

bool Refitter::Impl::getWeightsValidation() const noexcept
{
    return mRefitter.mValidation;
}

Weights Refitter::Impl::getWeightsPrototype(char const* weightsName) const noexcept
{
    constexpr char const* kWhere = "IRefitter::getWeightsPrototype";
    return mRefitter.mReporter.guard(kWhere, Weights{DataType::kFLOAT, nullptr, -1}, [&] {
        std::vector<int32_t> const entries = mRefitter.named(kWhere, weightsName);
        if (entries.empty())
        {
            return Weights{DataType::kFLOAT, nullptr, -1};
        }
        RefitWeightsRecord const& record = mRefitter.refit().weights[static_cast<std::size_t>(entries[0])];
        return Weights{record.type, nullptr, record.count};
    });
}

// ---- Making refitters
// -------------------------------------------------------------------------------------------------

nvinfer1::IRefitter* Engine::createRefitter(nvinfer1::ILogger& logger) noexcept
{
    constexpr char const* kWhere = "createInferRefitter";
    if (mProgram->model().refit.mode == RefitRecord::Mode::kNONE)
    {
        mReporter.error(ErrorCode::kINVALID_STATE, kWhere, ": the engine (network ", quotedText(mProgram->model().name),
            ") is not refittable; build it with BuilderFlag::kREFIT (or kREFIT_IDENTICAL, kREFIT_INDIVIDUAL, "
            "kSTRIP_PLAN)");
        return nullptr;
    }
    return mReporter.guard(
        kWhere, static_cast<nvinfer1::IRefitter*>(nullptr), [&] { return new Refitter(*this, logger); });
}

} // namespace kiln

extern "C" TENSORRTAPI void* createInferRefitter_INTERNAL(void* engine, void* logger, int32_t version) noexcept
{
    nvinfer1::ILogger* const accepted = kiln::acceptEntryPoint("createInferRefitter", logger, version);
    if (accepted == nullptr)
    {
        return nullptr;
    }
    if (engine == nullptr)
    {
        kiln::log(kiln::Severity::kERROR, "createInferRefitter: the engine is null");
        return nullptr;
    }
    // Every ICudaEngine an application holds was made by kiln.
    auto& made = static_cast<kiln::Engine&>(*static_cast<nvinfer1::ICudaEngine*>(engine));
    return static_cast<nvinfer1::IRefitter*>(made.createRefitter(*accepted));
}
