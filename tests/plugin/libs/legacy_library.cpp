// SPDX-License-Identifier: Apache-2.0
// A plugin library in the old form: only the deprecated getPluginCreators, returning a V2 and a V3 creator
// through IPluginCreator* (as TensorRT 10.0's own libraries did, relying on the creator root being at offset 0).
#include "support/probe_plugins.h"

namespace
{
kiln::test::ProbeV2Creator gV2{"LegacyV2", "1", ""};
kiln::test::ProbeV3Creator gV3{"LegacyV3", "1", ""};
nvinfer1::IPluginCreatorInterface* const gCreators[] = {&gV2, &gV3};
} // namespace

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreator* const* getPluginCreators(
    int32_t& nbCreators)
{
    nbCreators = 2;
    return reinterpret_cast<nvinfer1::IPluginCreator* const*>(gCreators);
}
