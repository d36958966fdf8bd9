// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - NvInfer.h's IMatrixMultiplyLayer and MatrixOperation documentation (TensorRT 10): matrix x matrix -> matrix,
//   matrix x vector -> vector, vector x matrix -> vector, vector x vector -> scalar; higher ranks are collections; a
//   batch extent of 1 broadcasts; the number of batch axes must match.
// - Types and shapes: the operator reference's MatrixMultiply page (docs.nvidia.com/deeplearning/tensorrt/operators/
//   docs/MatrixMultiply.html): "T: float16, float32, bfloat16, float8"; batch extents match or one is 1.
#include "backends/host/matrix_multiply.h"

#include <array>
#include <string>

namespace kiln::host
{

namespace
{

constexpr std::array<MatrixOpInfo, 3> kOps{{
    {MatrixOperation::kNONE, "kNONE", 2, false},
    {MatrixOperation::kTRANSPOSE, "kTRANSPOSE", 2, true},
    {MatrixOperation::kVECTOR, "kVECTOR", 1, false},
}};
static_assert(kOps.size() == static_cast<std::size_t>(nvinfer1::EnumMax<MatrixOperation>()),
    "kOps needs one row for every MatrixOperation");

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "matrix multiply: " + message};
}

//! The checked geometry of a product.
struct Plan
{
    MatrixOpInfo const* op[2]{};
    int32_t batchRank{};
    int64_t m{1};
    int64_t n{1};
    int64_t k{};
    Dims batch{};
    Dims output{};
};

Expected<Plan> makePlan(MatrixMultiplyParams const& params, TensorDesc const& a, TensorDesc const& b)
{
    Plan plan;
    TensorDesc const* inputs[2] = {&a, &b};
    for (int32_t i = 0; i < 2; ++i)
    {
        plan.op[i] = findMatrixOp(params.ops[i]);
        if (plan.op[i] == nullptr)
        {
            return invalid("unknown MatrixOperation " + std::to_string(static_cast<int32_t>(params.ops[i]))
                + " for input " + std::to_string(i));
        }
        if (!contains(kMatrixMultiplyTypes, inputs[i]->type))
        {
            return invalid(std::string("does not accept ") + dataTypeName(inputs[i]->type) + " inputs (it takes "
                + typeSetString(kMatrixMultiplyTypes) + ")");
        }
        if (!isValidShape(inputs[i]->dims) || inputs[i]->dims.nbDims < plan.op[i]->matrixAxes)
        {
            return invalid("input " + std::to_string(i) + " " + shapeString(inputs[i]->dims) + " has rank "
                + std::to_string(inputs[i]->dims.nbDims) + " but " + plan.op[i]->name
                + " needs rank >= " + std::to_string(plan.op[i]->matrixAxes));
        }
    }
    if (a.type != b.type)
    {
        return invalid(
            std::string("inputs have different types, ") + dataTypeName(a.type) + " and " + dataTypeName(b.type));
    }
    int32_t const batchA = a.dims.nbDims - plan.op[0]->matrixAxes;
    int32_t const batchB = b.dims.nbDims - plan.op[1]->matrixAxes;
    if (batchA != batchB)
    {
        return invalid("input 0 " + shapeString(a.dims) + " (" + plan.op[0]->name + ") has " + std::to_string(batchA)
            + " batch axes but input 1 " + shapeString(b.dims) + " (" + plan.op[1]->name + ") has "
            + std::to_string(batchB) + "; they need the same number");
    }
    plan.batchRank = batchA;
    plan.batch = Dims{batchA, {}};
    for (int32_t i = 0; i < batchA; ++i)
    {
        int64_t const x = a.dims.d[i];
        int64_t const y = b.dims.d[i];
        if (x != y && x != 1 && y != 1)
        {
            return invalid("batch axis " + std::to_string(i) + " of input 0 " + shapeString(a.dims) + " and input 1 "
                + shapeString(b.dims) + " do not broadcast (" + std::to_string(x) + " against " + std::to_string(y)
                + ")");
        }
        plan.batch.d[i] = x == 1 ? y : x;
    }
    // op0: [M, K], [K, M] transposed, or [K]; op1: [K, N], [N, K] transposed, or [K].
    auto const last = [](Dims const& d, int32_t back) { return d.d[d.nbDims - back]; };
    int64_t kA = 0;
    int64_t kB = 0;
    if (plan.op[0]->matrixAxes == 2)
    {
        plan.m = plan.op[0]->transposed ? last(a.dims, 1) : last(a.dims, 2);
        kA = plan.op[0]->transposed ? last(a.dims, 2) : last(a.dims, 1);
    }
    else
    {
        kA = last(a.dims, 1);
    }
    if (plan.op[1]->matrixAxes == 2)
    {
        plan.n = plan.op[1]->transposed ? last(b.dims, 2) : last(b.dims, 1);
        kB = plan.op[1]->transposed ? last(b.dims, 1) : last(b.dims, 2);
    }
    else
    {
        kB = last(b.dims, 1);
    }
    if (kA != kB)
    {
        return invalid("inner extents differ: input 0 " + shapeString(a.dims) + " (" + plan.op[0]->name
            + ") has K = " + std::to_string(kA) + " but input 1 " + shapeString(b.dims) + " (" + plan.op[1]->name
            + ") has K = " + std::to_string(kB));
    }
    plan.k = kA;
    plan.output = plan.batch;
    if (plan.op[0]->matrixAxes == 2)
    {
        plan.output.d[plan.output.nbDims++] = plan.m;
    }
    if (plan.op[1]->matrixAxes == 2)
    {
        plan.output.d[plan.output.nbDims++] = plan.n;
    }
    return plan;
}

} // namespace

std::span<MatrixOpInfo const> matrixOps() noexcept
{
    return kOps;
}

MatrixOpInfo const* findMatrixOp(MatrixOperation op) noexcept
{
    auto const index = static_cast<std::size_t>(op);
    return index < kOps.size() ? &kOps[index] : nullptr;
}

Expected<TensorDesc> inferMatrixMultiply(MatrixMultiplyParams const& params, TensorDesc const& a, TensorDesc const& b)
{
    Expected<Plan> const plan = makePlan(params, a, b);
    if (!plan)
    {
        return plan.error();
    }
    return TensorDesc{a.type, plan.value().output};
}

Status runMatrixMultiply(
    MatrixMultiplyParams const& params, HostTensor const& a, HostTensor const& b, HostTensor const& out)
{
    Expected<Plan> const planned = makePlan(params, {a.type, a.dims}, {b.type, b.dims});
    if (!planned)
    {
        return planned.error();
    }
    Plan const& p = planned.value();
    if (std::optional<std::string> const mismatch = outputMismatch(out, a.type, p.output))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&a, "input 0"}, std::pair{&b, "input 1"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    // Each input's batch axes, as a shape of the output's batch rank, map batch indices by broadcasting.
    Dims batchA{p.batchRank, {}};
    Dims batchB{p.batchRank, {}};
    for (int32_t i = 0; i < p.batchRank; ++i)
    {
        batchA.d[i] = a.dims.d[i];
        batchB.d[i] = b.dims.d[i];
    }
    BroadcastMap const mapA(p.batch, batchA);
    BroadcastMap const mapB(p.batch, batchB);
    int64_t const batches = elementCount(p.batch);
    int64_t const sizeA = (p.op[0]->matrixAxes == 2 ? p.m : 1) * p.k;
    int64_t const sizeB = (p.op[1]->matrixAxes == 2 ? p.n : 1) * p.k;
    for (int64_t batch = 0; batch < batches; ++batch)
    {
        int64_t const baseA = mapA(batch) * sizeA;
        int64_t const baseB = mapB(batch) * sizeB;
        for (int64_t i = 0; i < p.m; ++i)
        {
            for (int64_t j = 0; j < p.n; ++j)
            {
                double sum = 0.0;
                for (int64_t q = 0; q < p.k; ++q)
                {
                    // Element (i, q) of op0(a) and (q, j) of op1(b) in their stored layouts.
                    int64_t const atA = p.op[0]->transposed ? q * p.m + i : i * p.k + q;
                    int64_t const atB = p.op[1]->transposed ? j * p.k + q : q * p.n + j;
                    sum += loadFloat(a, baseA + atA) * loadFloat(b, baseB + atB);
                }
                storeFloat(out, (batch * p.m + i) * p.n + j, sum);
            }
        }
    }
    return Done{};
}

} // namespace kiln::host
