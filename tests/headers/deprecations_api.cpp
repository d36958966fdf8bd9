// Deprecation translation unit for the builder, network and runtime API: one use of each member TensorRT 10.16
// marks TRT_DEPRECATED in the classes kiln declares. Built like deprecations.cpp (-Werror
// -Wno-error=deprecated-declarations); the matrix requires a "'<name>' is deprecated" warning for every item.
// app_api_usage.cpp proves that the rest of this API does not warn at all.

#include "NvInfer.h"

int32_t kilnDeprecatedNetwork(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& tensor, nvinfer1::ILayer& layer,
    nvinfer1::IPluginV2& plugin);
int32_t kilnDeprecatedNetwork(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& tensor, nvinfer1::ILayer& layer,
    nvinfer1::IPluginV2& plugin)
{
    using nvinfer1::DataType;
    nvinfer1::ITensor* inputs[] = {&tensor};
    nvinfer1::IPluginV2Layer* pluginLayer = network.addPluginV2(inputs, 1, plugin);
    nvinfer1::IFillLayer* fill = network.addFill(nvinfer1::Dims{1, {4}}, nvinfer1::FillOperation::kLINSPACE);
    nvinfer1::INonZeroLayer* nonZero = network.addNonZero(tensor);
    nvinfer1::INMSLayer* nms = network.addNMS(tensor, tensor, tensor);
    int32_t sum = (pluginLayer != nullptr) + (fill != nullptr) + network.hasImplicitBatchDimension()
        + (nonZero != nullptr) + (nms != nullptr);

    tensor.setType(DataType::kHALF);
    sum += tensor.setDynamicRange(-1.0F, 1.0F);
    tensor.setBroadcastAcrossBatch(false);
    sum += tensor.getBroadcastAcrossBatch();
    tensor.setLocation(nvinfer1::TensorLocation::kDEVICE);
    sum += tensor.dynamicRangeIsSet();

    layer.setPrecision(DataType::kFLOAT);
    sum += layer.precisionIsSet();
    layer.resetPrecision();
    layer.setOutputType(0, DataType::kFLOAT);
    sum += layer.outputTypeIsSet(0);
    layer.resetOutputType(0);
    return sum;
}

int64_t kilnDeprecatedRuntime(nvinfer1::IRuntime& runtime, nvinfer1::IStreamReader& reader,
    nvinfer1::ICudaEngine& engine, nvinfer1::IExecutionContext& context, nvinfer1::IOptimizationProfile& profile);
int64_t kilnDeprecatedRuntime(nvinfer1::IRuntime& runtime, nvinfer1::IStreamReader& reader,
    nvinfer1::ICudaEngine& engine, nvinfer1::IExecutionContext& context, nvinfer1::IOptimizationProfile& profile)
{
    using nvinfer1::OptProfileSelector;
    int32_t const values[] = {1, 2};
    int64_t sum = runtime.deserializeCudaEngine(reader) != nullptr;
    sum += profile.setShapeValues("shape", OptProfileSelector::kMIN, values, 2);
    sum += profile.getShapeValues("shape", OptProfileSelector::kMIN) != nullptr;
    sum += engine.createExecutionContextWithoutDeviceMemory() != nullptr;
    sum += static_cast<int64_t>(engine.getDeviceMemorySize());
    sum += static_cast<int64_t>(engine.getDeviceMemorySizeForProfile(0));
    sum += engine.getProfileTensorValues("shape", 0, OptProfileSelector::kOPT) != nullptr;
    sum += engine.hasImplicitBatchDimension();
    sum += engine.setWeightStreamingBudget(0);
    sum += engine.getWeightStreamingBudget();
    sum += engine.getMinimumWeightStreamingBudget();
    sum += context.allInputShapesSpecified();
    return sum;
}

int32_t kilnDeprecatedBuilder(nvinfer1::IBuilder& builder, nvinfer1::IBuilderConfig& config);
int32_t kilnDeprecatedBuilder(nvinfer1::IBuilder& builder, nvinfer1::IBuilderConfig& config)
{
    using nvinfer1::QuantizationFlag;
    int32_t sum = builder.platformHasFastFp16() + builder.platformHasFastInt8() + builder.platformHasTf32();
    config.setInt8Calibrator(nullptr);
    sum += config.getInt8Calibrator() != nullptr;
    config.setAlgorithmSelector(nullptr);
    sum += config.getAlgorithmSelector() != nullptr;
    sum += config.setCalibrationProfile(nullptr);
    sum += config.getCalibrationProfile() != nullptr;
    config.setQuantizationFlags(0U);
    sum += static_cast<int32_t>(config.getQuantizationFlags());
    config.clearQuantizationFlag(QuantizationFlag::kCALIBRATE_BEFORE_FUSION);
    config.setQuantizationFlag(QuantizationFlag::kCALIBRATE_BEFORE_FUSION);
    sum += config.getQuantizationFlag(QuantizationFlag::kCALIBRATE_BEFORE_FUSION);
    return sum;
}
