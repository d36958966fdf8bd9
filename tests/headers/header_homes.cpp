// Where things live (spec 1.2, "where things live in 10.16"): code that includes only one header must find what
// TensorRT's header of that name declares, directly or through the headers it includes. The matrix compiles this
// file once per public header, given with -include, and defines KILN_HAS_<PART> for each part that header must
// bring in; each section below names what the spec puts in that part. Complete types are required where the spec
// defines the class in that header (sizeof needs the definition).

#include <type_traits>

#define KILN_COMPLETE(T) static_assert(sizeof(T) > 0, #T " must be defined")
#define KILN_SAME(A, B) static_assert(std::is_same<A, B>::value, #A " must be " #B)

#if defined(KILN_HAS_VERSION)
#if !defined(NV_TENSORRT_MAJOR) || !defined(NV_TENSORRT_VERSION) || !defined(NV_TENSORRT_VERSION_INT)
#error "NvInferVersion.h must define the version macros"
#endif
#endif

#if defined(KILN_HAS_RUNTIME_BASE)
KILN_SAME(nvinfer1::char_t, char);
KILN_SAME(nvinfer1::AsciiChar, char);
KILN_SAME(nvinfer1::InterfaceKind, char const*);
KILN_SAME(nvinfer1::Dims, nvinfer1::Dims64);
KILN_SAME(nvinfer1::IErrorRecorder, nvinfer1::v_1_0::IErrorRecorder);
KILN_COMPLETE(nvinfer1::Dims64);
KILN_COMPLETE(nvinfer1::InterfaceInfo);
KILN_COMPLETE(nvinfer1::IVersionedInterface);
KILN_COMPLETE(nvinfer1::v_1_0::IErrorRecorder);
static_assert(nvinfer1::EnumMax<nvinfer1::DataType>() == 12, "DataType and EnumMax");
static_assert(static_cast<int>(nvinfer1::APILanguage::kPYTHON) == 1, "APILanguage");
static_assert(static_cast<int>(nvinfer1::ErrorCode::kUNSUPPORTED_STATE) == 10, "ErrorCode");
static_assert(static_cast<int>(nvinfer1::TensorIOMode::kOUTPUT) == 2, "TensorIOMode");
using KilnHomeLibVersion = decltype(&getInferLibVersion);
using KilnHomeCublas = cublasContext*;
using KilnHomeCudnn = cudnnContext*;
using KilnHomeStream = cudaStream_t;
#endif

#if defined(KILN_HAS_LEGACY_DIMS)
KILN_COMPLETE(nvinfer1::Dims2);
KILN_COMPLETE(nvinfer1::Dims3);
KILN_COMPLETE(nvinfer1::Dims4);
KILN_COMPLETE(nvinfer1::DimsHW);
#endif

#if defined(KILN_HAS_PLUGIN_BASE)
KILN_COMPLETE(nvinfer1::PluginField);
KILN_COMPLETE(nvinfer1::PluginFieldCollection);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginCapability);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginResource);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginCreatorInterface);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginV3);
KILN_SAME(nvinfer1::IPluginV3, nvinfer1::v_1_0::IPluginV3);
static_assert(static_cast<int>(nvinfer1::PluginFieldType::kFP4) == 13, "PluginFieldType");
static_assert(static_cast<int>(nvinfer1::TensorRTPhase::kRUNTIME) == 1, "TensorRTPhase");
static_assert(static_cast<int>(nvinfer1::PluginCapabilityType::kRUNTIME) == 2, "PluginCapabilityType");
#endif

#if defined(KILN_HAS_RUNTIME_PLUGIN)
KILN_SAME(nvinfer1::PluginFormat, nvinfer1::TensorFormat);
KILN_SAME(std::underlying_type<nvinfer1::TensorFormat>::type, int32_t);
static_assert(nvinfer1::kPLUGIN_VERSION_PYTHON_BIT == 0x40, "kPLUGIN_VERSION_PYTHON_BIT");
KILN_COMPLETE(nvinfer1::PluginTensorDesc);
KILN_COMPLETE(nvinfer1::IPluginV2);
KILN_COMPLETE(nvinfer1::IPluginV2Ext);
KILN_COMPLETE(nvinfer1::IPluginV2IOExt);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginCreator);
KILN_SAME(std::underlying_type<nvinfer1::PluginVersion>::type, uint8_t);
KILN_SAME(std::underlying_type<nvinfer1::PluginCreatorVersion>::type, int32_t);
#endif

#if defined(KILN_HAS_RUNTIME_COMMON)
KILN_COMPLETE(nvinfer1::IPluginRegistry);
#endif

#if defined(KILN_HAS_IMPL)
KILN_COMPLETE(nvinfer1::apiv::VRoot);
KILN_COMPLETE(nvinfer1::apiv::VDimensionExpr);
KILN_COMPLETE(nvinfer1::apiv::VExprBuilder);
#endif

#if defined(KILN_HAS_RUNTIME)
KILN_COMPLETE(nvinfer1::INoCopy);
KILN_COMPLETE(nvinfer1::Weights);
KILN_COMPLETE(nvinfer1::IDimensionExpr);
KILN_COMPLETE(nvinfer1::IExprBuilder);
KILN_COMPLETE(nvinfer1::DimsExprs);
KILN_COMPLETE(nvinfer1::DynamicPluginTensorDesc);
KILN_COMPLETE(nvinfer1::IPluginV2DynamicExt);
KILN_COMPLETE(nvinfer1::v_1_0::IStreamReader);
KILN_COMPLETE(nvinfer1::v_1_0::IStreamReaderV2);
KILN_COMPLETE(nvinfer1::v_1_0::IStreamWriter);
KILN_COMPLETE(nvinfer1::IPluginResourceContext);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginV3OneCore);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginV3OneBuild);
KILN_COMPLETE(nvinfer1::v_2_0::IPluginV3OneBuild);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginV3OneRuntime);
KILN_COMPLETE(nvinfer1::v_1_0::IProfiler);
KILN_COMPLETE(nvinfer1::ILogger);
KILN_COMPLETE(nvinfer1::v_1_0::IGpuAllocator);
KILN_COMPLETE(nvinfer1::v_1_0::IOutputAllocator);
KILN_COMPLETE(nvinfer1::v_1_0::IDebugListener);
KILN_COMPLETE(nvinfer1::ILoggerFinder);
KILN_COMPLETE(nvinfer1::v_1_0::IGpuAsyncAllocator);
KILN_COMPLETE(nvinfer1::v_1_0::IPluginCreatorV3One);
KILN_COMPLETE(nvinfer1::PluginRegistrar<int>);
static_assert(static_cast<int>(nvinfer1::TensorFormat::kDHWC) == 12, "TensorFormat is defined");
static_assert(static_cast<int>(nvinfer1::EngineCapability::kDLA_STANDALONE) == 2, "EngineCapability");
static_assert(static_cast<int>(nvinfer1::DimensionOperation::kCEIL_DIV) == 8, "DimensionOperation");
static_assert(static_cast<int>(nvinfer1::TensorLocation::kHOST) == 1, "TensorLocation");
static_assert(static_cast<int>(nvinfer1::AllocatorFlag::kRESIZABLE) == 0, "AllocatorFlag");
using KilnHomeRegistry = decltype(&getPluginRegistry);
using KilnHomeLogger = decltype(&getLogger);
using KilnHomeMajor = decltype(&getInferLibMajorVersion);
#if !defined(REGISTER_TENSORRT_PLUGIN)
#error "NvInferRuntime.h must define REGISTER_TENSORRT_PLUGIN"
#endif
#endif

#if defined(KILN_HAS_INFER)
KILN_COMPLETE(nvinfer1::v_1_0::IProgressMonitor);
static_assert(nvinfer1::EnumMax<nvinfer1::BuilderFlag>() == 29, "BuilderFlag");
static_assert(nvinfer1::EnumMax<nvinfer1::MemoryPoolType>() == 6, "MemoryPoolType");
static_assert(nvinfer1::EnumMax<nvinfer1::PreviewFeature>() == 4, "PreviewFeature");
#endif

#if defined(KILN_HAS_PLUGIN_UTILS)
namespace kiln_home_plugin_parameters = nvinfer1::plugin;
#endif

#if defined(KILN_HAS_PLUGIN)
using KilnHomeInitPlugins = decltype(&initLibNvInferPlugins);
#endif

int kilnHeaderHomes();
