// SPDX-License-Identifier: Apache-2.0
// ONNX ops kiln knows and cannot import. A node of one of these types fails its check with the reason, unless a
// plugin of the same name is asked for (plugin_namespace attribute, or OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE).
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

void registerUnsupportedOps(OpRegistry& registry)
{
    char const* const strings = "kiln has no string tensors";
    char const* const sequences = "kiln has no sequence or optional values";
    char const* const training = "it is a training op";
    for (char const* op : {"StringNormalizer", "TfIdfVectorizer", "RegexFullMatch", "StringConcat", "StringSplit"})
    {
        registry.addUnsupported(op, strings);
    }
    for (char const* op : {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert",
             "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalGetElement",
             "OptionalHasElement"})
    {
        registry.addUnsupported(op, sequences);
    }
    for (char const* op :
        {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "Adagrad", "Adam", "Momentum", "Gradient"})
    {
        registry.addUnsupported(op, training);
    }
    for (char const* op : {"BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "ConvInteger",
             "MatMulInteger", "QLinearConv", "QLinearMatMul", "DynamicQuantizeLinear"})
    {
        registry.addUnsupported(op, "kiln has no unsigned or integer-accumulating kernels for it");
    }
    for (char const* op : {"Col2Im", "Compress", "DFT", "Det", "ImageDecoder", "MaxRoiPool", "MaxUnpool",
             "MelWeightMatrix", "Multinomial", "Unique", "AffineGrid", "Bernoulli", "CenterCropPad"})
    {
        registry.addUnsupported(op, "no kiln layer computes it yet");
    }
}

} // namespace kiln::onnx_import
