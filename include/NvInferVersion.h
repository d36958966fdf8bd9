/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferVersion.h -- the TensorRT version kiln is compatible with, as macros.
 *
 * kiln implements the TensorRT 10.16 API, so plugins and applications compiled against these headers see
 * NV_TENSORRT_MAJOR == 10 and take their TensorRT-10 code paths:
 *
 *     #if NV_TENSORRT_MAJOR >= 10
 *         // IPluginV3 is available
 *     #endif
 *
 * kiln's own release number is given separately by the KILN_VERSION_* macros.
 */

#ifndef NV_INFER_VERSION_H
#define NV_INFER_VERSION_H

//! The TensorRT release these headers match (10.16.0, build 72, general availability).
#define TRT_MAJOR_ENTERPRISE 10
#define TRT_MINOR_ENTERPRISE 16
#define TRT_PATCH_ENTERPRISE 0
#define TRT_BUILD_ENTERPRISE 72

#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE //!< TensorRT major version.
#define NV_TENSORRT_MINOR TRT_MINOR_ENTERPRISE //!< TensorRT minor version.
#define NV_TENSORRT_PATCH TRT_PATCH_ENTERPRISE //!< TensorRT patch version.
#define NV_TENSORRT_BUILD TRT_BUILD_ENTERPRISE //!< TensorRT build number.

#define NV_TENSORRT_LWS_MAJOR 0 //!< Lean/light-weight-safety major version (unused, always 0).
#define NV_TENSORRT_LWS_MINOR 0 //!< Lean/light-weight-safety minor version (unused, always 0).
#define NV_TENSORRT_LWS_PATCH 0 //!< Lean/light-weight-safety patch version (unused, always 0).

#define NV_TENSORRT_RELEASE_TYPE_EARLY_ACCESS 0                                //!< Release type: early access.
#define NV_TENSORRT_RELEASE_TYPE_RELEASE_CANDIDATE 1                           //!< Release type: release candidate.
#define NV_TENSORRT_RELEASE_TYPE_GENERAL_AVAILABILITY 2                        //!< Release type: general availability.
#define NV_TENSORRT_RELEASE_TYPE NV_TENSORRT_RELEASE_TYPE_GENERAL_AVAILABILITY //!< This release's type.

//! Packs a version as one integer: 10.16.0 -> 101600.
#define NV_TENSORRT_VERSION_INT(major, minor, patch) ((major)*10000L + (minor)*100L + (patch)*1L)

//! The packed TensorRT version; compiled into plugins through IPluginV2::getTensorRTVersion().
#define NV_TENSORRT_VERSION NV_TENSORRT_VERSION_INT(NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR, NV_TENSORRT_PATCH)

//! kiln's own release.
#define KILN_VERSION_MAJOR 0
#define KILN_VERSION_MINOR 1
#define KILN_VERSION_PATCH 0

#endif // NV_INFER_VERSION_H
