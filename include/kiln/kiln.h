/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * kiln/kiln.h -- kiln's own entry points, beyond the TensorRT API. They are exported from libkiln with C
 * linkage like TensorRT's, and follow the same rules: no exceptions, no STL, no ownership across the boundary
 * except where a function says so.
 *
 *     #include "kiln/kiln.h"
 *     kilnSetLogger(&myLogger);                                    // route kiln's messages to myLogger
 *     nvinfer1::IPluginRegistry* r = kilnCreatePluginRegistry(getPluginRegistry());   // a private registry
 *     r->loadLibrary("libmyplugins.so");                           // creators land in r, not the global one
 *     kilnDestroyPluginRegistry(r);
 */

#ifndef KILN_KILN_H
#define KILN_KILN_H

#include "NvInferRuntime.h"

extern "C"
{
    //! Sends every message of the library to logger (nullptr restores the default, which prints warnings and
    //! errors to stderr). The logger must stay alive until it is replaced.
    TENSORRTAPI void kilnSetLogger(nvinfer1::ILogger* logger) noexcept;

    //! A new, empty plugin registry whose look-ups fall back to parent (may be nullptr) while parent search is
    //! enabled. The caller owns it and frees it with kilnDestroyPluginRegistry.
    TENSORRTAPI nvinfer1::IPluginRegistry* kilnCreatePluginRegistry(nvinfer1::IPluginRegistry* parent) noexcept;

    //! Frees a registry made by kilnCreatePluginRegistry: releases its remaining resources and unloads the
    //! libraries it loaded. Passing the process-wide registry is refused with an error.
    TENSORRTAPI void kilnDestroyPluginRegistry(nvinfer1::IPluginRegistry* registry) noexcept;
}

#endif // KILN_KILN_H
