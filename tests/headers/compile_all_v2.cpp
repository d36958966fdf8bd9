// Compile-matrix translation unit (b): the complete V2 plugins (all four levels), the V2 creator and the complete
// registry, with their static registration. They are deprecated by design, so the matrix builds this with -Wall
// -Wextra -Wpedantic -Werror -Wno-error=deprecated-declarations: deprecations may only warn, nothing else may.
// The deprecation test builds it once more and requires the IPluginV2DynamicExt deprecation warning.

#include "NvInfer.h"
#include "NvInferPlugin.h"

#include "cuda_variant_check.h"
#include "full_registry.h"
#include "full_v2_plugins.h"

using kiln_test::FullV2Creator;

// Static registration of a V2 creator selects registerCreator(IPluginCreator&, ...).
REGISTER_TENSORRT_PLUGIN(FullV2Creator);

nvinfer1::IPluginV2* kilnMakeV2Plugins();
nvinfer1::IPluginV2* kilnMakeV2Plugins()
{
    kiln_test::FullPluginRegistry registry;
    FullV2Creator creator;
    registry.registerCreator(creator, "");
    nvinfer1::IPluginV2* const plugins[] = {new kiln_test::FullV2Plugin(), new kiln_test::FullV2ExtPlugin(),
        new kiln_test::FullV2IOExtPlugin(), new kiln_test::FullV2DynamicPlugin()};
    for (nvinfer1::IPluginV2* plugin : plugins)
    {
        plugin->destroy();
    }
    return creator.createPlugin("plugin", nullptr);
}
