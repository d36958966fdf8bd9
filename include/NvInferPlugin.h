/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferPlugin.h -- the entry point of the standard plugin library (libnvinfer_plugin in TensorRT):
 *
 *     initLibNvInferPlugins(&logger, "");   // registers the standard plugins' creators under namespace ""
 *
 * kiln's standard plugin library, which defines this function, is built by the issue that adds it; until then
 * the declaration lets code that calls it compile.
 */

#ifndef NV_INFER_PLUGIN_H
#define NV_INFER_PLUGIN_H

#include "NvInfer.h"
#include "NvInferPluginUtils.h"

extern "C"
{
    //! Registers every standard plugin creator under libNamespace; logger is an nvinfer1::ILogger*.
    TENSORRTAPI bool initLibNvInferPlugins(void* logger, char const* libNamespace);
}

#endif // NV_INFER_PLUGIN_H
