// SPDX-License-Identifier: Apache-2.0
// Engine models made by hand for the runtime's tests, and a fixture (support/api_test.h's, with a logger that keeps
// every message) that turns them into engines:
//
//     EngineModel model = reluAddModel();          // y = relu(x) + x, x FP32 [N, 3], N in [1, 8]
//     auto engine = makeEngine(std::move(model));   // through createEngine, the builder's entry point
//
// ModelMaker writes the records the builder would: shape expressions, symbols, tensors, layers and one profile.
#pragma once

#include "support/api_test.h"

#include "backends/backend.h"
#include "plan/engine_model.h"
#include "runtime/engine.h"

#include "NvInferRuntime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test
{

using nvinfer1::DataType;
using nvinfer1::Dims;

//! Writes an EngineModel record by record.
class ModelMaker
{
public:
    explicit ModelMaker(std::string name) { mModel.name = std::move(name); }

    //! A constant expression.
    uint32_t constant(int64_t value)
    {
        ExprRecord record;
        record.kind = DimExpr::Kind::kCONSTANT;
        record.value = value;
        return push(record);
    }

    //! A new symbol of kind whose value is value `index` (extent or element) of tensor; its expression.
    uint32_t symbol(std::string name, SymbolKind kind, int32_t tensor, int32_t index)
    {
        mModel.symbols.push_back(SymbolRecord{std::move(name), kind, tensor, index, -1, -1});
        ExprRecord record;
        record.kind = DimExpr::Kind::kSYMBOL;
        record.symbol = static_cast<uint32_t>(mModel.symbols.size() - 1);
        return push(record);
    }

    //! op(lhs, rhs).
    uint32_t operation(nvinfer1::DimensionOperation op, uint32_t lhs, uint32_t rhs)
    {
        ExprRecord record;
        record.kind = DimExpr::Kind::kOPERATION;
        record.op = op;
        record.lhs = lhs;
        record.rhs = rhs;
        return push(record);
    }

    //! A tensor (its shape may be set later, once the symbols that name it exist).
    int32_t tensor(std::string name, DataType type, std::vector<uint32_t> shape = {})
    {
        TensorRecord record;
        record.name = std::move(name);
        record.type = type;
        record.shape = std::move(shape);
        mModel.tensors.push_back(std::move(record));
        mOffsets.push_back(-1);
        return static_cast<int32_t>(mModel.tensors.size() - 1);
    }

    //! A network input, in the order inputs are added.
    int32_t input(std::string name, DataType type, std::vector<uint32_t> shape = {})
    {
        int32_t const t = tensor(std::move(name), type, std::move(shape));
        at(t).isInput = true;
        mInputs.push_back(t);
        return t;
    }

    void setShape(int32_t t, std::vector<uint32_t> shape) { at(t).shape = std::move(shape); }

    //! Marks t a network output.
    void output(int32_t t)
    {
        at(t).isOutput = true;
        mOutputs.push_back(t);
    }

    //! Places internal tensor t at offset in the activation block.
    void place(int32_t t, int64_t offset) { mOffsets[static_cast<std::size_t>(t)] = offset; }

    //! A layer, appended in execution order; it becomes the producer of its outputs.
    void layer(std::string name, LayerParams params, std::vector<int32_t> inputs, std::vector<int32_t> outputs)
    {
        LayerRecord record;
        record.name = std::move(name);
        record.type = layerTypeOf(params);
        record.params = std::move(params);
        record.inputs = std::move(inputs);
        record.outputs = std::move(outputs);
        for (int32_t t : record.outputs)
        {
            at(t).producer = static_cast<int32_t>(mModel.layers.size());
        }
        mModel.layers.push_back(std::move(record));
    }

    //! Weights for a layer's parameters; they stay valid when the model moves.
    nvinfer1::Weights weights(std::vector<float> const& values)
    {
        WeightsBlob blob;
        blob.type = DataType::kFLOAT;
        blob.count = static_cast<int64_t>(values.size());
        blob.bytes.resize(values.size() * sizeof(float));
        std::memcpy(blob.bytes.data(), values.data(), blob.bytes.size());
        mModel.weights.push_back(std::move(blob));
        return mModel.weightsOf(static_cast<int32_t>(mModel.weights.size() - 1));
    }

    void assertion(uint32_t condition, std::string message, int32_t layerIndex)
    {
        mModel.assertions.push_back(AssertionRecord{condition, std::move(message), layerIndex});
    }

    //! The range of input t (shape values for a shape tensor).
    void range(int32_t t, Dims min, Dims opt, Dims max, std::vector<int64_t> minValues = {},
        std::vector<int64_t> optValues = {}, std::vector<int64_t> maxValues = {})
    {
        mRanges.push_back(
            ProfileRecord::Input{t, min, opt, max, std::move(minValues), std::move(optValues), std::move(maxValues)});
    }

    //! The model with one profile of activationBytes (or several, each a copy with its own ranges).
    EngineModel finish(int64_t activationBytes)
    {
        mModel.ioTensors = mInputs;
        mModel.ioTensors.insert(mModel.ioTensors.end(), mOutputs.begin(), mOutputs.end());
        mModel.nbInputs = static_cast<int32_t>(mInputs.size());
        ProfileRecord profile;
        for (int32_t t : mInputs)
        {
            for (auto const& input : mRanges)
            {
                if (input.tensor == t)
                {
                    profile.inputs.push_back(input);
                }
            }
        }
        profile.offsets = mOffsets;
        profile.activationBytes = activationBytes;
        mModel.profiles.push_back(std::move(profile));
        mModel.deviceMemorySize = activationBytes;
        return std::move(mModel);
    }

private:
    uint32_t push(ExprRecord const& record)
    {
        mModel.exprs.push_back(record);
        return static_cast<uint32_t>(mModel.exprs.size() - 1);
    }
    TensorRecord& at(int32_t t) { return mModel.tensors[static_cast<std::size_t>(t)]; }

    EngineModel mModel;
    std::vector<int64_t> mOffsets;
    std::vector<int32_t> mInputs;
    std::vector<int32_t> mOutputs;
    std::vector<ProfileRecord::Input> mRanges;
};

//! y = relu(x) + x with x FP32 [N, 3], N in [1, 8] (opt 4); relu's output "h" lives in the activation block.
inline EngineModel reluAddModel()
{
    ModelMaker m("relu_add");
    int32_t const x = m.input("x", DataType::kFLOAT);
    uint32_t const n = m.symbol("x.d0", SymbolKind::kINPUT_EXTENT, x, 0);
    uint32_t const three = m.constant(3);
    m.setShape(x, {n, three});
    int32_t const h = m.tensor("h", DataType::kFLOAT, {n, three});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {n, three});
    m.output(y);
    m.place(h, 0);
    m.layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {x}, {h});
    m.layer("add", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {h, x}, {y});
    m.range(x, Dims{2, {1, 3}}, Dims{2, {4, 3}}, Dims{2, {8, 3}});
    return m.finish(256);
}

//! y = a + b + c: a and b FP32 [N, 3] and [M, 3] with N, M in [1, 6] and an assertion N == M; c a constant [1, 3]
//! = {10, 20, 30} broadcast over the rows.
inline EngineModel addConstantModel()
{
    ModelMaker m("add_constant");
    int32_t const a = m.input("a", DataType::kFLOAT);
    int32_t const b = m.input("b", DataType::kFLOAT);
    uint32_t const n = m.symbol("a.d0", SymbolKind::kINPUT_EXTENT, a, 0);
    uint32_t const rows = m.symbol("b.d0", SymbolKind::kINPUT_EXTENT, b, 0);
    uint32_t const one = m.constant(1);
    uint32_t const three = m.constant(3);
    m.setShape(a, {n, three});
    m.setShape(b, {rows, three});
    int32_t const c = m.tensor("c", DataType::kFLOAT, {one, three});
    int32_t const t = m.tensor("t", DataType::kFLOAT, {n, three});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {n, three});
    m.output(y);
    m.place(c, 0);
    m.place(t, 256);
    m.layer("sum", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {a, b}, {t});
    m.assertion(m.operation(nvinfer1::DimensionOperation::kEQUAL, n, rows), "a and b have the same number of rows", 0);
    m.layer("bias", ConstantParams{Dims{2, {1, 3}}, m.weights({10.F, 20.F, 30.F})}, {}, {c});
    m.layer("add", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {t, c}, {y});
    m.range(a, Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {6, 3}});
    m.range(b, Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {6, 3}});
    return m.finish(512);
}

//! Runs an engine of addConstantModel on a = {1, 2, 3}, b = {4, 5, 6} ({15, 27, 39}); empty when a call fails.
inline std::vector<float> runAddConstant(nvinfer1::ICudaEngine& engine)
{
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
    std::vector<float> a{1, 2, 3}, b{4, 5, 6}, y(3, 0.F);
    if (context == nullptr || !context->setInputShape("a", dims({1, 3})) || !context->setInputShape("b", dims({1, 3}))
        || !context->setTensorAddress("a", a.data()) || !context->setTensorAddress("b", b.data())
        || !context->setTensorAddress("y", y.data()) || !context->enqueueV3(nullptr))
    {
        return {};
    }
    return y;
}

//! The layer "fill": y = linspace(start, step) of the length that shape tensor n holds.
inline void linspaceOfLength(ModelMaker& m, int32_t n, int32_t y, double start = 1.0, double step = 2.0)
{
    FillParams fill;
    fill.dims = kUnsetDims;
    fill.op = nvinfer1::FillOperation::kLINSPACE;
    fill.alpha = start;
    fill.beta = step;
    fill.toType = DataType::kFLOAT;
    m.layer("fill", fill, {n}, {y});
}

//! y = linspace(1, 2) of length n, n the value of input shape tensor "n" (INT32 [1], n in [1, 10]).
inline EngineModel shapeInputModel()
{
    ModelMaker m("fill_from_shape_input");
    uint32_t const one = m.constant(1);
    int32_t const shape = m.input("n", DataType::kINT32, {one});
    uint32_t const length = m.symbol("n.v0", SymbolKind::kSHAPE_VALUE, shape, 0);
    int32_t const y = m.tensor("y", DataType::kFLOAT, {length});
    m.output(y);
    linspaceOfLength(m, shape, y);
    m.range(shape, Dims{1, {1}}, Dims{1, {1}}, Dims{1, {1}}, {1}, {4}, {10});
    EngineModel model = m.finish(0);
    model.tensors[static_cast<std::size_t>(shape)].isShapeTensor = true;
    return model;
}

//! y = linspace(0, 1) of length count[0], where "count" is an ordinary INT32 [1] input copied by an identity layer to
//! "c": the length is a data-dependent value, known only once the identity has run.
inline EngineModel dataDependentModel()
{
    ModelMaker m("data_dependent_fill");
    uint32_t const one = m.constant(1);
    int32_t const count = m.input("count", DataType::kINT32, {one});
    int32_t const c = m.tensor("c", DataType::kINT32, {one});
    uint32_t const length = m.symbol("c.v0", SymbolKind::kSHAPE_VALUE, c, 0);
    int32_t const y = m.tensor("y", DataType::kFLOAT, {length});
    m.output(y);
    m.layer("copy", IdentityParams{}, {count}, {c});
    linspaceOfLength(m, c, y, 0.0, 1.0);
    m.range(count, Dims{1, {1}}, Dims{1, {1}}, Dims{1, {1}});
    return m.finish(0);
}

//! s = shape(x): x FP32 [N, 3] with N in [1, 8]; "s" is an output shape tensor (INT64 [2], values [N, 3]).
inline EngineModel shapeOutputModel()
{
    ModelMaker m("shape_output");
    int32_t const x = m.input("x", DataType::kFLOAT);
    uint32_t const n = m.symbol("x.d0", SymbolKind::kINPUT_EXTENT, x, 0);
    uint32_t const three = m.constant(3);
    m.setShape(x, {n, three});
    int32_t const s = m.tensor("s", DataType::kINT64, {m.constant(2)});
    m.output(s);
    m.layer("shape", ShapeParams{}, {x}, {s});
    m.range(x, Dims{2, {1, 3}}, Dims{2, {4, 3}}, Dims{2, {8, 3}});
    EngineModel model = m.finish(0);
    model.tensors[static_cast<std::size_t>(s)].isShapeTensor = true;
    model.tensors[static_cast<std::size_t>(s)].values = std::vector<uint32_t>{n, three};
    return model;
}

//! ApiTest's logger (kiln's logger while the test runs) and its error expectations, and engines made from models.
class RuntimeTest : public ApiTest
{
protected:
    //! An engine of model through createEngine (the host backend, or backends).
    std::unique_ptr<nvinfer1::ICudaEngine> makeEngine(EngineModel model, BackendFactory backends = {})
    {
        nvinfer1::ICudaEngine* engine = backends ? createEngine(std::move(model), mLogger, std::move(backends))
                                                 : createEngine(std::move(model), mLogger);
        EXPECT_NE(engine, nullptr) << mLogger.all();
        return std::unique_ptr<nvinfer1::ICudaEngine>(engine);
    }
};

} // namespace kiln::test
