// Compile-matrix translation unit (a): every public header, then the complete V3 plugin, creator, callback and
// expression fixtures, and the source patterns plugins use (spec 9.3). The matrix builds it with -Wall -Wextra
// -Wpedantic -Wshadow -Werror and no deprecation exemption, as C++14/17/20, with and without RTTI, against the CUDA
// stand-in and the real CUDA headers: the headers and V3 code must be warning-free in every combination.

#include "NvInfer.h"
#include "NvInferImpl.h"
#include "NvInferLegacyDims.h"
#include "NvInferPlugin.h"
#include "NvInferPluginUtils.h"
#include "NvInferRuntime.h"
#include "NvInferRuntimeCommon.h"
#include "NvInferRuntimePlugin.h"
#include "NvInferVersion.h"
#include "kiln/kiln.h"
#include "kiln/plugin_host.h"
// The public headers leave the internal-include marker undefined behind them.
#if defined(NV_INFER_INTERNAL_INCLUDE)
#error "NV_INFER_INTERNAL_INCLUDE leaked out of a public header"
#endif
// Once a public header has pulled them in, a direct include of the internal headers is harmless: their
// static_assert sits inside the include guard (spec 1.2).
#include "NvInferPluginBase.h"
#include "NvInferRuntimeBase.h"

// Include-guard macros (spec 1.2) and attribute/export macros (spec 1.4).
#if !defined(NV_INFER_H) || !defined(NV_INFER_IMPL_H) || !defined(NV_INFER_LEGACY_DIMS_H)                              \
    || !defined(NV_INFER_PLUGIN_H) || !defined(NV_INFER_PLUGIN_BASE_H) || !defined(NV_INFER_PLUGIN_UTILS_H)            \
    || !defined(NV_INFER_RUNTIME_H) || !defined(NV_INFER_RUNTIME_BASE_H) || !defined(NV_INFER_RUNTIME_COMMON_H)        \
    || !defined(NV_INFER_RUNTIME_PLUGIN_H) || !defined(NV_INFER_VERSION_H)
#error "an include-guard macro differs from TensorRT's"
#endif
#if !defined(TRT_DEPRECATED) || !defined(TRT_DEPRECATED_BECAUSE) || !defined(TRT_DEPRECATED_ENUM)                      \
    || !defined(TRT_DEPRECATED_API) || !defined(TRT_NODISCARD) || !defined(TRT_NODISCARD_BECAUSE)                      \
    || !defined(TENSORRTAPI) || !defined(TRTNOEXCEPT)
#error "an attribute or export macro is missing"
#endif
#define KILN_TEST_STRINGIFY_IMPL(x) #x
#define KILN_TEST_STRINGIFY(x) KILN_TEST_STRINGIFY_IMPL(x)
static_assert(sizeof(KILN_TEST_STRINGIFY(TENSORRTAPI)) == 1, "TENSORRTAPI is empty for users of the library");
static_assert(sizeof(KILN_TEST_STRINGIFY(TRTNOEXCEPT)) == 1, "TRTNOEXCEPT is empty");

#include "cuda_variant_check.h"
#include "expr_fixtures.h"
#include "full_callbacks.h"
#include "full_host_plugin.h"
#include "full_v3_plugin.h"

#include <vector>

#if NV_TENSORRT_MAJOR < 10
#error "kiln implements the TensorRT 10 API"
#endif

using kiln_test::FullV3Creator;

// Static registration of a V3 creator selects registerCreator(IPluginCreatorInterface&, ...), which is not
// deprecated.
REGISTER_TENSORRT_PLUGIN(FullV3Creator);

// Each class must be complete (not abstract) and each source pattern must compile without a warning.
nvinfer1::IPluginV3* kilnMakeV3Plugin();
nvinfer1::IPluginV3* kilnMakeV3Plugin()
{
    nvinfer1::IPluginV3* const plugin = new kiln_test::FullV3Plugin(2.F, "ns");
    nvinfer1::IPluginV3* const copy = plugin->clone();
    delete plugin;
    return copy;
}

// A plugin with kiln's host capability, found and run as the host backend will.
int32_t kilnRunHostPlugin();
int32_t kilnRunHostPlugin()
{
    nvinfer1::IPluginV3* const plugin = new kiln_test::FullHostPlugin(2.F, "ns");
    nvinfer1::IPluginCapability* const capability = plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST);
    int32_t status = -1;
    if (capability != nullptr)
    {
        nvinfer1::PluginTensorDesc desc{};
        desc.dims = nvinfer1::Dims{1, {1}};
        float const input = 1.F;
        float output = 0.F;
        void const* const inputs[] = {&input};
        void* const outputs[] = {&output};
        status = static_cast<kiln::IPluginV3OneHost*>(capability)->enqueueHost(&desc, &desc, inputs, outputs, nullptr);
    }
    delete plugin;
    return status;
}

nvinfer1::IPluginCreatorV3One* kilnFindCreator();
nvinfer1::IPluginCreatorV3One* kilnFindCreator()
{
    return static_cast<nvinfer1::IPluginCreatorV3One*>(getPluginRegistry()->getCreator("KilnFullV3", "3"));
}

int32_t kilnMakeCallbacks();
int32_t kilnMakeCallbacks()
{
    kiln_test::FullLogger logger;
    kiln_test::FullLoggerFinder finder(&logger);
    kiln_test::FullGpuAllocator allocator;
    kiln_test::FullGpuAsyncAllocator asyncAllocator;
    kiln_test::FullErrorRecorder recorder;
    kiln_test::FullOutputAllocator outputAllocator;
    kiln_test::FullStreamReader reader;
    kiln_test::FullStreamReaderV2 readerV2;
    kiln_test::FullStreamWriter writer;
    kiln_test::FullDebugListener listener;
    kiln_test::FullProfiler profiler;
    kiln_test::FullProgressMonitor monitor;
    kiln_test::FullPluginResource resource;
    kiln_test::FullPluginResourceContext context(&allocator, &recorder);
    kiln_test::TestExprBuilder builder;
    nvinfer1::IExprBuilder& exprBuilder = builder;
    nvinfer1::IDimensionExpr const* const extent = exprBuilder.declareSizeTensor(0, *exprBuilder.constant(4),
        *exprBuilder.operation(nvinfer1::DimensionOperation::kMAX, *exprBuilder.constant(1), *exprBuilder.constant(8)));
    return extent->isSizeTensor() ? 1 : 0;
}

nvinfer1::InterfaceInfo kilnSourcePatterns();
nvinfer1::InterfaceInfo kilnSourcePatterns()
{
    nvinfer1::Dims const unknown{-1, {}};
    nvinfer1::Dims const matrix{2, {3, 4}};
    nvinfer1::Dims4 const nchw{1, 3, 224, 224};
    int32_t rowOrder = static_cast<int32_t>(unknown.nbDims + matrix.nbDims + nchw.nbDims);
    std::vector<nvinfer1::PluginField> fields;
    fields.emplace_back("rowOrder", &rowOrder, nvinfer1::PluginFieldType::kINT32, 1);
    fields.push_back(nvinfer1::PluginField("blob", fields.data(), nvinfer1::PluginFieldType::kUNKNOWN, 8));
    nvinfer1::PluginFieldCollection fc{};
    fc.nbFields = static_cast<int32_t>(fields.size());
    fc.fields = fields.data();
    nvinfer1::BuilderFlags const flags = 1U << static_cast<uint32_t>(nvinfer1::BuilderFlag::kSTRIP_PLAN);
    return {fc.nbFields > 0 && flags != 0U ? "PLUGIN" : "", 1, 0};
}
