// SPDX-License-Identifier: Apache-2.0
// Host reference of IElementWiseLayer: out = op(a, b) for every ElementWiseOperation, with TensorRT's broadcasting,
// computed in double (floating and scaled types) or int64_t (integer and bool types). The operations are one table,
// elementWiseOps(), that the kernel, the support check and the tests all read.
//
//     HostBuffer a(DataType::kINT32, Dims{2, {2, 3}}), b(DataType::kINT32, Dims{2, {1, 3}});
//     HostBuffer out(DataType::kINT32, Dims{2, {2, 3}});
//     Status const done = runElementWise({ElementWiseOperation::kFLOOR_DIV}, a.tensor(), b.tensor(), out.tensor());
//
// The rules (elementwise.cpp lists where each was established):
// - Inputs have the same type (kINT8 or kFP8 scales may differ) and the same rank; in each dimension the extents are
//   equal or one is 1.
// - kAND, kOR, kXOR take kBOOL. Every other operation takes kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64, and (kiln's
//   extension, scaled like kINT8) kFP8. kEQUAL, kGREATER, kLESS, kAND, kOR, kXOR produce kBOOL; the others produce the
//   input type.
// - Floating: IEEE arithmetic in double; kFLOOR_DIV is floor(a / b); kPOW is std::pow; kMAX and kMIN return the
//   other operand when one is NaN (max(-0, +0) = +0, min(-0, +0) = -0).
// - Integer: kSUM, kSUB, kPROD and kPOW wrap around (two's complement); kDIV truncates toward zero; kFLOOR_DIV rounds
//   toward negative infinity; INT_MIN / -1 wraps to INT_MIN; a negative power is the exact power truncated toward zero
//   (0 unless the base is 1 or -1). Division by zero and 0 to a negative power are refused with an error naming the
//   element, before anything is written.
#pragma once

#include "backends/host/tensor_view.h"

#include "NvInfer.h"

#include <optional>
#include <span>

namespace kiln::host
{

using nvinfer1::ElementWiseOperation;

//! The parameters of an element-wise kernel.
struct ElementWiseParams
{
    ElementWiseOperation op{ElementWiseOperation::kSUM};
};

//! One operation: its name, the input types it accepts, its output type, and how it computes.
struct ElementWiseOpInfo
{
    ElementWiseOperation op;
    char const* name;                       //!< "kSUM".
    TypeSet inputs;                         //!< The input types accepted (both inputs have the same type).
    bool boolOutput;                        //!< Output kBOOL (comparisons and logic); otherwise the input type.
    double (*floating)(double a, double b); //!< For floating and scaled inputs; nullptr when none are accepted.
    std::optional<int64_t> (*integer)(int64_t a, int64_t b); //!< For integer and bool inputs; nullopt: undefined.
};

//! Every operation, in enum order: one row for each ElementWiseOperation.
std::span<ElementWiseOpInfo const> elementWiseOps() noexcept;

//! The row of op, or nullptr for a value outside the enum.
ElementWiseOpInfo const* findElementWiseOp(ElementWiseOperation op) noexcept;

//! The output's type and shape for inputs a and b, or the error that refuses them: an unknown operation, an input
//! type the operation does not accept, inputs of different types, ranks or non-broadcastable shapes.
Expected<TensorDesc> inferElementWise(ElementWiseParams const& params, TensorDesc const& a, TensorDesc const& b);

//! Computes out = op(a, b) after checking everything inferElementWise checks, that out has the inferred type and
//! shape, and each tensor's data and scale. out may be a or b when that has out's shape and type. On an error nothing
//! is written.
Status runElementWise(ElementWiseParams const& params, HostTensor const& a, HostTensor const& b, HostTensor const& out);

} // namespace kiln::host
