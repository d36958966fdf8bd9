// Deprecation translation unit: one use of each item the spec marks deprecated (sections 1.4, 3, 5.1, 5.8, 5.10,
// 6). The matrix builds it with -Werror -Wno-error=deprecated-declarations and requires a "'<name>' is deprecated"
// warning for every item: the attributes exist and only warn. compile_all_v3.cpp proves the rest of the API does
// not warn at all.

#include "NvInfer.h"

int32_t kilnDeprecatedClasses(nvinfer1::IPluginV2* v2, nvinfer1::IPluginV2Ext* ext, nvinfer1::IPluginV2IOExt* ioExt,
    nvinfer1::IPluginV2DynamicExt* dynamicExt, nvinfer1::IPluginCreator* creator);
int32_t kilnDeprecatedClasses(nvinfer1::IPluginV2* v2, nvinfer1::IPluginV2Ext* ext, nvinfer1::IPluginV2IOExt* ioExt,
    nvinfer1::IPluginV2DynamicExt* dynamicExt, nvinfer1::IPluginCreator* creator)
{
    return (v2 != nullptr) + (ext != nullptr) + (ioExt != nullptr) + (dynamicExt != nullptr) + (creator != nullptr);
}

bool kilnDeprecatedBroadcastQueries(nvinfer1::IPluginV2IOExt& plugin);
bool kilnDeprecatedBroadcastQueries(nvinfer1::IPluginV2IOExt& plugin)
{
    bool const broadcast[] = {false};
    return plugin.isOutputBroadcastAcrossBatch(0, broadcast, 1) || plugin.canBroadcastInputAcrossBatch(0);
}

bool kilnDeprecatedRegistryCalls(nvinfer1::IPluginRegistry& registry, nvinfer1::IPluginCreator& creator);
bool kilnDeprecatedRegistryCalls(nvinfer1::IPluginRegistry& registry, nvinfer1::IPluginCreator& creator)
{
    int32_t count = 0;
    bool ok = registry.registerCreator(creator, "");
    ok = ok && registry.getPluginCreatorList(&count) != nullptr;
    ok = ok && registry.getPluginCreator("name", "1") != nullptr;
    return ok && registry.deregisterCreator(creator);
}

bool kilnDeprecatedAllocatorCalls(nvinfer1::IGpuAllocator& allocator, nvinfer1::IOutputAllocator& output);
bool kilnDeprecatedAllocatorCalls(nvinfer1::IGpuAllocator& allocator, nvinfer1::IOutputAllocator& output)
{
    void* const memory = allocator.allocate(16, 16, 0U);
    void* const tensor = output.reallocateOutput("t", nullptr, 16, 16);
    return allocator.deallocate(memory) && tensor != nullptr;
}

int32_t kilnDeprecatedEnumerators();
int32_t kilnDeprecatedEnumerators()
{
    using nvinfer1::BuilderFlag;
    int32_t sum = 0;
    sum += static_cast<int32_t>(nvinfer1::PluginVersion::kV2);
    sum += static_cast<int32_t>(nvinfer1::PluginVersion::kV2_EXT);
    sum += static_cast<int32_t>(nvinfer1::PluginVersion::kV2_IOEXT);
    sum += static_cast<int32_t>(nvinfer1::PluginVersion::kV2_DYNAMICEXT);
    sum += static_cast<int32_t>(nvinfer1::PluginVersion::kV2_DYNAMICEXT_PYTHON);
    sum += static_cast<int32_t>(nvinfer1::PluginCreatorVersion::kV1);
    sum += static_cast<int32_t>(nvinfer1::PluginCreatorVersion::kV1_PYTHON);
    sum += static_cast<int32_t>(nvinfer1::PreviewFeature::kPROFILE_SHARING_0806);
    sum += static_cast<int32_t>(nvinfer1::NetworkDefinitionCreationFlag::kEXPLICIT_BATCH);
    sum += static_cast<int32_t>(nvinfer1::TacticSource::kCUBLAS);
    sum += static_cast<int32_t>(nvinfer1::TacticSource::kCUBLAS_LT);
    sum += static_cast<int32_t>(nvinfer1::TacticSource::kCUDNN);
    sum += static_cast<int32_t>(BuilderFlag::kFP16);
    sum += static_cast<int32_t>(BuilderFlag::kINT8);
    sum += static_cast<int32_t>(BuilderFlag::kSAFETY_SCOPE);
    sum += static_cast<int32_t>(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    sum += static_cast<int32_t>(BuilderFlag::kPREFER_PRECISION_CONSTRAINTS);
    sum += static_cast<int32_t>(BuilderFlag::kDIRECT_IO);
    sum += static_cast<int32_t>(BuilderFlag::kREJECT_EMPTY_ALGORITHMS);
    sum += static_cast<int32_t>(BuilderFlag::kFP8);
    sum += static_cast<int32_t>(BuilderFlag::kBF16);
    sum += static_cast<int32_t>(BuilderFlag::kWEIGHTLESS);
    sum += static_cast<int32_t>(BuilderFlag::kINT4);
    sum += static_cast<int32_t>(BuilderFlag::kFP4);
    return sum;
}
