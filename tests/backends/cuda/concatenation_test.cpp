// SPDX-License-Identifier: Apache-2.0
// The CUDA concatenation against the host's: random shapes, axes and numbers of inputs (more than one launch's chunk
// of them too), empty inputs among them, every element size, the copy path (one outer row), a grid larger than one
// pass, and the refusals with the host's messages.
#include "backends/host/concatenation.h"

#include "movement_test_util.h"

namespace kiln::cuda::test
{
namespace
{

class CudaConcatenation : public CudaKernelTest
{
protected:
    //! Concatenates random inputs of type and shapes on the host and the device, and compares outcomes and bytes.
    void check(int32_t axis, DataType type, std::vector<Dims> const& shapes, std::string const& what)
    {
        ConcatenationParams const params{axis};
        std::vector<HostBuffer> inputs;
        std::vector<DeviceBuffer> devices;
        std::vector<HostTensor> hostViews;
        std::vector<DeviceTensor> deviceViews;
        std::vector<host::TensorDesc> descs;
        for (Dims const& shape : shapes)
        {
            inputs.emplace_back(type, shape);
            randomBytes(inputs.back(), mRng);
            devices.push_back(DeviceBuffer::upload(inputs.back().tensor()));
            descs.push_back({type, shape});
        }
        for (std::size_t i = 0; i < inputs.size(); ++i)
        {
            hostViews.push_back(inputs[i].tensor());
            deviceViews.push_back(devices[i].tensor());
        }
        Expected<host::TensorDesc> const desc = host::inferConcatenation(params, descs);
        HostBuffer expected(type, desc ? desc.value().dims : Dims{1, {1}});
        Status const hostStatus = host::runConcatenation(params, hostViews, expected.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const deviceStatus = runConcatenation(params, deviceViews, dout.tensor(), launch());
        if (sameOutcome(deviceStatus, hostStatus, what))
        {
            HostBuffer actual = dout.download(mStream);
            expectSameBytes(actual, expected, what);
        }
    }
};

TEST_F(CudaConcatenation, RandomConcatenationsMatchTheHost)
{
    std::vector<DataType> const types = moveTypes();
    for (int32_t trial = 0; trial < 300; ++trial)
    {
        DataType const type = types[static_cast<std::size_t>(trial) % types.size()];
        int32_t const rank = 1 + static_cast<int32_t>(mRng() % 5);
        int32_t const axis = static_cast<int32_t>(mRng() % static_cast<uint64_t>(rank));
        Dims const base = randomShape(mRng, rank, 4, trial % 10 == 0);
        // Up to 40 inputs: more than one launch's chunk of 16.
        int32_t const nbInputs = 1 + static_cast<int32_t>(mRng() % (trial % 4 == 0 ? 40 : 5));
        std::vector<Dims> shapes;
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            Dims shape = base;
            shape.d[axis] = static_cast<int64_t>(mRng() % 4); // 0 sometimes: empty inputs are allowed
            shapes.push_back(shape);
        }
        check(axis, type, shapes,
            "trial " + std::to_string(trial) + " " + describe(type, base) + " axis " + std::to_string(axis) + ", "
                + std::to_string(nbInputs) + " inputs");
    }
}

TEST_F(CudaConcatenation, LargeInputsLoopOverTheGrid)
{
    for (DataType const type : {DataType::kUINT8, DataType::kHALF, DataType::kFLOAT, DataType::kINT64})
    {
        check(1, type, {Dims{2, {1200, 700}}, Dims{2, {1200, 1}}, Dims{2, {1200, 1100}}},
            std::string("large, axis 1 ") + dataTypeName(type));
        check(0, type, {Dims{2, {1200, 700}}, Dims{2, {1, 700}}, Dims{2, {2000, 700}}},
            std::string("large, axis 0 ") + dataTypeName(type));
    }
}

TEST_F(CudaConcatenation, EmptyTensors)
{
    check(0, DataType::kFLOAT, {Dims{2, {0, 3}}, Dims{2, {0, 3}}}, "all inputs empty");
    check(1, DataType::kINT8, {Dims{2, {0, 3}}, Dims{2, {0, 2}}}, "no outer rows");
    check(1, DataType::kBOOL, {Dims{2, {2, 0}}, Dims{2, {2, 3}}, Dims{2, {2, 0}}}, "empty inputs between");
}

TEST_F(CudaConcatenation, RefusesWhatTheHostRefuses)
{
    check(1, DataType::kFLOAT, {Dims{2, {2, 3}}, Dims{2, {3, 3}}}, "mismatched extents");
    check(2, DataType::kFLOAT, {Dims{2, {2, 3}}}, "axis out of range");
    check(0, DataType::kFLOAT, {Dims{0, {}}}, "rank 0");

    DeviceBuffer const dout(HostBuffer(DataType::kFLOAT, Dims{1, {1}}).tensor());
    Status const none = runConcatenation(ConcatenationParams{0}, {}, dout.tensor(), launch());
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message, "concatenation: needs at least one input");

    HostBuffer const a(DataType::kFLOAT, Dims{1, {2}});
    HostBuffer const b(DataType::kHALF, Dims{1, {2}});
    DeviceBuffer const da(a.tensor());
    DeviceBuffer const db(b.tensor());
    DeviceBuffer const dab(HostBuffer(DataType::kFLOAT, Dims{1, {4}}).tensor());
    std::vector<DeviceTensor> const mixed{da.tensor(), db.tensor()};
    Status const types = runConcatenation(ConcatenationParams{0}, mixed, dab.tensor(), launch());
    ASSERT_FALSE(types.ok());
    EXPECT_EQ(types.error().message, "concatenation: input 1 is kHALF but input 0 is kFLOAT");
}

} // namespace
} // namespace kiln::cuda::test
