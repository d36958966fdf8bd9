// SPDX-License-Identifier: Apache-2.0
// `kiln compare`'s statistics and values (compare_stats.h, compare_values.h) on hand-made tensors: the pass rule
// (numpy's allclose), the relative error's guard for a zero reference, NaN and infinities, the worst index, shape and
// type mismatches, and the reading of --loadOutputs files.
#include "compare_stats.h"
#include "compare_values.h"
#include "logger.h"
#include "tool_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using kiln_tool::compareOutput;
using kiln_tool::OutputComparison;
using kiln_tool::TensorValues;
using kiln_tool::Tolerance;

double constexpr kNan = std::numeric_limits<double>::quiet_NaN();
double constexpr kInf = std::numeric_limits<double>::infinity();

TensorValues tensor(std::vector<int64_t> dims, std::vector<double> values, std::string type = "FP32")
{
    TensorValues t;
    t.name = "Y";
    t.type = std::move(type);
    t.dims = std::move(dims);
    t.values = std::move(values);
    return t;
}

OutputComparison compare(TensorValues const& actual, TensorValues const& expected, Tolerance tolerance = {1e-5, 1e-5})
{
    return compareOutput(actual, expected, "host", "file", tolerance);
}

TEST(CompareStats, EqualValuesPassWithZeroErrors)
{
    OutputComparison const c = compare(tensor({2, 2}, {1, 2, 3, 4}), tensor({2, 2}, {1, 2, 3, 4}));
    EXPECT_TRUE(c.passed);
    EXPECT_TRUE(c.compared);
    EXPECT_EQ(c.elements, 4);
    EXPECT_EQ(c.maxAbsError, 0.0);
    EXPECT_EQ(c.meanAbsError, 0.0);
    EXPECT_EQ(c.maxRelError, 0.0);
    EXPECT_EQ(c.overTolerance, 0);
    EXPECT_EQ(c.worstIndex, (std::vector<int64_t>{0, 0}));
}

TEST(CompareStats, ThePassRuleIsAtolPlusRtolTimesTheReference)
{
    // |1.5 - 1| = 0.5 against atol + rtol * |1|.
    TensorValues const actual = tensor({1}, {1.5});
    TensorValues const expected = tensor({1}, {1.0});
    EXPECT_TRUE(compare(actual, expected, {0.5, 0.0}).passed);
    EXPECT_FALSE(compare(actual, expected, {0.49, 0.0}).passed);
    EXPECT_TRUE(compare(actual, expected, {0.0, 0.5}).passed);
    EXPECT_FALSE(compare(actual, expected, {0.0, 0.49}).passed);
    EXPECT_TRUE(compare(actual, expected, {0.25, 0.25}).passed);
    EXPECT_FALSE(compare(actual, expected, {0.24, 0.25}).passed);
    // The reference's magnitude scales rtol, not the runner's: |10 - 5| = 5 <= 0.5 * |10| but > 0.5 * |5|.
    EXPECT_TRUE(compare(tensor({1}, {5.0}), tensor({1}, {10.0}), {0.0, 0.5}).passed);
    EXPECT_FALSE(compare(tensor({1}, {10.0}), tensor({1}, {5.0}), {0.0, 0.5}).passed);
}

TEST(CompareStats, ErrorsAndTheWorstIndexAreReported)
{
    // 2x3: errors 0, 0.1, 0, 0, 0.4, 0.2 against references 1, 2, 3, 4, 5, 6.
    OutputComparison const c
        = compare(tensor({2, 3}, {1, 2.1, 3, 4, 5.4, 6.2}), tensor({2, 3}, {1, 2, 3, 4, 5, 6}), {0.15, 0.0});
    EXPECT_FALSE(c.passed);
    EXPECT_NEAR(c.maxAbsError, 0.4, 1e-12);
    EXPECT_NEAR(c.meanAbsError, 0.7 / 6.0, 1e-12);
    EXPECT_NEAR(c.maxRelError, 0.08, 1e-12); // 0.4 / 5
    EXPECT_EQ(c.worstIndex, (std::vector<int64_t>{1, 1}));
    EXPECT_DOUBLE_EQ(c.worstActual, 5.4);
    EXPECT_DOUBLE_EQ(c.worstExpected, 5.0);
    EXPECT_EQ(c.overTolerance, 2);
}

TEST(CompareStats, AZeroReferenceHasNoRelativeErrorAndAtolDecides)
{
    OutputComparison const within = compare(tensor({2}, {1e-6, 2.0}), tensor({2}, {0.0, 2.0}));
    EXPECT_TRUE(within.passed);
    EXPECT_EQ(within.maxRelError, 0.0); // the zero reference's element is left out of the relative error
    EXPECT_NEAR(within.maxAbsError, 1e-6, 1e-18);
    OutputComparison const outside = compare(tensor({2}, {1e-3, 2.0}), tensor({2}, {0.0, 2.0}));
    EXPECT_FALSE(outside.passed);
    EXPECT_EQ(outside.maxRelError, 0.0);
    EXPECT_EQ(outside.worstIndex, (std::vector<int64_t>{0}));
}

TEST(CompareStats, NanAgainstNanAndTheSameInfinityMatch)
{
    OutputComparison const c = compare(tensor({3}, {kNan, kInf, -kInf}), tensor({3}, {kNan, kInf, -kInf}));
    EXPECT_TRUE(c.passed);
    EXPECT_EQ(c.nonFiniteMismatches, 0);
    EXPECT_EQ(c.maxAbsError, 0.0);
}

TEST(CompareStats, ANonFiniteValueAgainstAnythingElseIsAMismatch)
{
    OutputComparison const c = compare(tensor({2, 2}, {1, kNan, kInf, 4}), tensor({2, 2}, {1, 2, -kInf, kNan}));
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.nonFiniteMismatches, 3);
    EXPECT_EQ(c.overTolerance, 3);
    EXPECT_TRUE(std::isinf(c.maxAbsError));
    EXPECT_EQ(c.worstIndex, (std::vector<int64_t>{0, 1})); // the first non-finite mismatch
    EXPECT_EQ(c.meanAbsError, 0.0);                        // over the one element finite on both sides
}

TEST(CompareStats, AFilesNullMatchesAnyNonFiniteValueOnly)
{
    TensorValues expected = tensor({3}, {kNan, kNan, kNan}, "");
    expected.unknownNonFinite = {true, true, true};
    EXPECT_TRUE(compare(tensor({3}, {kNan, kInf, -kInf}), expected).passed);
    OutputComparison const c = compare(tensor({3}, {kNan, 1.0, -kInf}), expected);
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.worstIndex, (std::vector<int64_t>{1}));
    EXPECT_TRUE(c.worstExpectedNonFinite);
}

TEST(CompareStats, ADifferentShapeIsAMismatchAndLeavesTheValuesUncompared)
{
    OutputComparison const c = compare(tensor({2, 3}, {1, 2, 3, 4, 5, 6}), tensor({3, 2}, {1, 2, 3, 4, 5, 6}));
    EXPECT_FALSE(c.passed);
    EXPECT_FALSE(c.compared);
    EXPECT_EQ(c.problem, "the shape is 2x3 in host but 3x2 in file");
}

TEST(CompareStats, ADifferentTypeIsAMismatchButTheValuesAreStillCompared)
{
    OutputComparison const c = compare(tensor({2}, {1, 2}, "FP16"), tensor({2}, {1, 2}, "FP32"));
    EXPECT_FALSE(c.passed);
    EXPECT_TRUE(c.compared);
    EXPECT_EQ(c.problem, "the type is FP16 in host but FP32 in file");
    EXPECT_EQ(c.overTolerance, 0);
    // An unknown type (a --loadOutputs file's) matches any.
    EXPECT_TRUE(compare(tensor({2}, {1, 2}, "FP16"), tensor({2}, {1, 2}, "")).passed);
}

TEST(CompareStats, AScalarComparesAsOneElement)
{
    OutputComparison const c = compare(tensor({}, {3.0}), tensor({}, {3.5}), {0.1, 0.0});
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.elements, 1);
    EXPECT_TRUE(c.worstIndex.empty());
    EXPECT_EQ(kiln_tool::indexText(c.worstIndex), "[]");
}

TEST(CompareValues, FlatIndicesUnflattenRowMajor)
{
    EXPECT_EQ(kiln_tool::unflatten(37, {2, 3, 8, 8}), (std::vector<int64_t>{0, 0, 4, 5}));
    EXPECT_EQ(kiln_tool::unflatten(383, {2, 3, 8, 8}), (std::vector<int64_t>{1, 2, 7, 7}));
    EXPECT_EQ(kiln_tool::indexText({1, 2, 7, 7}), "[1, 2, 7, 7]");
    EXPECT_EQ(kiln_tool::shapeText({2, 3, 8, 8}), "2x3x8x8");
    EXPECT_EQ(kiln_tool::shapeText({}), "scalar");
}

void writeText(fs::path const& path, std::string const& text)
{
    std::ofstream(path) << text;
}

TEST(CompareValues, OutputFilesInExportOutputsLayoutAreRead)
{
    ScratchDir dir;
    writeText(dir / "out.json",
        "[\n  { \"name\" : \"Y\"\n  , \"dimensions\" : \"2x2\"\n  , \"values\" : [ 1, -2.5, null, 4 ]\n  }\n"
        ", { \"name\" : \"S\"\n  , \"dimensions\" : \"\"\n  , \"values\" : [ 7 ]\n  }\n]\n");
    std::vector<TensorValues> const outputs = kiln_tool::readOutputsJson((dir / "out.json").string());
    ASSERT_EQ(outputs.size(), 2U);
    EXPECT_EQ(outputs[0].name, "Y");
    EXPECT_EQ(outputs[0].dims, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(outputs[0].values[1], -2.5);
    EXPECT_TRUE(std::isnan(outputs[0].values[2]));
    EXPECT_EQ(outputs[0].unknownNonFinite, (std::vector<bool>{false, false, true, false}));
    EXPECT_TRUE(outputs[0].type.empty());
    EXPECT_TRUE(outputs[1].dims.empty());
    EXPECT_EQ(outputs[1].values, std::vector<double>{7});
}

TEST(CompareValues, MalformedOutputFilesSayWhatIsWrong)
{
    ScratchDir dir;
    struct Case
    {
        std::string text;
        std::string message;
    };
    std::vector<Case> const cases{
        {"{}", "is not a JSON array of {\"name\", \"dimensions\", \"values\"} objects"},
        {"[{\"name\": \"Y\", \"values\": [1]}]", "entry 0 is not an object with a string \"name\""},
        {"[{\"name\": \"Y\", \"dimensions\": \"2xq\", \"values\": [1, 2]}]",
            "entry 0 ('Y'): the dimensions \"2xq\" are not extents joined by x"},
        {"[{\"name\": \"Y\", \"dimensions\": \"2x3\", \"values\": [1, 2]}]",
            "entry 0 ('Y'): 2 values for the dimensions 2x3, which hold 6"},
        {"[{\"name\": \"Y\", \"dimensions\": \"2\", \"values\": [1, \"x\"]}]",
            "entry 0 ('Y'): value 1 is \"x\", not a number or null"},
    };
    for (Case const& c : cases)
    {
        writeText(dir / "bad.json", c.text);
        try
        {
            kiln_tool::readOutputsJson((dir / "bad.json").string());
            ADD_FAILURE() << "no error for " << c.text;
        }
        catch (kiln_tool::Failure const& e)
        {
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("--loadOutputs: "), std::string::npos) << e.what();
        }
    }
}

} // namespace
} // namespace kiln_tool_test
