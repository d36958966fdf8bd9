// SPDX-License-Identifier: Apache-2.0
// IdentityConv as a plugin library (libkiln_identity_conv_plugin.so), the way plugin libraries ship: its creator
// through getCreators, for IPluginRegistry::loadLibrary and the kiln tool's --staticPlugins and --dynamicPlugins.
// scripts/demo.sh builds the bundled identity_conv.onnx with it through the tool. The plugin logs nothing, so the
// library takes no logger finder.
#include "identity_conv.h"

#include "NvInferRuntime.h"

#include <cstdint>

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    static nvinfer1::IPluginCreatorInterface* const creators[] = {&identityConvCreator()};
    nbCreators = 1;
    return creators;
}
