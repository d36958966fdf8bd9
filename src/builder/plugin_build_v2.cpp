// SPDX-License-Identifier: Apache-2.0
// The build protocol of a V2 plugin layer (build_passes.h).
#include "builder/build_passes.h"

namespace kiln
{

Expected<PluginBuildResult> buildPluginV2Layer(
    Layer const& layer, PluginV2Params const& params, PluginBuildInputs const& /*in*/)
{
    return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
        describeLayer(layer) + ": " + describeIdentity(params.identity)
            + ": kiln does not build V2 plugin layers yet (IPluginV2 family); port the plugin to IPluginV3"};
}

} // namespace kiln
