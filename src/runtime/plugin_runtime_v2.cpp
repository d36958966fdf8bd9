// SPDX-License-Identifier: Apache-2.0
// V2 plugins at run time (runtime/plugin_runtime.h).
#include "runtime/plugin_runtime.h"

#include "network/checks.h"

namespace kiln
{

Expected<std::unique_ptr<EnginePlugin>> makeEnginePluginV2(
    PluginV2Params const& params, nvinfer1::IPluginRegistry& /*registry*/, bool /*host*/, std::string const& where)
{
    return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
        where + ": " + describeIdentity(params.identity) + ": kiln's runtime does not run V2 plugins yet"};
}

} // namespace kiln
