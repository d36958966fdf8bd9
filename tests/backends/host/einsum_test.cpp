// SPDX-License-Identifier: Apache-2.0
// The host Einsum against sums written out here: each case gives its equation and, by hand, every input's and the
// output's labels with "..." expanded, and a brute-force oracle walks every assignment of every label. Matrix
// products, transposes, sums, inner and outer products, diagonals and traces, "..." with broadcasting, extents of 1
// that broadcast, capitals, implicit outputs, 0-D and empty tensors, in FP32, FP16 and BF16; and every refusal with
// its message.
#include "backends/host/einsum.h"

#include "host_test_util.h"

#include <map>
#include <string>

namespace kiln::host::test
{
namespace
{

struct Case
{
    char const* equation;
    std::vector<Dims> shapes;
    std::vector<std::string> inputLabels; //!< One letter per axis, "..." expanded (by hand) into capitals X, Y, Z.
    std::string outputLabels;
};

//! out[assignment of the output's labels] = sum over the other labels of the product of the inputs' elements; a label
//! on an axis of extent 1 reads index 0 there (broadcasting).
std::vector<double> oracle(Case const& c, std::vector<std::vector<double>> const& values, Dims& outDims)
{
    std::map<char, int64_t> extents;
    for (std::size_t i = 0; i < c.shapes.size(); ++i)
    {
        for (int32_t a = 0; a < c.shapes[i].nbDims; ++a)
        {
            int64_t& e = extents[c.inputLabels[i][static_cast<std::size_t>(a)]];
            e = std::max(e, c.shapes[i].d[a] == 1 && e > 1 ? e : c.shapes[i].d[a]);
        }
    }
    outDims = Dims{static_cast<int32_t>(c.outputLabels.size()), {}};
    int64_t outCount = 1;
    for (std::size_t k = 0; k < c.outputLabels.size(); ++k)
    {
        outDims.d[k] = extents[c.outputLabels[k]];
        outCount *= outDims.d[k];
    }
    std::vector<double> out(static_cast<std::size_t>(outCount), 0.0);
    std::vector<char> labels;
    int64_t total = 1;
    for (auto const& [label, extent] : extents)
    {
        labels.push_back(label);
        total *= extent;
    }
    std::map<char, int64_t> at;
    for (int64_t t = 0; t < total; ++t)
    {
        int64_t rest = t;
        for (std::size_t k = labels.size(); k-- > 0;)
        {
            at[labels[k]] = rest % extents[labels[k]];
            rest /= extents[labels[k]];
        }
        double product = 1.0;
        for (std::size_t i = 0; i < c.shapes.size(); ++i)
        {
            int64_t index = 0;
            for (int32_t a = 0; a < c.shapes[i].nbDims; ++a)
            {
                int64_t const extent = c.shapes[i].d[a];
                index = index * extent + (extent == 1 ? 0 : at[c.inputLabels[i][static_cast<std::size_t>(a)]]);
            }
            product *= values[i][static_cast<std::size_t>(index)];
        }
        int64_t o = 0;
        for (std::size_t k = 0; k < c.outputLabels.size(); ++k)
        {
            o = o * outDims.d[k] + at[c.outputLabels[k]];
        }
        out[static_cast<std::size_t>(o)] += product;
    }
    return out;
}

std::vector<Case> const& cases()
{
    static std::vector<Case> const kCases{
        {"ij,jk->ik", {Dims{2, {2, 3}}, Dims{2, {3, 4}}}, {"ij", "jk"}, "ik"},
        {"ij,jk", {Dims{2, {2, 3}}, Dims{2, {3, 4}}}, {"ij", "jk"}, "ik"},
        {"ij->ji", {Dims{2, {3, 4}}}, {"ij"}, "ji"},
        {"ba", {Dims{2, {3, 4}}}, {"ba"}, "ab"},
        {"ij->i", {Dims{2, {3, 4}}}, {"ij"}, "i"},
        {"ij->", {Dims{2, {3, 4}}}, {"ij"}, ""},
        {"i,i", {Dims{1, {5}}, Dims{1, {5}}}, {"i", "i"}, ""},
        {"i,j->ij", {Dims{1, {3}}, Dims{1, {4}}}, {"i", "j"}, "ij"},
        {"ii->i", {Dims{2, {4, 4}}}, {"ii"}, "i"},
        {"ii", {Dims{2, {4, 4}}}, {"ii"}, ""},
        {"...ii ->...i", {Dims{3, {3, 5, 5}}}, {"Xii"}, "Xi"},
        {"bij, bjk -> bik", {Dims{3, {5, 2, 3}}, Dims{3, {5, 3, 4}}}, {"bij", "bjk"}, "bik"},
        {"...ij,...jk->...ik", {Dims{4, {2, 1, 3, 4}}, Dims{3, {5, 4, 2}}}, {"XYij", "Yjk"}, "XYik"},
        {"...ij,...jk", {Dims{3, {2, 3, 4}}, Dims{2, {4, 2}}}, {"Xij", "jk"}, "Xik"},
        {"i...,i...->...", {Dims{3, {3, 2, 2}}, Dims{2, {3, 2}}}, {"iXY", "iY"}, "XY"},
        {"ij,ij->ij", {Dims{2, {3, 1}}, Dims{2, {3, 4}}}, {"ij", "ij"}, "ij"},
        {"aB->Ba", {Dims{2, {2, 3}}}, {"aB"}, "Ba"},
        {"Ab,bA", {Dims{2, {2, 3}}, Dims{2, {3, 2}}}, {"Ab", "bA"}, ""},
        {"bA", {Dims{2, {2, 3}}}, {"bA"}, "Ab"}, // Implicit: ASCII order, capitals first.
        {"iij->ji", {Dims{3, {3, 3, 2}}}, {"iij"}, "ji"},
        {"", {Dims{0, {}}}, {""}, ""},
        {",->", {Dims{0, {}}, Dims{0, {}}}, {"", ""}, ""},
        {"ij,jk->ik", {Dims{2, {2, 0}}, Dims{2, {0, 3}}}, {"ij", "jk"}, "ik"},
        {"ij,jk->ik", {Dims{2, {0, 2}}, Dims{2, {2, 3}}}, {"ij", "jk"}, "ik"},
    };
    return kCases;
}

TEST(HostEinsum, CasesAgainstTheOracle)
{
    std::mt19937 rng(2026123);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (Case const& c : cases())
        {
            SCOPED_TRACE(::testing::Message() << dataTypeName(type) << " \"" << c.equation << "\"");
            std::vector<std::vector<double>> values;
            std::vector<HostBuffer> buffers;
            std::vector<TensorDesc> descs;
            for (Dims const& dims : c.shapes)
            {
                buffers.emplace_back(type, dims);
                descs.push_back({type, dims});
                std::vector<double> v(static_cast<std::size_t>(elementCount(dims)));
                for (std::size_t i = 0; i < v.size(); ++i)
                {
                    // Small integers and halves: products and sums stay exact in every type up to the output's
                    // rounding.
                    v[i] = static_cast<double>(static_cast<int64_t>(rng() % 9) - 4) / 2.0;
                    encode(type, static_cast<std::byte*>(buffers.back().tensor().data), static_cast<int64_t>(i), v[i],
                        1.0F);
                }
                values.push_back(std::move(v));
            }
            Dims expectedDims{};
            std::vector<double> const expected = oracle(c, values, expectedDims);
            EinsumParams const params{c.equation};
            Expected<TensorDesc> const desc = inferEinsum(params, descs);
            ASSERT_TRUE(desc.ok()) << desc.error().message;
            EXPECT_EQ(desc.value().type, type);
            ASSERT_TRUE(sameShape(desc.value().dims, expectedDims))
                << shapeString(desc.value().dims) << " vs " << shapeString(expectedDims);
            HostBuffer out(type, expectedDims);
            std::vector<HostTensor> inputs;
            for (HostBuffer const& buffer : buffers)
            {
                inputs.push_back(buffer.tensor());
            }
            Status const done = runEinsum(params, inputs, out.tensor());
            ASSERT_TRUE(done.ok()) << done.error().message;
            for (std::size_t i = 0; i < expected.size(); ++i)
            {
                double const actual = decode(type, bytesOf(out), static_cast<int64_t>(i), 1.0F);
                EXPECT_TRUE(matches(type, expected[i], actual, 1.0F))
                    << "element " << i << ": expected " << expected[i] << ", got " << actual;
            }
        }
    }
}

//! inferEinsum of equation over inputs.
Expected<TensorDesc> infer(char const* equation, std::vector<TensorDesc> const& inputs)
{
    return inferEinsum(EinsumParams{equation}, inputs);
}

TEST(HostEinsum, Refusals)
{
    TensorDesc const a{DataType::kFLOAT, Dims{2, {2, 3}}};
    TensorDesc const b{DataType::kFLOAT, Dims{2, {3, 4}}};
    std::vector<TensorDesc> const two{a, b};
    std::vector<TensorDesc> const one{a};
    expectError(infer("ij,jk->ik", one),
        {"einsum: the equation \"ij,jk->ik\": the equation has 2 input terms but there are 1 input"});
    expectError(infer("ij,jk->ix", two), {"the output label 'x' is in no input term"});
    expectError(infer("ij,jk->ii", two), {"the output label 'i' appears twice"});
    expectError(infer("i.j,jk", two), {"term 0 has a '.' that is not part of \"...\""});
    expectError(infer("...i...,jk", two), {"term 0 has \"...\" twice"});
    expectError(infer("ij,j1", two), {"term 1 has the character '1'"});
    expectError(infer("ij->i->j", one), {"\"->\" appears twice"});
    expectError(infer("ij->i,j", one), {"the output term (after \"->\") has a ','"});
    expectError(infer("ijk", one), {"term 0 has 3 labels but input 0 has rank 2"});
    expectError(infer("ijk...", one), {"term 0 has 3 labels and \"...\" but input 0 has rank 2"});
    expectError(infer("...j->j", one), {"\"...\" stands for 1 axis of the inputs but the output term has no"});
    expectError(infer("ij,kl->ijkl", {TensorDesc{DataType::kFLOAT, Dims{5, {1, 1, 1, 1, 1}}}, a}),
        {"term 0 has 2 labels but input 0 has rank 5"});
    expectError(infer("abcde,fghij->abcdefghij",
                    {TensorDesc{DataType::kFLOAT, Dims{5, {1, 1, 1, 1, 1}}},
                        TensorDesc{DataType::kFLOAT, Dims{5, {1, 1, 1, 1, 1}}}}),
        {"the output would have 10 axes; at most 8 are possible"});
    expectError(infer("ij,jk", {a, TensorDesc{DataType::kFLOAT, Dims{2, {4, 5}}}}),
        {"gives one label to axes of extents 3 and 4 (input 1 [4, 5])"});
    expectError(infer("ii", one), {"gives one label to axes of extents 2 and 3"});
    expectError(infer("ij,jk", {a, TensorDesc{DataType::kHALF, b.dims}}),
        {"the inputs are kFLOAT and kHALF; an Einsum takes inputs of one type"});
    expectError(infer("ij", {TensorDesc{DataType::kINT32, a.dims}}), {"the inputs are kINT32 and kINT32"});
    expectError(infer("ij,jk,kl", {a, b, b}), {"3 inputs; an Einsum takes 1 to 2"});
    // Labels whose extents come from different inputs (1 broadcasts): each input fits, their product does not.
    int64_t const big = int64_t{1} << 32;
    expectError(infer("ab,ab->",
                    {TensorDesc{DataType::kFLOAT, Dims{2, {1, big}}}, TensorDesc{DataType::kFLOAT, Dims{2, {big, 1}}}}),
        {"the equation \"ab,ab->\" multiplies its labels' extents past a 64-bit count of terms"});
    expectError(infer("ab,ab->ab",
                    {TensorDesc{DataType::kFLOAT, Dims{2, {1, big}}}, TensorDesc{DataType::kFLOAT, Dims{2, {big, 1}}}}),
        {"multiplies its labels' extents past a 64-bit count of terms"});
    HostBuffer x(DataType::kFLOAT, a.dims);
    HostBuffer y(DataType::kFLOAT, b.dims);
    HostBuffer wrong(DataType::kFLOAT, Dims{2, {4, 2}});
    std::vector<HostTensor> const inputs{x.tensor(), y.tensor()};
    expectError(
        runEinsum({"ij,jk->ik"}, inputs, wrong.tensor()), {"the output is kFLOAT [4, 2] but must be kFLOAT [2, 4]"});
}

} // namespace
} // namespace kiln::host::test
