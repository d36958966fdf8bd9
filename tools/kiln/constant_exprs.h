// SPDX-License-Identifier: Apache-2.0
// An IExprBuilder for asking a plugin its output shapes at concrete input shapes (`kiln check-plugin`): every input
// extent is a constant, operations on constants fold, and what cannot fold (a size tensor, an operation on one) is a
// non-constant expression. It keeps what the plugin misused (an expression it did not make, an unknown operation, a
// division by zero) for the report.
//
//     ConstantExprBuilder builder;
//     DimsExprs in{2, {builder.constant(2), builder.constant(3)}};
//     plugin.getOutputShapes(&in, 1, nullptr, 0, &out, 1, builder);
//     std::optional<int64_t> const extent = builder.valueOf(out.d[0]);   // nullopt: not a constant
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln_tool
{

class ConstantExprBuilder final : public nvinfer1::IExprBuilder
{
public:
    ConstantExprBuilder();
    ~ConstantExprBuilder() noexcept override;
    ConstantExprBuilder(ConstantExprBuilder const&) = delete;
    ConstantExprBuilder& operator=(ConstantExprBuilder const&) = delete;

    //! Whether expr is an expression this builder made.
    bool owns(nvinfer1::IDimensionExpr const* expr) const noexcept;
    //! expr's value when it is one of this builder's constants.
    std::optional<int64_t> valueOf(nvinfer1::IDimensionExpr const* expr) const noexcept;
    //! What the plugin did wrong through this builder, in order.
    std::vector<std::string> const& misuses() const noexcept;
    //! Whether the plugin declared a size tensor.
    bool declaredSizeTensor() const noexcept;

private:
    class Impl;
    std::unique_ptr<Impl> mImplObject;
};

} // namespace kiln_tool
