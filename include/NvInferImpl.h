/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferImpl.h -- the hidden implementation interfaces (namespace nvinfer1::apiv) behind the API's wrapper
 * classes. IDimensionExpr and IExprBuilder are not pure interfaces: their inline methods call through a
 * pointer to these classes, so a plugin compiled against any TensorRT-10 headers inlines calls into them.
 * kiln implements them; users never do. Their vtable order is part of the binary interface:
 *
 *     VDimensionExpr: [~D1, ~D0, isConstant, getConstantValue, isSizeTensor]
 *     VExprBuilder:   [~D1, ~D0, constant, operation, declareSizeTensor]
 *
 * Builder, network and runtime implementation interfaces are added here by the parts of kiln that need them.
 */

#ifndef NV_INFER_IMPL_H
#define NV_INFER_IMPL_H

#include "NvInferLegacyDims.h"
#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{

enum class DimensionOperation : int32_t;
class IDimensionExpr;

//! Implementation interfaces behind the API's wrapper classes.
namespace apiv
{

//! The root of the implementation interfaces.
class VRoot
{
public:
    virtual ~VRoot() noexcept = default;
};

//! What an IDimensionExpr forwards to.
class VDimensionExpr : public VRoot
{
public:
    //! Whether the expression is a known constant.
    virtual bool isConstant() const = 0;
    //! The constant value, or the smallest int64_t when not constant.
    virtual int64_t getConstantValue() const = 0;
    //! Whether the expression was made by declareSizeTensor().
    virtual bool isSizeTensor() const = 0;
};

//! What an IExprBuilder forwards to.
class VExprBuilder : public VRoot
{
public:
    //! An expression for a constant.
    virtual IDimensionExpr const* constant(int64_t value) = 0;
    //! An expression for op applied to two expressions; nullptr for an invalid op.
    virtual IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second)
        = 0;
    //! Declares output outputIndex a size tensor; returns the extent it holds.
    virtual IDimensionExpr const* declareSizeTensor(
        int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper)
        = 0;
};

} // namespace apiv
} // namespace nvinfer1

#endif // NV_INFER_IMPL_H
