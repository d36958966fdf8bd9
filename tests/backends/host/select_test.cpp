// SPDX-License-Identifier: Apache-2.0
// The host select against broadcast coordinates computed here (host_test_util's broadcastSource), every type.
#include "backends/host/select.h"

#include "movement_test_util.h"

namespace kiln::host::test
{
namespace
{

TEST(HostSelect, ThreeWayBroadcast)
{
    std::mt19937 rng(501);
    for (int32_t trial = 0; trial < 300; ++trial)
    {
        DataType const type = moveTypes()[trial % moveTypes().size()];
        Dims const full = randomShape(rng, 64);
        Dims const c = broadcastInput(rng, full);
        Dims const t = broadcastInput(rng, full);
        Dims const e = broadcastInput(rng, full);
        Dims out = full; // an extent stays 1 where every input has 1
        for (int32_t i = 0; i < out.nbDims; ++i)
        {
            out.d[i] = c.d[i] != 1 ? c.d[i] : (t.d[i] != 1 ? t.d[i] : e.d[i]);
        }
        HostBuffer cond(DataType::kBOOL, c);
        HostBuffer thenIn(type, t);
        HostBuffer elseIn(type, e);
        HostBuffer output(type, out);
        randomBytes(rng, cond);
        randomBytes(rng, thenIn);
        randomBytes(rng, elseIn);
        Status const done = runSelect({}, cond.tensor(), thenIn.tensor(), elseIn.tensor(), output.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t o = 0; o < elementCount(out); ++o)
        {
            bool const pick = decodeInteger(DataType::kBOOL, bytesOf(cond), broadcastSource(out, c, o)) != 0;
            ASSERT_TRUE(pick ? sameElement(output, o, thenIn, broadcastSource(out, t, o))
                             : sameElement(output, o, elseIn, broadcastSource(out, e, o)))
                << shapeString(c) << " " << shapeString(t) << " " << shapeString(e) << " o " << o;
        }
    }
}

TEST(HostSelect, RefusalsNameTypesAndShapes)
{
    TensorDesc const b{DataType::kBOOL, Dims{2, {2, 1}}};
    TensorDesc const f{DataType::kFLOAT, Dims{2, {1, 3}}};
    expectError(inferSelect({}, f, f, f), {"condition is kFLOAT", "kBOOL"});
    expectError(
        inferSelect({}, b, f, {DataType::kHALF, Dims{2, {1, 3}}}), {"then input is kFLOAT", "else input kHALF"});
    expectError(inferSelect({}, b, {DataType::kFLOAT, Dims{2, {3, 3}}}, f),
        {"condition and the then input", "[2, 1]", "[3, 3]"});
    expectError(
        inferSelect({}, b, f, {DataType::kFLOAT, Dims{1, {3}}}), {"else input do not broadcast", "[2, 3]", "[3]"});
    expectError(inferSelect({}, b, {DataType::kINT4, Dims{2, {1, 3}}}, {DataType::kINT4, Dims{2, {1, 3}}}), {"kINT4"});
    HostBuffer cond(DataType::kBOOL, Dims{1, {2}});
    HostBuffer x(DataType::kFLOAT, Dims{1, {2}});
    HostBuffer out(DataType::kFLOAT, Dims{1, {1}});
    expectError(runSelect({}, cond.tensor(), x.tensor(), x.tensor(), out.tensor()), {"output is kFLOAT [1]", "[2]"});
}

} // namespace
} // namespace kiln::host::test
