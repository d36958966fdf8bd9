// SPDX-License-Identifier: Apache-2.0
// ReverseSequence (opset 10) onto IReverseSequenceLayer: batch_axis (default 1) and time_axis (default 0), each 0 or
// 1 and different, become the layer's batch and sequence axes; sequence_lens (INT64 in ONNX, INT32 taken too) is the
// layer's input 1, known at parse time or at run time. Lengths beyond the time axis' extent reverse the whole axis
// (ONNX requires them in range).
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

namespace
{

void checkReverseSequence(ImportContext& /*ctx*/, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    int64_t const batch = attrs.get<int64_t>("batch_axis", 1);
    int64_t const time = attrs.get<int64_t>("time_axis", 0);
    require((batch == 0 || batch == 1) && (time == 0 || time == 1) && batch != time, ErrorCode::kINVALID_NODE,
        "batch_axis is ", batch, " and time_axis ", time, "; they must be 0 and 1, in either order");
}

std::vector<Value> importReverseSequence(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& lengths = inputTensor(ctx, node, 1);
    require(
        x.getDimensions().nbDims >= 2, ErrorCode::kINVALID_NODE, "ReverseSequence needs an input of rank 2 or more");
    DataType const lengthType = lengths.getType();
    require(lengthType == DataType::kINT64 || lengthType == DataType::kINT32, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "sequence_lens is ", dataTypeName(lengthType), "; it must be INT64 (or INT32)");
    require(lengths.getDimensions().nbDims == 1, ErrorCode::kINVALID_NODE, "sequence_lens has shape ",
        shapeText(lengths.getDimensions()), "; it must be 1-D");
    auto& layer = ctx.added(ctx.network().addReverseSequence(x, lengths));
    layer.setBatchAxis(static_cast<int32_t>(node.attrs.get<int64_t>("batch_axis", 1)));
    layer.setSequenceAxis(static_cast<int32_t>(node.attrs.get<int64_t>("time_axis", 0)));
    return {output(layer.getOutput(0))};
}

} // namespace

void registerReverseSequenceOps(OpRegistry& registry)
{
    registry.add("ReverseSequence", importReverseSequence, checkReverseSequence);
}

} // namespace kiln::onnx_import
