// SPDX-License-Identifier: Apache-2.0
// A plugin library that misbehaves in the way KILN_TEST_BAD_LIBRARY names when getCreators is called:
// null-array, negative-count, null-creator, unknown-kind, empty-name or twice.
#include "support/probe_plugins.h"

#include <cstdlib>
#include <cstring>

namespace
{
class UnknownKindCreator final : public nvinfer1::IPluginCreatorInterface
{
public:
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override { return {"PLUGIN CREATOR_V7", 1, 0}; }
};

kiln::test::ProbeV3Creator gGood{"BadLibGood", "1", ""};
kiln::test::ProbeV3Creator gTwin{"BadLibGood", "1", ""};
kiln::test::ProbeV3Creator gNameless{"", "1", ""};
UnknownKindCreator gUnknown;
nvinfer1::IPluginCreatorInterface* gCreators[2]{};
} // namespace

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    char const* mode = std::getenv("KILN_TEST_BAD_LIBRARY");
    std::string const how = mode != nullptr ? mode : "";
    nbCreators = 2;
    gCreators[0] = &gGood;
    gCreators[1] = nullptr;
    if (how == "null-array")
    {
        return nullptr;
    }
    if (how == "negative-count")
    {
        nbCreators = -1;
    }
    else if (how == "unknown-kind")
    {
        gCreators[1] = &gUnknown;
    }
    else if (how == "empty-name")
    {
        gCreators[1] = &gNameless;
    }
    else if (how == "twice")
    {
        gCreators[1] = &gTwin;
    }
    return gCreators; // "null-creator": the second entry stays null
}
