// Where the builder, network and runtime API lives, in the style of header_homes.cpp: the matrix compiles this file
// once per public header, given with -include, with KILN_HAS_<PART> defined for each part that header brings in.
// As in TensorRT 10.16, NvInferImpl.h holds the implementation interfaces, NvInferRuntime.h the runtime wrappers
// and createInferRuntime(), and NvInfer.h the network, layers, builder and createInferBuilder().

#include <type_traits>

#define KILN_COMPLETE(T) static_assert(sizeof(T) > 0, #T " must be defined")

#if defined(KILN_HAS_IMPL)
KILN_COMPLETE(nvinfer1::apiv::VHostMemory);
KILN_COMPLETE(nvinfer1::apiv::VRuntime);
KILN_COMPLETE(nvinfer1::apiv::VOptimizationProfile);
KILN_COMPLETE(nvinfer1::apiv::VCudaEngine);
KILN_COMPLETE(nvinfer1::apiv::VExecutionContext);
KILN_COMPLETE(nvinfer1::apiv::VEngineInspector);
KILN_COMPLETE(nvinfer1::apiv::VRuntimeConfig);
KILN_COMPLETE(nvinfer1::apiv::VSerializationConfig);
KILN_COMPLETE(nvinfer1::apiv::VTensor);
KILN_COMPLETE(nvinfer1::apiv::VLayer);
KILN_COMPLETE(nvinfer1::apiv::VConvolutionLayer);
KILN_COMPLETE(nvinfer1::apiv::VDeconvolutionLayer);
KILN_COMPLETE(nvinfer1::apiv::VActivationLayer);
KILN_COMPLETE(nvinfer1::apiv::VPoolingLayer);
KILN_COMPLETE(nvinfer1::apiv::VSoftMaxLayer);
KILN_COMPLETE(nvinfer1::apiv::VConcatenationLayer);
KILN_COMPLETE(nvinfer1::apiv::VElementWiseLayer);
KILN_COMPLETE(nvinfer1::apiv::VGatherLayer);
KILN_COMPLETE(nvinfer1::apiv::VPluginV2Layer);
KILN_COMPLETE(nvinfer1::apiv::VPluginV3Layer);
KILN_COMPLETE(nvinfer1::apiv::VUnaryLayer);
KILN_COMPLETE(nvinfer1::apiv::VReduceLayer);
KILN_COMPLETE(nvinfer1::apiv::VTopKLayer);
KILN_COMPLETE(nvinfer1::apiv::VNonZeroLayer);
KILN_COMPLETE(nvinfer1::apiv::VNMSLayer);
KILN_COMPLETE(nvinfer1::apiv::VIfConditional);
KILN_COMPLETE(nvinfer1::apiv::VLoop);
KILN_COMPLETE(nvinfer1::apiv::VLoopBoundaryLayer);
KILN_COMPLETE(nvinfer1::apiv::VConditionalBoundaryLayer);
KILN_COMPLETE(nvinfer1::apiv::VShuffleLayer);
KILN_COMPLETE(nvinfer1::apiv::VSliceLayer);
KILN_COMPLETE(nvinfer1::apiv::VShapeLayer);
KILN_COMPLETE(nvinfer1::apiv::VResizeLayer);
KILN_COMPLETE(nvinfer1::apiv::VMatrixMultiplyLayer);
KILN_COMPLETE(nvinfer1::apiv::VIdentityLayer);
KILN_COMPLETE(nvinfer1::apiv::VCastLayer);
KILN_COMPLETE(nvinfer1::apiv::VQuantizeLayer);
KILN_COMPLETE(nvinfer1::apiv::VDequantizeLayer);
KILN_COMPLETE(nvinfer1::apiv::VScatterLayer);
KILN_COMPLETE(nvinfer1::apiv::VEinsumLayer);
KILN_COMPLETE(nvinfer1::apiv::VGridSampleLayer);
KILN_COMPLETE(nvinfer1::apiv::VReverseSequenceLayer);
KILN_COMPLETE(nvinfer1::apiv::VConstantLayer);
KILN_COMPLETE(nvinfer1::apiv::VSelectLayer);
KILN_COMPLETE(nvinfer1::apiv::VFillLayer);
KILN_COMPLETE(nvinfer1::apiv::VCumulativeLayer);
KILN_COMPLETE(nvinfer1::apiv::VNetworkDefinition);
KILN_COMPLETE(nvinfer1::apiv::VTimingCache);
KILN_COMPLETE(nvinfer1::apiv::VBuilderConfig);
KILN_COMPLETE(nvinfer1::apiv::VBuilder);
#endif

#if defined(KILN_HAS_RUNTIME)
KILN_COMPLETE(nvinfer1::IHostMemory);
KILN_COMPLETE(nvinfer1::IRuntime);
KILN_COMPLETE(nvinfer1::IOptimizationProfile);
KILN_COMPLETE(nvinfer1::ICudaEngine);
KILN_COMPLETE(nvinfer1::IExecutionContext);
KILN_COMPLETE(nvinfer1::IRuntimeConfig);
KILN_COMPLETE(nvinfer1::ISerializationConfig);
KILN_COMPLETE(nvinfer1::IEngineInspector);
static_assert(nvinfer1::EnumMax<nvinfer1::LayerInformationFormat>() == 2, "LayerInformationFormat");
using KilnHomeCreateRuntime = decltype(&createInferRuntime_INTERNAL);
using KilnHomeCreateRuntimeInline = decltype(&nvinfer1::createInferRuntime);
#endif

#if defined(KILN_HAS_INFER)
KILN_COMPLETE(nvinfer1::ITensor);
KILN_COMPLETE(nvinfer1::ILayer);
KILN_COMPLETE(nvinfer1::IConvolutionLayer);
KILN_COMPLETE(nvinfer1::IDeconvolutionLayer);
KILN_COMPLETE(nvinfer1::IActivationLayer);
KILN_COMPLETE(nvinfer1::IPoolingLayer);
KILN_COMPLETE(nvinfer1::ISoftMaxLayer);
KILN_COMPLETE(nvinfer1::IConcatenationLayer);
KILN_COMPLETE(nvinfer1::IElementWiseLayer);
KILN_COMPLETE(nvinfer1::IGatherLayer);
KILN_COMPLETE(nvinfer1::IPluginV2Layer);
KILN_COMPLETE(nvinfer1::IPluginV3Layer);
KILN_COMPLETE(nvinfer1::IUnaryLayer);
KILN_COMPLETE(nvinfer1::IReduceLayer);
KILN_COMPLETE(nvinfer1::ITopKLayer);
KILN_COMPLETE(nvinfer1::INonZeroLayer);
KILN_COMPLETE(nvinfer1::INMSLayer);
KILN_COMPLETE(nvinfer1::IIfConditional);
KILN_COMPLETE(nvinfer1::ILoop);
KILN_COMPLETE(nvinfer1::IRecurrenceLayer);
KILN_COMPLETE(nvinfer1::IConditionLayer);
KILN_COMPLETE(nvinfer1::IShuffleLayer);
KILN_COMPLETE(nvinfer1::ISliceLayer);
KILN_COMPLETE(nvinfer1::IShapeLayer);
KILN_COMPLETE(nvinfer1::IResizeLayer);
KILN_COMPLETE(nvinfer1::IMatrixMultiplyLayer);
KILN_COMPLETE(nvinfer1::IIdentityLayer);
KILN_COMPLETE(nvinfer1::ICastLayer);
KILN_COMPLETE(nvinfer1::IQuantizeLayer);
KILN_COMPLETE(nvinfer1::IDequantizeLayer);
KILN_COMPLETE(nvinfer1::IScatterLayer);
KILN_COMPLETE(nvinfer1::IEinsumLayer);
KILN_COMPLETE(nvinfer1::IGridSampleLayer);
KILN_COMPLETE(nvinfer1::IReverseSequenceLayer);
KILN_COMPLETE(nvinfer1::IConstantLayer);
KILN_COMPLETE(nvinfer1::ISelectLayer);
KILN_COMPLETE(nvinfer1::IFillLayer);
KILN_COMPLETE(nvinfer1::ICumulativeLayer);
KILN_COMPLETE(nvinfer1::Permutation);
KILN_COMPLETE(nvinfer1::INetworkDefinition);
KILN_COMPLETE(nvinfer1::ITimingCache);
KILN_COMPLETE(nvinfer1::IBuilderConfig);
KILN_COMPLETE(nvinfer1::IBuilder);
static_assert(nvinfer1::EnumMax<nvinfer1::LayerType>() == 57, "LayerType");
static_assert(nvinfer1::EnumMax<nvinfer1::QuantizationFlag>() == 1, "QuantizationFlag");
using KilnHomeCreateBuilder = decltype(&createInferBuilder_INTERNAL);
using KilnHomeCreateBuilderInline = decltype(&nvinfer1::createInferBuilder);
#endif

int kilnHeaderHomesApi();
