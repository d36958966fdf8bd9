// SPDX-License-Identifier: Apache-2.0
// Compiled only into the shared library libnvinfer_plugin.so.10 (plugins/CMakeLists.txt): registers the BERT family of
// standard plugins under namespace "" when the library is loaded, as TensorRT's REGISTER_TENSORRT_PLUGIN objects do
// for these creators (bert_registration.h). This is the library's one static initializer, kept out of libkiln and out
// of the static archive the tests link, which register explicitly through initLibNvInferPlugins.
#include "bert_registration.h"

namespace
{

struct RegisterAtLoad
{
    RegisterAtLoad() noexcept
    {
        if (nvinfer1::IPluginRegistry* registry = getPluginRegistry())
        {
            kiln::plugins::registerBertPlugins(*registry, "");
        }
    }
};

RegisterAtLoad const gRegisterAtLoad;

} // namespace
