// SPDX-License-Identifier: Apache-2.0
// A plugin library in the current form: setLoggerFinder and getCreators with two V3 creators.
#include "support/probe_plugins.h"

namespace
{
nvinfer1::ILoggerFinder* gFinder{nullptr};
kiln::test::ProbeV3Creator gFirst{"LibV3First", "1", "kilnTest", &gFinder};
kiln::test::ProbeV3Creator gSecond{"LibV3Second", "2", "kilnTest", &gFinder};
nvinfer1::IPluginCreatorInterface* const gCreators[] = {&gFirst, &gSecond};
} // namespace

extern "C" __attribute__((visibility("default"))) void setLoggerFinder(nvinfer1::ILoggerFinder* finder)
{
    gFinder = finder;
}

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    // The loader must hand over the logger finder first; refuse to work otherwise.
    nbCreators = gFinder != nullptr ? 2 : -1;
    return gCreators;
}

//! A resource whose code lives in this library, for tests of unloading while a registry still holds it.
extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginResource* kilnTestLibraryResource()
{
    static kiln::test::ProbeResource resource;
    return &resource;
}
