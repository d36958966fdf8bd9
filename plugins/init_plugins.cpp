// SPDX-License-Identifier: Apache-2.0
// initLibNvInferPlugins: registers every standard plugin creator in the process-wide registry, as TensorRT's
// libnvinfer_plugin does. Each creator gets the namespace (setPluginNamespace) before it is registered under it; a
// creator already registered under the same name, version and namespace (by an earlier call, or by the application)
// is skipped quietly; the result is always true. The logger, when not null, is where the plugins log from then on.
#include "NvInferPlugin.h"

#include "batched_nms.h"
#include "bert_registration.h"
#include "common.h"
#include "crop_and_resize.h"
#include "deform_conv.h"
#include "efficient_nms.h"
#include "group_norm.h"
#include "instance_norm.h"
#include "ms_deform_attn.h"
#include "plugin/plugin_lookup.h"
#include "resize_nearest.h"
#include "roi_align.h"
#include "scatter_elements.h"
#include "standard_plugin_v2.h"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln::plugins
{

namespace
{

//! The creators this library made; they live as long as the process, as the registry may hold them until exit.
std::vector<std::unique_ptr<StandardCreator>>& creators()
{
    static auto* all = new std::vector<std::unique_ptr<StandardCreator>>();
    return *all;
}

template <typename Creator>
void registerStandard(nvinfer1::IPluginRegistry& registry, char const* pluginNamespace)
{
    auto creator = std::make_unique<Creator>();
    // Probed quietly: getCreator reports a miss as an error, as TensorRT's registry does.
    if (kiln::findCreatorQuietly(registry, {creator->getPluginName(), creator->getPluginVersion(), pluginNamespace})
        != nullptr)
    {
        return; // Registered already (a duplicate is skipped quietly).
    }
    creator->setPluginNamespace(pluginNamespace);
    if (registry.registerCreator(*creator, pluginNamespace))
    {
        creators().push_back(std::move(creator));
    }
}

} // namespace

} // namespace kiln::plugins

extern "C" TENSORRTAPI bool initLibNvInferPlugins(void* logger, char const* libNamespace)
{
    using namespace kiln::plugins;
    static std::mutex mutex;
    try
    {
        std::lock_guard<std::mutex> const lock(mutex);
        if (logger != nullptr)
        {
            setLibraryLogger(static_cast<nvinfer1::ILogger*>(logger));
        }
        char const* const pluginNamespace = libNamespace == nullptr ? "" : libNamespace;
        nvinfer1::IPluginRegistry* registry = getPluginRegistry();
        if (registry != nullptr)
        {
            registerStandard<RoiAlignCreator>(*registry, pluginNamespace);
            registerStandard<DeformConvCreator>(*registry, pluginNamespace);
            registerStandard<CropAndResizeCreator>(*registry, pluginNamespace);
            registerStandardV2(*registry, pluginNamespace, makeEfficientNmsCreator());
            registerStandardV2(*registry, pluginNamespace, makeEfficientNmsOnnxCreator());
            registerStandardV2(*registry, pluginNamespace, makeBatchedNmsDynamicCreator());
            registerStandardV2(*registry, pluginNamespace, makeBatchedNmsCreator());
            registerStandardV2(*registry, pluginNamespace, makeResizeNearestCreator());
            registerStandardV2(*registry, pluginNamespace, makeCropAndResizeLegacyCreator());
            registerStandard<InstanceNormCreator>(*registry, pluginNamespace);
            registerStandard<ScatterElementsCreator>(*registry, pluginNamespace);
            registerStandard<MsDeformAttnCreator>(*registry, pluginNamespace);
            registerStandardV2(*registry, pluginNamespace, std::make_unique<GroupNormCreator>());
            registerStandardV2(*registry, pluginNamespace, std::make_unique<MsDeformAttnLegacyCreator>());
            registerStandardV2(*registry, pluginNamespace, std::make_unique<ScatterElementsLegacyCreator>());
            registerStandardV2(*registry, pluginNamespace, std::make_unique<InstanceNormLegacyCreator>("1"));
            registerStandardV2(*registry, pluginNamespace, std::make_unique<InstanceNormLegacyCreator>("2"));
            registerBertPlugins(*registry, pluginNamespace);
        }
    }
    catch (...)
    {
        // Out of memory: the creators registered so far stay; TensorRT's function reports true regardless.
    }
    return true;
}
