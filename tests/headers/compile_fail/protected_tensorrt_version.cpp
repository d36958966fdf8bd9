// Must fail: getTensorRTVersion() is protected from IPluginV2Ext on (spec 6.2-6.4); only the IPluginV2 view, which
// is how the engine reads the level byte, may call it. The control build calls it through IPluginV2.

#include "NvInferRuntime.h"

int32_t kilnLevelOf(nvinfer1::IPluginV2DynamicExt const& plugin);
int32_t kilnLevelOf(nvinfer1::IPluginV2DynamicExt const& plugin)
{
#if defined(KILN_CONTROL)
    nvinfer1::IPluginV2 const& base = plugin;
    return base.getTensorRTVersion() >> 24;
#else
    return plugin.getTensorRTVersion() >> 24;
#endif
}
