// SPDX-License-Identifier: Apache-2.0
// A plugin library for the parser's tests: getCreators with one V3 test plugin, "KTestFromLibrary" version "1"
// namespace "kiln.onnx.lib", whose creator declares the field "scale". Loaded with IPluginRegistry::loadLibrary, it is
// the plugin library that IParser::getUsedVCPluginLibraries must list for a node of that op type.
#include "test_plugins.h"

namespace
{
kiln::onnx_test::TestCreatorV3 gCreator{
    std::make_shared<kiln::onnx_test::CreatorLog>(), "KTestFromLibrary", "1", "kiln.onnx.lib"};
nvinfer1::IPluginCreatorInterface* const gCreators[] = {&gCreator};
} // namespace

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
