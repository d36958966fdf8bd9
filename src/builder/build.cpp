// SPDX-License-Identifier: Apache-2.0
// The build step (builder/build.h), in passes:
// 1. Refuse what the graph alone tells: no outputs, I/O that may not be linear, dynamic or shape inputs without an
//    optimization profile (or a profile that leaves one out; build_memory.cpp).
// 2. Infer every shape symbolically (the whole network), and evaluate the shapes against each profile.
// 3. Keep the layers that lead to an output or a debug tensor (dead-layer elimination), in topological order; the
// tensors are every
//    network input, then the outputs of the layers kept. Quantized tensors take their scale from the dynamic range.
// 4. Per layer: ask the backend (Backend::checkLayer) whether it runs the layer at each profile's kMIN, kOPT and kMAX
//    shapes, and keep the layer's weights in the model (copied, or borrowed for a plan: WeightsKeeper); a plugin
//    layer runs the plugin build protocol instead (plugin_build.cpp: formats, tactics timed through the timing cache,
//    the fields to serialize). Progress is reported here, one step per layer.
// 5. Export the shape expressions the engine uses, their symbols and the assertions (build_expressions.cpp).
// 6. Plan activation memory per profile (build_memory.cpp).
#include "builder/build.h"

#include "backends/host/reformat.h"
#if KILN_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gpu_allocator.h"
#endif
#include "builder/build_passes.h"
#include "builder/build_report.h"
#include "builder/fusion.h"
#include "builder/layout.h"
#include "builder/plugin_libraries.h"
#include "builder/precision.h"
#include "builder/timing_cache.h"
#include "core/data_type.h"
#include "core/logging.h"
#include "plan/loops.h"
#include "plugin/plugin_v3.h"
#include "plugin/v2_handles.h"
#include "runtime/shape_values.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

//! The one phase the progress monitor sees: one step per layer of the engine.
constexpr char const* kBuildPhase = "Building engine";

// ---- 1. Refusals from the graph alone -------------------------------------------------------------------------------

std::optional<Error> checkIo(Network const& network)
{
    if (network.outputs().empty())
    {
        return invalid("network '" + network.name() + "' has no outputs; mark one with INetworkDefinition::markOutput");
    }
    constexpr auto kLinear = 1U << static_cast<uint32_t>(nvinfer1::TensorFormat::kLINEAR);
    for (auto const* io : {&network.inputs(), &network.outputs()})
    {
        for (Tensor const* tensor : *io)
        {
            if ((tensor->allowedFormats() & kLinear) == 0)
            {
                return invalid(describeIo(*tensor)
                    + ": its allowed formats (ITensor::setAllowedFormats) exclude kLINEAR, the only format kiln's host "
                      "backend supports");
            }
        }
    }
    return std::nullopt;
}

//! The loop a recurrence, iterator or loop output layer belongs to, or -1.
int32_t loopOfBoundary(Layer const& layer) noexcept
{
    switch (layer.type())
    {
    case LayerType::kRECURRENCE: return layer.paramsAs<RecurrenceParams>().loop;
    case LayerType::kITERATOR: return layer.paramsAs<IteratorParams>().loop;
    case LayerType::kLOOP_OUTPUT: return layer.paramsAs<LoopOutputParams>().loop;
    default: return -1;
    }
}

//! The layers that some network output or debug tensor depends on (a debug tensor is read by the application, as an
//! output is); a live loop keeps its trip limits, which have no outputs.
std::set<Layer const*> liveLayers(Network const& network)
{
    std::set<Layer const*> live;
    std::set<int32_t> liveLoops;
    std::vector<Tensor const*> pending(network.outputs().begin(), network.outputs().end());
    for (auto const& layer : network.layers())
    {
        for (Tensor const* output : layer->outputs())
        {
            if (output->isDebug())
            {
                pending.push_back(output);
            }
        }
    }
    auto const keep = [&](Layer const* layer) {
        if (!live.insert(layer).second)
        {
            return;
        }
        for (Tensor const* input : layer->inputs())
        {
            if (input != nullptr)
            {
                pending.push_back(input);
            }
        }
        if (int32_t const loop = loopOfBoundary(*layer); loop >= 0 && liveLoops.insert(loop).second)
        {
            for (auto const& other : network.layers())
            {
                if (other->type() == LayerType::kTRIP_LIMIT && other->paramsAs<TripLimitParams>().loop == loop)
                {
                    for (Tensor const* input : other->inputs())
                    {
                        pending.push_back(input);
                    }
                    live.insert(other.get());
                }
            }
        }
    };
    while (!pending.empty())
    {
        Layer const* producer = pending.back()->producer();
        pending.pop_back();
        if (producer != nullptr)
        {
            keep(producer);
        }
    }
    return live;
}

//! The tensors that hold quantization codes of explicit quantization: a quantize layer's output, a dequantize layer's
//! data input, and the zero points of both. Their elements are the codes themselves, so their scale is 1 and they need
//! no dynamic range.
std::set<Tensor const*> codeTensors(Network const& network)
{
    std::set<Tensor const*> codes;
    for (auto const& layer : network.layers())
    {
        bool const quantize = layer->type() == LayerType::kQUANTIZE;
        if (!quantize && layer->type() != LayerType::kDEQUANTIZE)
        {
            continue;
        }
        if (quantize)
        {
            codes.insert(layer->outputs().front());
        }
        else if (Tensor const* data = layer->input(0))
        {
            codes.insert(data);
        }
        if (Tensor const* zeroPoint = layer->input(2))
        {
            codes.insert(zeroPoint);
        }
    }
    return codes;
}

//! The quantization scale of a tensor: 1 for the codes of explicit quantization (codeTensors), else its dynamic range
//! over the type's largest value for kINT8 and kFP8, else 1.
Expected<float> scaleOf(Tensor const& tensor, bool stronglyTyped, bool isCodes)
{
    DataType const type = tensor.type();
    if ((type != DataType::kINT8 && type != DataType::kFP8) || isCodes)
    {
        return 1.0F;
    }
    auto const range = tensor.dynamicRange();
    if (!range)
    {
        if (type == DataType::kINT8 && !stronglyTyped)
        {
            return invalid("tensor '" + tensor.name()
                + "' is kINT8 but has no dynamic range; set one with ITensor::setDynamicRange");
        }
        return 1.0F;
    }
    float const magnitude = std::max(std::fabs(range->first), std::fabs(range->second));
    if (!(magnitude > 0.0F) || !std::isfinite(magnitude))
    {
        std::string text = "tensor '" + tensor.name() + "' is " + dataTypeName(type) + " with the dynamic range [";
        message::append(text, static_cast<double>(range->first));
        text += ", ";
        message::append(text, static_cast<double>(range->second));
        return invalid(text + "]; a quantized tensor needs a finite range that is not [0, 0]");
    }
    return magnitude / (type == DataType::kINT8 ? 127.0F : 448.0F);
}

// ---- 4. The backend's verdict on a layer at one point of a profile -------------------------------------------------

//! "the host backend", as messages name it.
std::string backendName(PlanBackend kind)
{
    return kind == PlanBackend::kCUDA ? "the CUDA backend" : "the host backend";
}

//! "kFLOAT [1, 3], none": a query's inputs, for messages.
std::string describeInputs(LayerQuery const& query)
{
    std::string text;
    for (auto const& input : query.inputs)
    {
        text += text.empty() ? "" : ", ";
        if (!input)
        {
            text += "none";
            continue;
        }
        text += std::string(dataTypeName(input->desc.type)) + " " + host::shapeString(input->desc.dims);
    }
    return text.empty() ? "none" : text;
}

Dims atPoint(ConcreteShape const& shape, std::size_t point)
{
    return point == 0 ? shape.min : point == 1 ? shape.opt : shape.max;
}

//! What the backend is asked about layer at one point of a profile, or nullopt where the profile does not bound an
//! input's shape (it is data-dependent).
std::optional<LayerQuery> queryAt(Layer const& layer, ConcreteShapes const& profile, std::size_t point)
{
    LayerQuery query;
    for (Tensor const* input : layer.inputs())
    {
        if (input == nullptr)
        {
            query.inputs.emplace_back();
            continue;
        }
        auto const found = profile.tensors.find(input);
        if (found == profile.tensors.end())
        {
            return std::nullopt;
        }
        auto const& values = found->second.values;
        query.inputs.push_back(LayerQuery::Input{host::TensorDesc{input->type(), atPoint(found->second, point)},
            values ? std::optional((*values)[point]) : std::nullopt});
    }
    for (Tensor const* output : layer.outputs())
    {
        query.outputTypes.push_back(output->type());
    }
    return query;
}

//! Asks backend about layer at the kMIN, kOPT and kMAX points of every profile, and compares its answer with the
//! output's type and shape; the first refusal names the layer, the profile, the point and the input types and shapes.
//! Points where a shape is data-dependent, or where the answer depends on values known only at run time, are skipped.
std::optional<Error> checkLayer(Backend const& backend, Layer const& layer, std::vector<ConcreteShapes> const& profiles)
{
    if (layer.outputs().empty())
    {
        return std::nullopt;
    }
    Tensor const& output = *layer.outputs().front();
    std::string const name = backendName(backend.kind());
    for (std::size_t p = 0; p < profiles.size(); ++p)
    {
        auto const shape = profiles[p].tensors.find(&output);
        if (shape == profiles[p].tensors.end())
        {
            continue; // a data-dependent output
        }
        for (std::size_t point = 0; point < kPointNames.size(); ++point)
        {
            std::optional<LayerQuery> const query = queryAt(layer, profiles[p], point);
            if (!query)
            {
                continue;
            }
            auto const made = backend.checkLayer(layer.params(), *query);
            std::string const where = profileName(p) + ", " + kPointNames[point];
            if (!made)
            {
                return invalid(describeLayer(layer) + ": " + name + " cannot run it at " + where + " (inputs "
                    + describeInputs(*query) + "): " + made.error().message);
            }
            if (!made.value())
            {
                continue;
            }
            host::TensorDesc const& desc = *made.value();
            if (desc.type != output.type())
            {
                return invalid(describeLayer(layer) + ": output 0 '" + output.name() + "' is "
                    + dataTypeName(output.type()) + ", but " + name + "'s kernel makes " + dataTypeName(desc.type)
                    + " from inputs " + describeInputs(*query) + " (kiln inserts no casts yet; add an ICastLayer)");
            }
            Dims const expected = atPoint(shape->second, point);
            if (!host::sameShape(desc.dims, expected))
            {
                return Error{ErrorCode::kINTERNAL_ERROR,
                    describeLayer(layer) + ": at " + where + ", shape inference gives output 0 the shape "
                        + host::shapeString(expected) + " but " + name + "'s kernel makes "
                        + host::shapeString(desc.dims)};
            }
        }
    }
    return std::nullopt;
}

// ---- 4. Plugin layers -----------------------------------------------------------------------------------------------

//! The timing cache a build uses: the config's, or one of the build's own (so identical plugin instances are timed
//! once even without a cache set), or none with BuilderFlag::kDISABLE_TIMING_CACHE.
struct BuildTimingCache
{
    std::unique_ptr<TimingCache> own;
    TimingCache* cache{};
};

Expected<BuildTimingCache> timingCacheFor(BuildSettings const& settings)
{
    BuildTimingCache result;
    if (hasFlag(settings, nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE))
    {
        return result;
    }
    if (settings.timingCache != nullptr)
    {
        result.cache = &TimingCache::of(*settings.timingCache);
        return result;
    }
    result.own = std::make_unique<TimingCache>(hostTimingCacheIdentity(), false, nullptr);
    result.cache = result.own.get();
    return result;
}

//! How the host backend builds plugins: through kiln's host capability, on host memory, in kLINEAR.
PluginBuildInputs hostPluginInputs(BuildSettings const& settings, NetworkShapes const& shapes,
    std::vector<ConcreteShapes> const& profiles, TimingCache* cache, std::function<float(Tensor const&)> scaleOf)
{
    PluginBuildInputs in{
        settings, shapes, profiles, std::move(scaleOf), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
    in.cache = cache;
    in.errorOnCacheMiss = hasFlag(settings, nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS);
    in.aliasedIo
        = (settings.previewFeatures & (1U << static_cast<uint32_t>(nvinfer1::PreviewFeature::kALIASED_PLUGIN_IO_10_03)))
        != 0;
    in.needHost = true;
    in.formatsFor = [](DataType type, Dims const& declared) {
        // Formats the host reformat kernels can give the tensor, the channel extent fixed for the vectorized ones.
        // The DLA formats are for DLA engines only.
        std::vector<nvinfer1::TensorFormat> formats{nvinfer1::TensorFormat::kLINEAR};
        Dims probe = declared;
        for (int32_t j = 0; j < probe.nbDims; ++j)
        {
            probe.d[j] = probe.d[j] < 0 ? 1 : probe.d[j];
        }
        for (host::FormatRule const& rule : host::formatRules())
        {
            bool const dla = rule.format == nvinfer1::TensorFormat::kDLA_LINEAR
                || rule.format == nvinfer1::TensorFormat::kDLA_HWC4;
            if (rule.format == nvinfer1::TensorFormat::kLINEAR || dla)
            {
                continue;
            }
            auto const layout = host::formatLayout(rule.format, type, probe);
            if (layout && layout.value().vectorizedDim >= 0 && declared.d[layout.value().vectorizedDim] >= 0)
            {
                formats.push_back(rule.format);
            }
        }
        return formats;
    };
    in.bytesFor = [](DataType type, Dims const& dims, nvinfer1::TensorFormat format) -> Expected<int64_t> {
        return host::formatBytes(format, type, dims);
    };
    in.reformatCost = [](DataType type, Dims const& dims, nvinfer1::TensorFormat from,
                          nvinfer1::TensorFormat to) -> Expected<float> {
        auto const fromBytes = host::formatBytes(from, type, dims);
        auto const toBytes = host::formatBytes(to, type, dims);
        if (!fromBytes || !toBytes)
        {
            return fromBytes ? toBytes.error() : fromBytes.error();
        }
        std::vector<std::byte> source(static_cast<std::size_t>(std::max<int64_t>(fromBytes.value(), 1)));
        std::vector<std::byte> target(static_cast<std::size_t>(std::max<int64_t>(toBytes.value(), 1)));
        auto const start = std::chrono::steady_clock::now();
        auto const done = host::reformat(host::HostTensor{source.data(), type, dims, 1.0F}, from,
            host::HostTensor{target.data(), type, dims, 1.0F}, to);
        if (!done)
        {
            return done.error();
        }
        return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    in.enqueue
        = [](V3Capabilities const& caps, nvinfer1::PluginTensorDesc const* inputDesc,
              nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
              void* workspace) { return caps.host->enqueueHost(inputDesc, outputDesc, inputs, outputs, workspace); };
    in.enqueueName = "enqueueHost()";
    return in;
}

#if KILN_WITH_CUDA
//! The stream a CUDA build runs and times plugins on.
class BuildStream
{
public:
    BuildStream()
    {
        if (cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking) != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            mStream = nullptr;
        }
    }
    ~BuildStream()
    {
        if (mStream != nullptr)
        {
            static_cast<void>(cudaStreamSynchronize(mStream));
            static_cast<void>(cudaStreamDestroy(mStream));
        }
    }
    BuildStream(BuildStream const&) = delete;
    BuildStream& operator=(BuildStream const&) = delete;
    cudaStream_t get() const noexcept { return mStream; }

private:
    cudaStream_t mStream{};
};

//! How the CUDA backend builds plugins: enqueue() on device memory and a stream, timed with CUDA events; the host
//! backend's formats (the CUDA reformat kernels take every format the host's do), reformats costed by their bytes.
void useCudaForPlugins(PluginBuildInputs& in, cudaStream_t stream)
{
    in.needHost = false;
    in.device = in.settings.builderAllocator != nullptr ? in.settings.builderAllocator : &cuda::defaultGpuAllocator();
    in.stream = stream;
    in.reformatCost = [](DataType type, Dims const& dims, nvinfer1::TensorFormat from,
                          nvinfer1::TensorFormat to) -> Expected<float> {
        auto const fromBytes = host::formatBytes(from, type, dims);
        auto const toBytes = host::formatBytes(to, type, dims);
        if (!fromBytes || !toBytes)
        {
            return fromBytes ? toBytes.error() : fromBytes.error();
        }
        // One kernel launch reading and writing the tensor at about 2 TB/s.
        constexpr float kLaunchMilliseconds = 0.004F;
        constexpr float kBytesPerMillisecond = 2.0e9F;
        return kLaunchMilliseconds + static_cast<float>(fromBytes.value() + toBytes.value()) / kBytesPerMillisecond;
    };
    in.enqueue = [stream](V3Capabilities const& caps, nvinfer1::PluginTensorDesc const* inputDesc,
                     nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
                     void* workspace) {
        return caps.runtime->enqueue(inputDesc, outputDesc, inputs, outputs, workspace, stream);
    };
    in.enqueueName = "enqueue()";
}
#endif

//! The backend settings ask for: KILN_BACKEND ("host" or "cuda") when set, else the CUDA backend where a GPU can be
//! used and cuDNN and cuBLASLt load, else the host. Where a GPU can be used but a library cannot be loaded, the host
//! is chosen with a warning that names the library (once per process).
Expected<PlanBackend> backendAsked()
{
    char const* asked = std::getenv("KILN_BACKEND");
    std::string const name = asked != nullptr ? asked : "";
    if (name == "host")
    {
        return PlanBackend::kHOST;
    }
    if (!name.empty() && name != "cuda")
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "KILN_BACKEND is '" + name + "'; it takes 'host' or 'cuda' (or is unset: the GPU when there is one)"};
    }
    std::string const refusal = "KILN_BACKEND=cuda asks for the CUDA backend, but ";
#if KILN_WITH_CUDA
    if (!cuda::gpuUsable())
    {
        if (name == "cuda")
        {
            return Error{ErrorCode::kUNSUPPORTED_STATE, refusal + "no GPU can be used here"};
        }
        return PlanBackend::kHOST;
    }
    // The libraries are opened here, where there is a GPU, the first time a build asks.
    if (std::optional<Error> const missing = cuda::loadBackendLibraries())
    {
        if (name == "cuda")
        {
            return Error{ErrorCode::kUNSUPPORTED_STATE, refusal + missing->message};
        }
        static std::once_flag warned;
        std::call_once(warned, [&] {
            log(Severity::kWARNING,
                "a GPU can be used, but not kiln's CUDA backend: " + missing->message
                    + "; builds are for the host backend");
        });
        return PlanBackend::kHOST;
    }
    return PlanBackend::kCUDA;
#else
    if (name == "cuda")
    {
        return Error{ErrorCode::kUNSUPPORTED_STATE, refusal + "this kiln was built without it"};
    }
    return PlanBackend::kHOST;
#endif
}

//! The types and formats a plugin layer chose for its data inputs and outputs.
struct ChosenIo
{
    std::vector<DataType> types;
    std::vector<nvinfer1::TensorFormat> formats;
};

//! The types and formats each plugin layer chose, by the layer's index in the engine.
using ChosenFormats = std::map<std::size_t, ChosenIo>;

//! After model.layers moved (old layer l is now newIndex[l]): every tensor's producer and every assertion's layer.
void renumberLayers(EngineModel& model, std::vector<int32_t> const& newIndex);

//! Orders each loop's layers as one block (plan/loops.h); an error for a loop nested in another or one that reads its
//! own output.
std::optional<Error> orderLoops(EngineModel& model);

//! Puts a cast (where the plugin chose another type than the tensor's) and a reformat layer (an identity between two
//! formats, where it chose a format other than kLINEAR) before each plugin input, and after each plugin output the
//! reformat then the cast, then renumbers producers and assertions. Each tensor added is named after the one it is a
//! twin of: "x (kHALF)", "x (kHALF) (kHWC)".
void insertReformats(EngineModel& model, KeptTensors& kept, ChosenFormats const& chosen)
{
    if (chosen.empty())
    {
        return;
    }
    insertAround(model, [&](std::size_t l, LayerRecord& layer) {
        AroundLayer around;
        auto const found = chosen.find(l);
        if (found == chosen.end())
        {
            return around;
        }
        ChosenIo const& io = found->second;
        std::size_t const nbData = io.formats.size() - layer.outputs.size();
        // A twin of tensor in type (linear), or in format.
        auto const typedTwin = [&](int32_t tensor, DataType type) {
            int32_t const twin = addTwinTensor(
                model, kept, tensor, " (" + std::string(dataTypeName(type)) + ")", nvinfer1::TensorFormat::kLINEAR);
            model.tensors[static_cast<std::size_t>(twin)].type = type;
            model.tensors[static_cast<std::size_t>(twin)].values.reset();
            return twin;
        };
        for (std::size_t i = 0; i < io.formats.size(); ++i)
        {
            nvinfer1::TensorFormat const format = io.formats[i];
            DataType const type = io.types[i];
            std::string const formatName = host::formatName(format);
            if (i < nbData)
            {
                std::string const name = layer.name + " input " + std::to_string(i);
                int32_t current = layer.inputs[i];
                if (model.tensors[static_cast<std::size_t>(current)].type != type)
                {
                    int32_t const cast = typedTwin(current, type);
                    around.before.push_back(castLayer(name + " to " + dataTypeName(type), current, cast, type));
                    current = cast;
                }
                if (format != nvinfer1::TensorFormat::kLINEAR)
                {
                    int32_t const formatted = addTwinTensor(model, kept, current, " (" + formatName + ")", format);
                    around.before.push_back(identityLayer(name + " to " + formatName, current, formatted));
                    current = formatted;
                }
                layer.inputs[i] = current;
                continue;
            }
            // The plugin writes the formatted tensor; the reformat makes it linear, then the cast gives it the type.
            std::size_t const o = i - nbData;
            std::string const name = layer.name + " output " + std::to_string(o);
            int32_t current = layer.outputs[o];
            std::vector<LayerRecord> after; // in reverse order
            DataType const declared = model.tensors[static_cast<std::size_t>(current)].type;
            if (declared != type)
            {
                int32_t const cast = typedTwin(current, type);
                after.push_back(castLayer(name + " to " + dataTypeName(declared), cast, current, declared));
                current = cast;
            }
            if (format != nvinfer1::TensorFormat::kLINEAR)
            {
                int32_t const formatted = addTwinTensor(model, kept, current, " (" + formatName + ")", format);
                after.push_back(identityLayer(name + " from " + formatName, formatted, current));
                current = formatted;
            }
            layer.outputs[o] = current;
            std::move(after.rbegin(), after.rend(), std::back_inserter(around.after));
        }
        return around;
    });
}

//! The aliased inputs a V3 plugin layer records, or nullptr.
std::vector<int32_t>* aliasesOf(LayerRecord& layer)
{
    auto* v3 = std::get_if<PluginV3Params>(&layer.params);
    return v3 != nullptr && !v3->plan.aliasedInputs.empty() ? &v3->plan.aliasedInputs : nullptr;
}

//! Where a plugin writes an output into the memory of an input (IPluginV3OneBuildV2::getAliasedInput), the input
//! must be the plugin's alone and the output internal: a copy is inserted before the plugin for an input that is
//! I/O or read by another layer, and after it for an output that is a network output.
void isolateAliases(EngineModel& model, KeptTensors& kept)
{
    if (std::none_of(model.layers.begin(), model.layers.end(), [](LayerRecord& l) { return aliasesOf(l) != nullptr; }))
    {
        return;
    }
    std::vector<int32_t> readers(model.tensors.size(), 0);
    for (LayerRecord const& layer : model.layers)
    {
        for (int32_t input : layer.inputs)
        {
            if (input != kNoTensor)
            {
                ++readers[static_cast<std::size_t>(input)];
            }
        }
    }
    insertAround(model, [&](std::size_t, LayerRecord& layer) {
        AroundLayer around;
        std::vector<int32_t> const* aliases = aliasesOf(layer);
        for (std::size_t o = 0; aliases != nullptr && o < aliases->size(); ++o)
        {
            int32_t const i = (*aliases)[o];
            if (i < 0)
            {
                continue;
            }
            int32_t& input = layer.inputs[static_cast<std::size_t>(i)];
            TensorRecord const& source = model.tensors[static_cast<std::size_t>(input)];
            if (source.isInput || source.isOutput || readers[static_cast<std::size_t>(input)] > 1)
            {
                int32_t const copy = addTwinTensor(model, kept, input, " (copy for aliasing)", source.format);
                around.before.push_back(
                    identityLayer(layer.name + " input " + std::to_string(i) + " copy", input, copy));
                input = copy;
            }
            int32_t& output = layer.outputs[o];
            if (model.tensors[static_cast<std::size_t>(output)].isOutput)
            {
                int32_t const inPlace = addTwinTensor(
                    model, kept, output, " (aliased)", model.tensors[static_cast<std::size_t>(output)].format);
                around.after.push_back(
                    identityLayer(layer.name + " output " + std::to_string(o) + " copy", inPlace, output));
                output = inPlace;
            }
        }
        return around;
    });
}

void renumberLayers(EngineModel& model, std::vector<int32_t> const& newIndex)
{
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t output : model.layers[l].outputs)
        {
            model.tensors[static_cast<std::size_t>(output)].producer = static_cast<int32_t>(l);
        }
    }
    for (AssertionRecord& assertion : model.assertions)
    {
        if (assertion.layer >= 0)
        {
            assertion.layer = newIndex[static_cast<std::size_t>(assertion.layer)];
        }
    }
}

std::optional<Error> orderLoops(EngineModel& model)
{
    auto const loops = findLoops(model);
    if (!loops)
    {
        return loops.error();
    }
    if (loops.value().blocks.empty())
    {
        return std::nullopt;
    }
    std::vector<int32_t> const order = loopOrder(model, loops.value());
    if (order.size() != model.layers.size())
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "network '" + model.name + "': a loop reads its own output (only ILoopOutputLayer leads out of a loop)"};
    }
    std::vector<LayerRecord> layers;
    std::vector<int32_t> newIndex(model.layers.size());
    for (std::size_t i = 0; i < order.size(); ++i)
    {
        newIndex[static_cast<std::size_t>(order[i])] = static_cast<int32_t>(i);
        layers.push_back(std::move(model.layers[static_cast<std::size_t>(order[i])]));
    }
    model.layers = std::move(layers);
    renumberLayers(model, newIndex);
    return std::nullopt;
}

//! Calls phaseFinish for a phase that started, however the build leaves it.
class PhaseScope
{
public:
    PhaseScope(nvinfer1::IProgressMonitor* monitor, int32_t nbSteps)
        : mMonitor(monitor)
    {
        if (mMonitor != nullptr)
        {
            mMonitor->phaseStart(kBuildPhase, nullptr, nbSteps);
        }
    }
    ~PhaseScope()
    {
        if (mMonitor != nullptr)
        {
            mMonitor->phaseFinish(kBuildPhase);
        }
    }
    PhaseScope(PhaseScope const&) = delete;
    PhaseScope& operator=(PhaseScope const&) = delete;

    //! Whether the monitor lets the build go on after step.
    bool stepComplete(int32_t step) const { return mMonitor == nullptr || mMonitor->stepComplete(kBuildPhase, step); }

private:
    nvinfer1::IProgressMonitor* mMonitor;
};

// ---- 3. The engine's tensors and layers -----------------------------------------------------------------------------

//! Keeps every network input, then the outputs of the layers kept (order), in model.tensors; the network's inputs and
//! outputs in model.ioTensors.
Expected<KeptTensors> keepTensors(Network const& network, std::vector<Layer const*> const& order, EngineModel& model)
{
    KeptTensors kept;
    std::set<Tensor const*> const codes = codeTensors(network);
    auto const keep = [&](Tensor const& tensor, int32_t producer) -> std::optional<Error> {
        auto const scale = scaleOf(tensor, network.isStronglyTyped(), codes.count(&tensor) != 0);
        if (!scale)
        {
            return scale.error();
        }
        TensorRecord record;
        record.name = tensor.name();
        record.type = tensor.type();
        record.isInput = tensor.isInput();
        record.isOutput = tensor.isOutput();
        record.isShapeTensor = tensor.isInput() ? isShapeTensorInput(tensor) : tensor.isShapeOutput();
        record.isDebug = tensor.isDebug();
        record.scale = scale.value();
        record.producer = producer;
        kept.index[&tensor] = static_cast<int32_t>(kept.list.size());
        kept.list.push_back(&tensor);
        model.tensors.push_back(std::move(record));
        return std::nullopt;
    };
    for (Tensor const* input : network.inputs())
    {
        if (auto problem = keep(*input, -1))
        {
            return *problem;
        }
    }
    for (std::size_t l = 0; l < order.size(); ++l)
    {
        for (Tensor const* output : order[l]->outputs())
        {
            if (auto problem = keep(*output, static_cast<int32_t>(l)))
            {
                return *problem;
            }
        }
    }
    for (std::size_t i = 0; i < network.inputs().size(); ++i)
    {
        model.ioTensors.push_back(static_cast<int32_t>(i));
    }
    model.nbInputs = static_cast<int32_t>(network.inputs().size());
    for (Tensor const* output : network.outputs())
    {
        model.ioTensors.push_back(kept.index.at(output));
    }
    return kept;
}

//! The record of layer, its weights kept in the model's blobs (or, for a plugin layer, the parameters its build
//! made).
LayerRecord layerRecord(Layer const& layer, KeptTensors const& tensors, WeightsKeeper& weights,
    std::optional<LayerParams> built = std::nullopt)
{
    LayerRecord record;
    record.name = layer.name();
    record.type = layer.type();
    for (Tensor const* input : layer.inputs())
    {
        record.inputs.push_back(input != nullptr ? tensors.index.at(input) : kNoTensor);
    }
    for (Tensor const* output : layer.outputs())
    {
        record.outputs.push_back(tensors.index.at(output));
    }
    record.params = built ? std::move(*built) : weights.params(layer.params());
    record.metadata = layer.metadata();
    return record;
}

//! Says which of the configuration's limits kiln records without acting on them (nothing is ignored silently): the
//! scratch-memory pools and the optimization level.
void reportUnappliedSettings(BuildSettings const& settings)
{
    using nvinfer1::MemoryPoolType;
    for (auto const& [pool, name] :
        {std::pair{MemoryPoolType::kWORKSPACE, "kWORKSPACE"}, std::pair{MemoryPoolType::kTACTIC_DRAM, "kTACTIC_DRAM"},
            std::pair{MemoryPoolType::kTACTIC_SHARED_MEMORY, "kTACTIC_SHARED_MEMORY"}})
    {
        std::size_t const limit = settings.memoryPoolLimits[static_cast<std::size_t>(pool)];
        if (limit != defaultMemoryPoolLimit(pool))
        {
            log(Severity::kWARNING,
                std::string("the memory pool limit ") + name + " = " + std::to_string(limit)
                    + " bytes is recorded but not applied: kiln does not yet restrict its kernels' scratch memory to "
                      "it (cuBLASLt tactics take at most 32 MiB; cuDNN's take what the chosen algorithm asks)");
        }
    }
    if (settings.builderOptimizationLevel != 3)
    {
        log(Severity::kINFO,
            "builder optimization level " + std::to_string(settings.builderOptimizationLevel)
                + " is recorded; kiln builds the same way at every level (every variant of its convolutions and "
                  "matrix multiplies timed)");
    }
}

} // namespace

int32_t addTwinTensor(
    EngineModel& model, KeptTensors& kept, int32_t twin, std::string const& suffix, nvinfer1::TensorFormat format)
{
    TensorRecord record = model.tensors[static_cast<std::size_t>(twin)];
    record.name += suffix;
    record.format = format;
    record.isInput = false;
    record.isOutput = false;
    record.isShapeTensor = false;
    record.isDebug = false;
    model.tensors.push_back(std::move(record));
    kept.list.push_back(kept.list[static_cast<std::size_t>(twin)]); // the same network tensor: the same shapes
    return static_cast<int32_t>(model.tensors.size() - 1);
}

void insertAround(EngineModel& model, std::function<AroundLayer(std::size_t, LayerRecord&)> const& edit)
{
    std::vector<LayerRecord> layers;
    std::vector<int32_t> newIndex(model.layers.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        // edit may add tensors (model.tensors), never layers: model.layers[l] stays valid meanwhile.
        AroundLayer around = edit(l, model.layers[l]);
        std::move(around.before.begin(), around.before.end(), std::back_inserter(layers));
        newIndex[l] = static_cast<int32_t>(layers.size());
        layers.push_back(std::move(model.layers[l]));
        std::move(around.after.begin(), around.after.end(), std::back_inserter(layers));
    }
    model.layers = std::move(layers);
    renumberLayers(model, newIndex);
}

Expected<PlanBackend> chosenBackend()
{
    return backendAsked();
}

std::string timingCacheIdentity(PlanBackend backend)
{
#if KILN_WITH_CUDA
    if (backend == PlanBackend::kCUDA)
    {
        int device = 0;
        cudaDeviceProp properties{};
        if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess)
        {
            std::string const host = hostTimingCacheIdentity(); // "kiln host <version>"
            return "kiln cuda " + std::string(properties.name) + " sm_" + std::to_string(properties.major)
                + std::to_string(properties.minor) + host.substr(host.rfind(' '));
        }
        static_cast<void>(cudaGetLastError());
    }
#else
    static_cast<void>(backend);
#endif
    return hostTimingCacheIdentity();
}

Expected<EngineModel> buildEngineModel(Network const& network, BuildSettings const& settings, ModelWeights weights)
{
    auto const backend = chosenBackend();
    if (!backend)
    {
        return backend.error();
    }
#if KILN_WITH_CUDA
    if (backend.value() == PlanBackend::kCUDA)
    {
        return buildEngineModel(network, settings, *cuda::makeCudaBuildBackend(), weights);
    }
#endif
    return buildEngineModel(network, settings, *makeHostBackend(), weights);
}

Expected<EngineModel> buildEngineModel(
    Network const& network, BuildSettings const& settings, Backend const& backend, ModelWeights weights)
{
    // 1. What the graph alone refuses.
    if (auto problem = checkIo(network))
    {
        return *problem;
    }
    reportUnappliedSettings(settings);
    auto libraries = pluginLibrariesToSerialize(settings.pluginsToSerialize);
    if (!libraries)
    {
        return libraries.error();
    }
    std::set<Layer const*> const live = liveLayers(network);
    auto const profiles = profilesToBuild(network, settings);
    if (!profiles)
    {
        return profiles.error();
    }

    // 2. Shapes, symbolic and per profile.
    ExprContext exprs;
    auto inferred = inferShapes(network, exprs);
    if (!inferred)
    {
        return inferred.error();
    }
    NetworkShapes const& shapes = inferred.value();
    std::vector<ConcreteShapes> concrete;
    for (std::size_t p = 0; p < profiles.value().size(); ++p)
    {
        auto shapesAtProfile = concretize(shapes, exprs, profiles.value()[p], profileName(p));
        if (!shapesAtProfile)
        {
            return shapesAtProfile.error();
        }
        concrete.push_back(std::move(shapesAtProfile.value()));
    }

    // 3. The engine's layers and tensors: every network input, then the outputs of the layers kept, in order.
    BuildReport const report(network.name(), backend.kind(), live.size(), concrete.size());
    EngineModel model;
    model.name = network.name();
    model.backend = backend.kind();
    model.tacticSources = settings.tacticSources;
    model.profilingVerbosity = settings.profilingVerbosity;
    model.pluginLibraries = std::move(libraries.value());
    std::vector<Layer const*> order;
    std::copy_if(shapes.order.begin(), shapes.order.end(), std::back_inserter(order),
        [&](Layer const* layer) { return live.count(layer) != 0; });
    auto tensors = keepTensors(network, order, model);
    if (!tensors)
    {
        return tensors.error();
    }

    // 4. Per layer: the backend's verdict (or the plugin's build), the record with its weights kept (copied or
    // borrowed), one progress step.
    auto const timing = timingCacheFor(settings);
    if (!timing)
    {
        return timing.error();
    }
    ChosenFormats chosenFormats;
    WeightsKeeper keeper(model.weights, weights);
    RefitTagger refit(network, settings, model.refit);
    PluginBuildInputs pluginInputs
        = hostPluginInputs(settings, shapes, concrete, timing.value().cache, [&](Tensor const& tensor) {
              return model.tensors[static_cast<std::size_t>(tensors.value().index.at(&tensor))].scale;
          });
#if KILN_WITH_CUDA
    // Plugins are timed on the GPU of a CUDA build, on a stream of the build.
    bool const plugins = std::any_of(order.begin(), order.end(), [](Layer const* layer) {
        return layer->type() == LayerType::kPLUGIN_V2 || layer->type() == LayerType::kPLUGIN_V3;
    });
    std::optional<BuildStream> stream;
    if (backend.kind() == PlanBackend::kCUDA && plugins)
    {
        stream.emplace();
        if (stream->get() == nullptr)
        {
            return Error{nvinfer1::ErrorCode::kFAILED_INITIALIZATION, "cannot create a CUDA stream to build on"};
        }
        useCudaForPlugins(pluginInputs, stream->get());
    }
#endif
    // With kFP16 or kBF16 in a weakly typed network, a V3 plugin's kFLOAT inputs may take the reduced type too; not in
    // a network with loops or if-conditionals, which the precision pass leaves in their types.
    if (std::none_of(
            order.begin(), order.end(), [](Layer const* layer) { return isLoopOrConditionalBoundary(layer->type()); }))
    {
        pluginInputs.reducedType = reducedType(settings, network.isStronglyTyped());
    }
    // What plugins timed at build time are attached to first, as an execution context's would be.
    PluginResourceContext buildResources(
        settings.builderRecorder, pluginInputs.device != nullptr ? pluginInputs.device : settings.builderAllocator);
    V2Handles v2Handles(settings.tacticSources, backend.kind() == PlanBackend::kCUDA);
    pluginInputs.resources = &buildResources;
    pluginInputs.v2Handles = &v2Handles;
    {
        PhaseScope const phase(settings.progressMonitor, static_cast<int32_t>(order.size()));
        for (std::size_t l = 0; l < order.size(); ++l)
        {
            Layer const& layer = *order[l];
            std::optional<LayerParams> built;
            if (layer.type() == LayerType::kPLUGIN_V2 || layer.type() == LayerType::kPLUGIN_V3)
            {
                auto plugin = buildPluginLayer(layer, pluginInputs);
                if (!plugin)
                {
                    return plugin.error();
                }
                // insertReformats puts casts and reformats where these differ from the tensors' types and kLINEAR.
                chosenFormats[model.layers.size()] = ChosenIo{plugin.value().types, plugin.value().formats};
                built = std::move(plugin.value().params);
            }
            else if (auto problem = checkLayer(backend, layer, concrete))
            {
                return *problem;
            }
            model.layers.push_back(layerRecord(layer, tensors.value(), keeper, std::move(built)));
            refit.tag(layer, model.layers.back());
            if (!phase.stepComplete(static_cast<int32_t>(l)))
            {
                return Error{ErrorCode::kUNSPECIFIED_ERROR,
                    "network '" + network.name() + "': build cancelled by the progress monitor after "
                        + describeLayer(layer) + " (step " + std::to_string(l + 1) + " of "
                        + std::to_string(order.size()) + ")"};
            }
        }
    }

    // 5. The shape expressions of every tensor and assertion kept.
    if (auto problem = exportShapes(model, exprs, shapes, tensors.value(), order))
    {
        return *problem;
    }

    // 6. Casts and reformat layers where plugins chose other types than their tensors' or formats other than kLINEAR;
    // each profile's input ranges and activation memory.
    KeptTensors kept = std::move(tensors.value());
    std::size_t before = model.layers.size();
    insertReformats(model, kept, chosenFormats);
    report.rewrite("casts and reformats around plugins", before, model);
    before = model.layers.size();
    isolateAliases(model, kept);
    report.rewrite("copies around aliased plugin I/O", before, model);
    // 7. GELU from primitive layers made one activation (either backend computes it directly); then a CUDA build's
    // other fusions, then the fastest variant of every kernel that has several.
    auto const pass = [&](char const* name, auto&& rewrite) {
        std::size_t const was = model.layers.size();
        int32_t const removed = rewrite(model);
        report.rewrite(name, was, model);
        return removed;
    };
    // A CUDA build folds the reshapes that broadcast scalar constants first: the parser broadcasts an ONNX scalar
    // (a 0-D Constant node) to its operand's rank with a shuffle, and GELU's constants must be seen as constants.
    if (model.backend == PlanBackend::kCUDA)
    {
        pass("reshaped constants folded", foldConstantReshapes);
        pass("values of fixed extents folded", foldStaticValues);
    }
    pass("GELU fusion (primitive erf and tanh forms into one activation)", fuseGelu);
    if (model.backend == PlanBackend::kCUDA)
    {
        pass("epilogue fusion (activation, bias, scale and residual into convolutions and matrix multiplies)",
            fuseEpilogues);
        pass("residual fusion (shortcut additions and their activation into convolutions)", fuseConvolutionResiduals);
        pass("attention fusion", fuseAttention);
        pass("attention masks narrowed", narrowAttentionMasks);
        pass("q, k and v products packed into one", [&](EngineModel& m) { return fuseQkvProducts(m, kept.widened); });
        pass("layer normalization fusion", fuseLayerNorms);
        pass("embedding fusion (table lookups, their sum and its layer norm)", fuseEmbeddings);
        pass("point-wise fusion", fusePointwise);
        pass("duplicate layers merged", mergeDuplicateLayers);
    }
    // What the fusions left unread (a reshape's shape arithmetic, a folded scale) and layers no output needs.
    pass("unread layers removed", removeUnreadLayers);
    // 7b. Reduced precision (kFP16, kBF16) in a weakly typed network, after the fusions (whose kernels compute in float
    // inside) and before the layouts (which need the 16-bit convolutions): builder/precision.h.
    before = model.layers.size();
    auto const reduced = chooseReducedPrecision(model, kept, settings, network.isStronglyTyped(), backend, concrete);
    if (!reduced)
    {
        return reduced.error();
    }
    report.rewrite("reduced precision casts", before, model);
    if (reduced.value() > 0)
    {
        log(Severity::kINFO,
            "network '" + network.name() + "': " + std::to_string(reduced.value()) + " layers compute in reduced "
                + "precision (kFP16 / kBF16); the others keep kFLOAT");
    }
    {
        // Chains of 16-bit convolutions run in kHWC8 (builder/layout.h); each tensor the pass adds has the shapes of
        // the tensor it is a twin of. On by default for a CUDA build (cuDNN's tensor-core kernels read NHWC; in NCHW
        // cuDNN transposes inside every convolution); KILN_CHANNELS_LAST=0 keeps NCHW, and KILN_CHANNELS_LAST=1 makes
        // a host build choose the same layouts (the host reference of the formats).
        std::vector<int32_t> twins;
        before = model.layers.size();
        char const* const setting = std::getenv("KILN_CHANNELS_LAST");
        std::string_view const channelsLast = setting == nullptr ? std::string_view() : std::string_view(setting);
        bool const chosen = model.backend == PlanBackend::kCUDA ? channelsLast != "0" : channelsLast == "1";
        if (chosen)
        {
            chooseConvolutionLayouts(model, &twins, LayoutScope::kANY_BACKEND);
        }
        for (int32_t const twin : twins)
        {
            kept.list.push_back(kept.list[static_cast<std::size_t>(twin)]);
        }
        if (model.backend == PlanBackend::kCUDA || chosen)
        {
            report.rewrite("channels-last convolution chains (kHWC8 reformats)", before, model);
        }
    }
    // 8. The refittable weights the final layers hold; each loop's layers as one block, which the executor runs once
    // per iteration.
    finishRefit(model);
    if (auto problem = orderLoops(model))
    {
        return *problem;
    }
    // Reshapes whose outputs can live in their inputs' memory run nothing (runtime/shape_values.h), before the memory
    // plan gives every other tensor its bytes.
    std::vector<uint8_t> const views = reshapeViews(model);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        model.layers[l].viewsInput = views[l] != 0;
    }
    if (auto problem = planProfiles(model, kept, concrete))
    {
        return *problem;
    }
#if KILN_WITH_CUDA
    if (model.backend == PlanBackend::kCUDA && !concrete.empty())
    {
        auto const optShape = [&](int32_t tensor) -> std::optional<Dims> {
            if (tensor < 0 || static_cast<std::size_t>(tensor) >= kept.list.size())
            {
                return std::nullopt;
            }
            auto const found = concrete.front().tensors.find(kept.list[static_cast<std::size_t>(tensor)]);
            return found == concrete.front().tensors.end() ? std::nullopt
                                                           : std::optional(kept.shapeOf(tensor, found->second.opt));
        };
        // The build's timing cache (the config's, or the build's own) remembers each problem's variant: identical
        // layers are timed once, and a later build with the config's cache times none it holds.
        std::optional<cuda::TacticMemo> memo;
        if (TimingCache* const cache = timing.value().cache)
        {
            memo = cuda::TacticMemo{
                [cache](std::string const& problem, std::span<std::string const> names) -> std::optional<int32_t> {
                    auto const hit = cache->lookup(makeTimingCacheKey(problem));
                    if (!hit)
                    {
                        return std::nullopt;
                    }
                    auto const found = std::find_if(names.begin(), names.end(),
                        [&](std::string const& name) { return hashTactic(name) == hit->tacticHash; });
                    return found == names.end() ? std::nullopt
                                                : std::optional(static_cast<int32_t>(found - names.begin()));
                },
                [cache](std::string const& problem, std::string const& name, float milliseconds) {
                    return cache->record(
                        makeTimingCacheKey(problem), nvinfer1::TimingCacheValue{hashTactic(name), milliseconds});
                },
                hasFlag(settings, nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS)};
        }
        if (auto problem = cuda::chooseTactics(model, optShape, settings.avgTimingIterations, memo ? &*memo : nullptr))
        {
            return *problem;
        }
    }
#endif
    report.finish(model);
    return model;
}

} // namespace kiln
