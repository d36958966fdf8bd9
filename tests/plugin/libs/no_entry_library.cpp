// SPDX-License-Identifier: Apache-2.0
// A shared library that is not a plugin library: it exports neither getCreators nor getPluginCreators.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) int32_t notAPluginLibrary()
{
    return 42;
}
