// SPDX-License-Identifier: Apache-2.0
// The build step's passes (builder/build.h), for build.cpp to drive: the profiles and memory (build_memory.cpp) and the
// shape expressions (build_expressions.cpp). Internal to the builder.
#pragma once

#include "builder/build.h"
#include "builder/builder_config.h"
#include "builder/fusion.h"
#include "core/error.h"
#include "network/checks.h"
#include "network/describe.h"
#include "network/network.h"
#include "network/shape_inference.h"
#include "plan/engine_model.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln
{

//! An identity layer from one tensor to another: a copy, or a reformat when their formats differ (build.cpp's
//! plugin reformats and copies, layout.cpp's convolution reformats).
inline LayerRecord identityLayer(std::string name, int32_t from, int32_t to)
{
    LayerRecord layer;
    layer.name = std::move(name);
    layer.type = LayerType::kIDENTITY;
    layer.inputs = {from};
    layer.outputs = {to};
    layer.params = IdentityParams{};
    return layer;
}

//! A cast layer from one tensor to another of type (build.cpp's casts around plugins, precision.cpp's casts).
inline LayerRecord castLayer(std::string name, int32_t from, int32_t to, DataType type)
{
    LayerRecord layer;
    layer.name = std::move(name);
    layer.type = LayerType::kCAST;
    layer.inputs = {from};
    layer.outputs = {to};
    layer.params = CastParams{type};
    return layer;
}

//! "optimization profile 1".
inline std::string profileName(std::size_t index)
{
    return "optimization profile " + std::to_string(index);
}

//! "network input 'x'" or "network output 'y'".
inline std::string describeIo(Tensor const& tensor)
{
    return (tensor.isInput() ? "network input '" : "network output '") + tensor.name() + "'";
}

//! Whether a network input is a shape tensor whose values each profile gives (as shape inference treats it).
inline bool isShapeTensorInput(Tensor const& input)
{
    return isIndexType(input.type()) && isShapeTensor(input);
}

//! The network tensors the engine keeps, in EngineModel::tensors order, and each one's index there.
struct KeptTensors
{
    std::vector<Tensor const*> list;
    std::unordered_map<Tensor const*, int32_t> index;
    //! Model tensors larger than their network tensor (fuseQkvProducts): the network's shapes scaled along an axis.
    std::vector<WidenedTensor> widened;

    //! The model tensor's shape from its network tensor's (dims), scaled where it was widened.
    Dims shapeOf(int32_t tensor, Dims dims) const
    {
        for (WidenedTensor const& w : widened)
        {
            if (w.tensor == tensor && w.axis < dims.nbDims)
            {
                dims.d[w.axis] *= w.factor;
            }
        }
        return dims;
    }
};

// ---- build.cpp: rewriting the model's layers ----------------------------------------------------------------------

//! A tensor like model.tensors[twin] (the same shape) in format, named with suffix: internal, its producer set
//! later; kept.list gains the same network tensor (the same shapes).
int32_t addTwinTensor(
    EngineModel& model, KeptTensors& kept, int32_t twin, std::string const& suffix, nvinfer1::TensorFormat format);

//! Layers that an edit puts before and after the layer it was given.
struct AroundLayer
{
    std::vector<LayerRecord> before;
    std::vector<LayerRecord> after;
};

//! Rebuilds model.layers with what edit(layer index, layer) puts around each layer (edit may also rewire the layer
//! itself), then renumbers every tensor's producer and every assertion's layer.
void insertAround(EngineModel& model, std::function<AroundLayer(std::size_t, LayerRecord&)> const& edit);

// ---- build_memory.cpp -----------------------------------------------------------------------------------------------

//! The profiles to build: the config's, which must give every dynamic input's dimensions and every shape input's
//! values, or, for a network whose inputs are all static and without profiles, one of their dimensions.
Expected<std::vector<ProfileData>> profilesToBuild(Network const& network, BuildSettings const& settings);

//! Keeps the weights of the layers a build records in the model's blobs: a copy each, or (ModelWeights::kBORROW) a
//! blob that borrows the network's bytes. A borrowed blob never overlaps another: weights whose bytes overlap weights
//! borrowed before are copied.
class WeightsKeeper
{
public:
    WeightsKeeper(std::vector<WeightsBlob>& blobs, ModelWeights mode)
        : mBlobs(blobs)
        , mBorrow(mode == ModelWeights::kBORROW)
    {
    }

    //! The Weights that points at weights' bytes kept in a new blob (empty weights stay empty, in no blob).
    Weights keep(Weights const& weights);

    //! The parameters of a layer with their weights kept (plugin layers' parameters are built, not kept here).
    LayerParams params(LayerParams const& params);

private:
    std::vector<WeightsBlob>& mBlobs;
    bool mBorrow;
    std::map<uintptr_t, uintptr_t> mBorrowed; //!< Start to end of every borrowed range.
};

//! Each profile's record (input ranges, activation memory of the internal tensors) into model.profiles, and the
//! largest activation memory into model.deviceMemorySize. model's layers and tensors are complete.
std::optional<Error> planProfiles(
    EngineModel& model, KeptTensors const& tensors, std::vector<ConcreteShapes> const& profiles);

// ---- build_refit.cpp ------------------------------------------------------------------------------------------------

//! Records which weights of the layers a build keeps an IRefitter may replace (plan/refit.h), as the config's flags
//! say: every weights of the network under BuilderFlag::kREFIT or kREFIT_IDENTICAL (and kSTRIP_PLAN alone, which
//! assumes identical values), the weights marked with markWeightsRefittable under kREFIT_INDIVIDUAL.
class RefitTagger
{
public:
    RefitTagger(Network const& network, BuildSettings const& settings, RefitRecord& refit);

    //! Adds an entry for each refittable weights of layer, whose record (just kept) then points to it.
    void tag(Layer const& layer, LayerRecord& record);

private:
    Network const& mNetwork;
    RefitRecord& mRefit;
    bool mIndividual{};
};

//! Once the layers are final (fusions made): constants whose values shapes were computed from stop being refittable
//! (their values are fixed in the engine's shapes), entries no layer holds any more (weights folded away under
//! kREFIT_IDENTICAL) are dropped, and the rest renumbered.
void finishRefit(EngineModel& model);

// ---- build_expressions.cpp ------------------------------------------------------------------------------------------

//! Copies the shape expressions of the kept tensors and of the assertions of the layers kept (order, as in
//! model.layers) into model: exprs and symbols, each tensor's shape and values, and the assertions.
std::optional<Error> exportShapes(EngineModel& model, ExprContext const& exprs, NetworkShapes const& shapes,
    KeptTensors const& tensors, std::vector<Layer const*> const& order);

// ---- plugin_build.cpp ----------------------------------------------------------------------------------------------

class TimingCache;
class V2Handles;
struct V3Capabilities;

//! What building a plugin layer needs from the build step and its backend.
struct PluginBuildInputs
{
    BuildSettings const& settings;
    NetworkShapes const& shapes;
    std::vector<ConcreteShapes> const& profiles;
    //! The quantization scale of a tensor (1 unless kINT8 or kFP8).
    std::function<float(Tensor const&)> scaleOf;
    TimingCache* cache{}; //!< Null without a timing cache (BuilderFlag::kDISABLE_TIMING_CACHE).
    bool errorOnCacheMiss{};
    bool aliasedIo{}; //!< PreviewFeature::kALIASED_PLUGIN_IO_10_03.
    bool needHost{};  //!< The backend runs plugins through kiln's host capability.
    //! The reduced type of a weakly typed network built with kFP16 (kHALF) or kBF16 alone (kBF16), which a V3
    //! plugin's kFLOAT data inputs may take too (plugin_build.cpp, step 2); none otherwise.
    std::optional<DataType> reducedType;
    //! The CUDA backend: device memory for the timing buffers, and the stream the plugin runs and is timed on (null
    //! device on the host backend).
    nvinfer1::IGpuAllocator* device{};
    cudaStream_t stream{};
    //! The formats the backend can give a tensor of type and declared shape (-1 for dynamic extents), kLINEAR first.
    std::function<std::vector<nvinfer1::TensorFormat>(DataType, Dims const&)> formatsFor;
    //! Bytes of a tensor of type and shape in format.
    std::function<Expected<int64_t>(DataType, Dims const&, nvinfer1::TensorFormat)> bytesFor;
    //! Milliseconds the backend takes to reformat a tensor of type and shape between two formats.
    std::function<Expected<float>(DataType, Dims const&, nvinfer1::TensorFormat, nvinfer1::TensorFormat)> reformatCost;
    //! Runs the plugin once, the backend's way (enqueue on a stream, or enqueueHost); returns its status.
    std::function<int32_t(V3Capabilities const&, nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*,
        void const* const*, void* const*, void*)>
        enqueue;
    char const* enqueueName{"enqueue()"};
    //! What a plugin's clone is attached to before it is timed: the builder's resource context (V3), and the library
    //! handles of the build (V2); never null while plugins are built.
    nvinfer1::IPluginResourceContext* resources{};
    V2Handles* v2Handles{};
};

//! A built plugin layer: its parameters in the engine (the plugin's record) and the type and format of each data
//! input and output the plugin chose (build.cpp puts casts and reformats where they differ from the tensors').
struct PluginBuildResult
{
    LayerParams params;
    std::vector<DataType> types;
    std::vector<nvinfer1::TensorFormat> formats;
};

//! Runs the build protocol of plugin layer (see plugin_build.cpp); the error names the layer and the plugin.
Expected<PluginBuildResult> buildPluginLayer(Layer const& layer, PluginBuildInputs const& in);

//! The same for a V2 plugin layer (plugin_build_v2.cpp).
Expected<PluginBuildResult> buildPluginV2Layer(
    Layer const& layer, PluginV2Params const& params, PluginBuildInputs const& in);

} // namespace kiln
