/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferLegacyDims.h -- convenience shapes of fixed rank built on Dims:
 *
 *     nvinfer1::Dims4 nchw{1, 3, 224, 224};   // nbDims == 4, d[4..7] == 0
 *     nvinfer1::DimsHW hw{7, 7};             // hw.h() == 7, hw.w() == 7
 *
 * They add no data members, so they convert to Dims freely.
 */

#ifndef NV_INFER_LEGACY_DIMS_H
#define NV_INFER_LEGACY_DIMS_H

#define NV_INFER_INTERNAL_INCLUDE 1
#include "NvInferRuntimeBase.h"
#undef NV_INFER_INTERNAL_INCLUDE

namespace nvinfer1
{

//! A shape of rank 2.
class Dims2 : public Dims
{
public:
    //! A rank-2 shape of zeros.
    Dims2()
        : Dims2(0, 0)
    {
    }

    //! A rank-2 shape {d0, d1}; the unused extents are zero.
    Dims2(int64_t d0, int64_t d1)
    {
        nbDims = 2;
        d[0] = d0;
        d[1] = d1;
        for (int64_t i{nbDims}; i < Dims::MAX_DIMS; ++i)
        {
            d[i] = 0;
        }
    }
};

//! A rank-2 shape read as height and width.
class DimsHW : public Dims2
{
public:
    //! A 0 x 0 shape.
    DimsHW()
        : Dims2()
    {
    }

    //! A height x width shape.
    DimsHW(int64_t height, int64_t width)
        : Dims2(height, width)
    {
    }

    //! The height (extent 0).
    int64_t& h() { return d[0]; }

    //! The height (extent 0).
    int64_t h() const { return d[0]; }

    //! The width (extent 1).
    int64_t& w() { return d[1]; }

    //! The width (extent 1).
    int64_t w() const { return d[1]; }
};

//! A shape of rank 3.
class Dims3 : public Dims2
{
public:
    //! A rank-3 shape of zeros.
    Dims3()
        : Dims3(0, 0, 0)
    {
    }

    //! A rank-3 shape {d0, d1, d2}; the unused extents are zero.
    Dims3(int64_t d0, int64_t d1, int64_t d2)
        : Dims2(d0, d1)
    {
        nbDims = 3;
        d[2] = d2;
    }
};

//! A shape of rank 4.
class Dims4 : public Dims3
{
public:
    //! A rank-4 shape of zeros.
    Dims4()
        : Dims4(0, 0, 0, 0)
    {
    }

    //! A rank-4 shape {d0, d1, d2, d3}; the unused extents are zero.
    Dims4(int64_t d0, int64_t d1, int64_t d2, int64_t d3)
        : Dims3(d0, d1, d2)
    {
        nbDims = 4;
        d[3] = d3;
    }
};

} // namespace nvinfer1

#endif // NV_INFER_LEGACY_DIMS_H
