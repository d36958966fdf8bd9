// SPDX-License-Identifier: Apache-2.0
// NonZero (opsets 9 and 13) onto INonZeroLayer with INT64 indices, as ONNX has them: output [rank, n], n known once
// the layer has run. The input may be FLOAT, FLOAT16, BFLOAT16, INT8, INT32, INT64, BOOL or UINT8 (through INT32,
// which keeps every value's zero-ness).
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

namespace
{

std::vector<Value> importNonZero(ImportContext& ctx, Node& node)
{
    ITensor* x = &inputTensor(ctx, node, 0);
    DataType const type = x->getType();
    require(isFloating(type) || type == DataType::kINT8 || type == DataType::kINT32 || type == DataType::kINT64
            || type == DataType::kBOOL || type == DataType::kUINT8,
        ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "NonZero takes FLOAT, FLOAT16, BFLOAT16, INT8, UINT8, INT32, INT64 or BOOL inputs");
    if (type == DataType::kUINT8)
    {
        x = &castTo(ctx, *x, DataType::kINT32);
    }
    auto& layer = ctx.added(ctx.network().addNonZero(*x, DataType::kINT64));
    return {output(layer.getOutput(0))};
}

} // namespace

void registerNonZeroOps(OpRegistry& registry)
{
    registry.add("NonZero", importNonZero);
}

} // namespace kiln::onnx_import
