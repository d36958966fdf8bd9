// SPDX-License-Identifier: Apache-2.0
// The CUDA Einsum against the host reference: one and two inputs, every type, matrix and batch products, transposes,
// sums, diagonals and traces, "..." with broadcasting, implicit outputs, random extents, a larger contraction, empty
// tensors, and the refusals (the host's messages).
#include "backends/host/einsum.h"

#include "cuda_test_util.h"

#include <string>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

class CudaEinsum : public CudaKernelTest
{
protected:
    void compare(std::string const& equation, std::vector<Dims> const& shapes, DataType type, double extra = 1.0)
    {
        SCOPED_TRACE("\"" + equation + "\" " + dataTypeName(type));
        std::vector<HostBuffer> inputs;
        std::vector<host::TensorDesc> descs;
        std::vector<HostTensor> views;
        for (Dims const& dims : shapes)
        {
            inputs.emplace_back(type, dims);
            randomize(inputs.back(), mRng, -2.0, 2.0);
            descs.push_back({type, dims});
        }
        for (HostBuffer const& input : inputs)
        {
            views.push_back(input.tensor());
        }
        EinsumParams const params{equation};
        Expected<host::TensorDesc> const desc = host::inferEinsum(params, descs);
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer expected(desc.value().type, desc.value().dims);
        Status const reference = host::runEinsum(params, views, expected.tensor());
        ASSERT_TRUE(reference.ok()) << reference.error().message;
        std::vector<DeviceBuffer> device;
        std::vector<HostTensor> deviceViews;
        for (HostTensor const& view : views)
        {
            device.push_back(DeviceBuffer::upload(view));
        }
        for (DeviceBuffer const& buffer : device)
        {
            deviceViews.push_back(buffer.tensor());
        }
        DeviceBuffer const dout(expected.tensor());
        Status const done = runEinsum(params, deviceViews, dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dout.download(mStream), expected, extra, equation);
    }
};

TEST_F(CudaEinsum, EquationsAndTypes)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        auto const e = [&]() { return static_cast<int64_t>(1 + mRng() % 5); };
        int64_t const i = e();
        int64_t const j = e();
        int64_t const k = e();
        int64_t const b = e();
        compare("ij,jk->ik", {Dims{2, {i, j}}, Dims{2, {j, k}}}, type);
        compare("ij,jk", {Dims{2, {i, j}}, Dims{2, {j, k}}}, type);
        compare("bij, bjk -> bik", {Dims{3, {b, i, j}}, Dims{3, {b, j, k}}}, type);
        compare("ij->ji", {Dims{2, {i, j}}}, type);
        compare("ij->i", {Dims{2, {i, j}}}, type);
        compare("i,i", {Dims{1, {j}}, Dims{1, {j}}}, type);
        compare("i,j->ij", {Dims{1, {i}}, Dims{1, {j}}}, type);
        compare("ii", {Dims{2, {j, j}}}, type);
        compare("...ii ->...i", {Dims{3, {b, j, j}}}, type);
        compare("...ij,...jk->...ik", {Dims{4, {2, 1, i, j}}, Dims{3, {3, j, k}}}, type);
        compare("ij,ij->ij", {Dims{2, {i, 1}}, Dims{2, {i, k}}}, type);
        compare("bA", {Dims{2, {i, j}}}, type);
        compare("", {Dims{0, {}}}, type);
    }
}

TEST_F(CudaEinsum, ALargerContractionAndEmptyTensors)
{
    // 64 x 96 outputs, each a sum of 200 products: float sums on the device, double on the host.
    compare("ik,kj->ij", {Dims{2, {64, 200}}, Dims{2, {200, 96}}}, DataType::kFLOAT, 4.0);
    compare("ij,jk->ik", {Dims{2, {2, 0}}, Dims{2, {0, 3}}}, DataType::kFLOAT);
    compare("ij,jk->ik", {Dims{2, {0, 2}}, Dims{2, {2, 3}}}, DataType::kHALF);
}

TEST_F(CudaEinsum, Refusals)
{
    HostBuffer a(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer b(DataType::kFLOAT, Dims{2, {4, 5}});
    DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
    DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 5}});
    DeviceBuffer const dout(out.tensor());
    std::vector<HostTensor> const inputs{da.tensor(), db.tensor()};
    Status const extents = runEinsum({"ij,jk->ik"}, inputs, dout.tensor(), launch());
    ASSERT_FALSE(extents.ok());
    EXPECT_NE(
        extents.error().message.find("einsum: the equation \"ij,jk->ik\" gives one label to axes of extents 3 and 4"),
        std::string::npos)
        << extents.error().message;
}

} // namespace
} // namespace kiln::cuda::test
