// SPDX-License-Identifier: Apache-2.0
// The host NMS kernel against a suppression written here (candidates picked one by one by the best remaining score,
// IoU in double), on random boxes in both formats, shared and per-class boxes, FP32 and FP16, with small TopK box
// limits, limits per class including 0, and thresholds; ONNX's examples; rows written into more room than needed;
// and every refusal with its message.
#include "backends/host/nms.h"

#include "host_test_util.h"

#include <algorithm>

namespace kiln::host::test
{
namespace
{

using nvinfer1::BoundingBoxFormat;

struct Row
{
    int64_t batch, cls, box;
    bool operator==(Row const&) const = default;
};

//! The rows of the suppression, written independently of the kernel.
std::vector<Row> written(NMSParams const& params, std::vector<double> const& boxes, bool perClass,
    std::vector<double> const& scores, int64_t batches, int64_t n, int64_t classes, int64_t maxPerClass, double iou,
    double scoreThreshold)
{
    auto corners = [&](int64_t b, int64_t box, int64_t cls) {
        std::size_t const first
            = static_cast<std::size_t>(((b * n + box) * (perClass ? classes : 1) + (perClass ? cls : 0)) * 4);
        double const a = boxes[first];
        double const c = boxes[first + 1];
        double const e = boxes[first + 2];
        double const f = boxes[first + 3];
        if (params.format == BoundingBoxFormat::kCENTER_SIZES)
        {
            return std::array<double, 4>{a - e / 2, c - f / 2, a + e / 2, c + f / 2};
        }
        return std::array<double, 4>{std::min(a, e), std::min(c, f), std::max(a, e), std::max(c, f)};
    };
    auto overlap = [](std::array<double, 4> const& p, std::array<double, 4> const& q) {
        double const w = std::min(p[2], q[2]) - std::max(p[0], q[0]);
        double const h = std::min(p[3], q[3]) - std::max(p[1], q[1]);
        double const ap = (p[2] - p[0]) * (p[3] - p[1]);
        double const aq = (q[2] - q[0]) * (q[3] - q[1]);
        if (w <= 0 || h <= 0 || ap <= 0 || aq <= 0)
        {
            return 0.0;
        }
        return w * h / (ap + aq - w * h);
    };
    std::vector<Row> rows;
    for (int64_t b = 0; b < batches; ++b)
    {
        std::vector<bool> visited(static_cast<std::size_t>(classes * n), false);
        std::vector<Row> kept;
        for (int64_t considered = 0; considered < params.topKBoxLimit; ++considered)
        {
            // The best unvisited candidate above the threshold: highest score, then lowest class, then lowest box.
            int64_t best = -1;
            double bestScore = 0;
            for (int64_t cls = 0; cls < classes; ++cls)
            {
                for (int64_t box = 0; box < n; ++box)
                {
                    double const s = scores[static_cast<std::size_t>((b * n + box) * classes + cls)];
                    if (!visited[static_cast<std::size_t>(cls * n + box)] && s > scoreThreshold
                        && (best < 0 || s > bestScore))
                    {
                        best = cls * n + box;
                        bestScore = s;
                    }
                }
            }
            if (best < 0)
            {
                break;
            }
            visited[static_cast<std::size_t>(best)] = true;
            Row const candidate{b, best / n, best % n};
            int64_t sameClass = 0;
            bool suppressed = false;
            for (Row const& row : kept)
            {
                if (row.cls == candidate.cls)
                {
                    ++sameClass;
                    suppressed = suppressed
                        || overlap(corners(b, row.box, row.cls), corners(b, candidate.box, candidate.cls)) > iou;
                }
            }
            if (!suppressed && sameClass < maxPerClass)
            {
                kept.push_back(candidate);
            }
        }
        rows.insert(rows.end(), kept.begin(), kept.end());
    }
    return rows;
}

//! A 0-D tensor holding value.
HostBuffer scalar(DataType type, double value)
{
    HostBuffer buffer(type, Dims{0, {}});
    if (type == DataType::kFLOAT)
    {
        encode(type, static_cast<std::byte*>(buffer.tensor().data), 0, value, 1.0F);
    }
    else
    {
        encodeInteger(type, static_cast<std::byte*>(buffer.tensor().data), 0, static_cast<int64_t>(value));
    }
    return buffer;
}

//! The rows the kernel wrote.
std::vector<Row> rowsOf(HostBuffer const& selected, HostBuffer const& count)
{
    DataType const type = selected.tensor().type;
    int64_t const n = decodeInteger(count.tensor().type, bytesOf(count), 0);
    std::vector<Row> rows;
    for (int64_t r = 0; r < n; ++r)
    {
        rows.push_back(Row{decodeInteger(type, bytesOf(selected), 3 * r),
            decodeInteger(type, bytesOf(selected), 3 * r + 1), decodeInteger(type, bytesOf(selected), 3 * r + 2)});
    }
    return rows;
}

TEST(HostNMS, RandomAgainstSuppressionWrittenHere)
{
    std::mt19937 rng(43);
    for (int trial = 0; trial < 150; ++trial)
    {
        NMSParams params;
        params.format = trial % 2 == 0 ? BoundingBoxFormat::kCORNER_PAIRS : BoundingBoxFormat::kCENTER_SIZES;
        params.topKBoxLimit = trial % 4 == 0 ? 1 + static_cast<int32_t>(rng() % 12) : 5000;
        params.indicesType = trial % 3 == 0 ? DataType::kINT32 : DataType::kINT64;
        DataType const type = trial % 5 == 0 ? DataType::kHALF : DataType::kFLOAT;
        int64_t const batches = 1 + static_cast<int64_t>(rng() % 3);
        int64_t const n = static_cast<int64_t>(rng() % 20);
        int64_t const classes = 1 + static_cast<int64_t>(rng() % 4);
        bool const perClass = trial % 3 == 1;
        int64_t const maxPerClass = static_cast<int64_t>(rng() % 6);
        double const iou = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        double const scoreThreshold = trial % 7 == 0 ? -1.0 : std::uniform_real_distribution<double>(0.0, 0.5)(rng);
        SCOPED_TRACE(::testing::Message()
            << "trial " << trial << " " << dataTypeName(type) << " B " << batches << " N " << n << " C " << classes
            << " perClass " << perClass << " max " << maxPerClass << " iou " << iou << " score " << scoreThreshold
            << " topK " << params.topKBoxLimit);
        Dims const boxDims = perClass ? Dims{4, {batches, n, classes, 4}} : Dims{3, {batches, n, 4}};
        Dims const scoreDims{3, {batches, n, classes}};
        HostBuffer boxes(type, boxDims);
        HostBuffer scores(type, scoreDims);
        std::vector<double> boxValues(static_cast<std::size_t>(elementCount(boxDims)));
        std::vector<double> scoreValues(static_cast<std::size_t>(elementCount(scoreDims)));
        std::uniform_real_distribution<double> coordinate(0.0, 4.0);
        for (std::size_t i = 0; i < boxValues.size(); ++i)
        {
            // Sizes (kCENTER_SIZES' last two) mostly positive; sometimes a degenerate box.
            bool const size = params.format == BoundingBoxFormat::kCENTER_SIZES && i % 4 >= 2;
            boxValues[i] = roundTo(type, size ? (rng() % 10 == 0 ? 0.0 : 0.5 + coordinate(rng)) : coordinate(rng), 1.F);
            encode(type, static_cast<std::byte*>(boxes.tensor().data), static_cast<int64_t>(i), boxValues[i], 1.F);
        }
        for (std::size_t i = 0; i < scoreValues.size(); ++i)
        {
            // A few repeated scores, so that ties are ordered.
            double const s = rng() % 8 == 0 ? 0.5 : std::uniform_real_distribution<double>(0.0, 1.0)(rng);
            scoreValues[i] = roundTo(type, s, 1.F);
            encode(type, static_cast<std::byte*>(scores.tensor().data), static_cast<int64_t>(i), scoreValues[i], 1.F);
        }
        HostBuffer limit = scalar(DataType::kINT32, static_cast<double>(maxPerClass));
        HostBuffer iouBuffer = scalar(DataType::kFLOAT, iou);
        HostBuffer scoreBuffer = scalar(DataType::kFLOAT, scoreThreshold);
        Expected<NMSScalars> const scalars = nmsScalars(limit.tensor(), &iouBuffer.tensor(), &scoreBuffer.tensor());
        ASSERT_TRUE(scalars.ok()) << scalars.error().message;
        Expected<TensorDesc> const desc = inferNMS(params, {type, boxDims}, {type, scoreDims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        EXPECT_EQ(desc.value().dims.d[0], batches * classes * n);
        HostBuffer selected(params.indicesType, Dims{2, {batches * classes * std::min(n, maxPerClass) + 2, 3}});
        HostBuffer count(trial % 2 == 0 ? DataType::kINT32 : DataType::kINT64, Dims{0, {}});
        Status const done
            = runNMS(params, boxes.tensor(), scores.tensor(), scalars.value(), selected.tensor(), count.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        std::vector<Row> const expected = written(params, boxValues, perClass, scoreValues, batches, n, classes,
            maxPerClass, static_cast<float>(iou), static_cast<float>(scoreThreshold));
        std::vector<Row> const actual = rowsOf(selected, count);
        ASSERT_EQ(actual.size(), expected.size());
        for (std::size_t r = 0; r < expected.size(); ++r)
        {
            EXPECT_EQ(actual[r], expected[r])
                << "row " << r << ": expected (" << expected[r].batch << ", " << expected[r].cls << ", "
                << expected[r].box << "), got (" << actual[r].batch << ", " << actual[r].cls << ", " << actual[r].box
                << ")";
        }
    }
}

//! Runs ONNX's one-class example boxes (six boxes, two clusters and a far one) in format.
std::vector<Row> onnxExample(BoundingBoxFormat format, std::vector<double> const& coordinates, int64_t maxPerClass)
{
    NMSParams params;
    params.format = format;
    params.indicesType = DataType::kINT64;
    HostBuffer boxes(DataType::kFLOAT, Dims{3, {1, 6, 4}});
    HostBuffer scores(DataType::kFLOAT, Dims{3, {1, 6, 1}});
    for (std::size_t i = 0; i < coordinates.size(); ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(boxes.tensor().data), static_cast<int64_t>(i), coordinates[i],
            1.F);
    }
    double const scoreValues[] = {0.9, 0.75, 0.6, 0.95, 0.5, 0.3};
    for (int64_t i = 0; i < 6; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(scores.tensor().data), i, scoreValues[i], 1.F);
    }
    HostBuffer limit = scalar(DataType::kINT64, static_cast<double>(maxPerClass));
    HostBuffer iou = scalar(DataType::kFLOAT, 0.5);
    HostBuffer score = scalar(DataType::kFLOAT, 0.0);
    HostBuffer selected(DataType::kINT64, Dims{2, {6, 3}});
    HostBuffer count(DataType::kINT32, Dims{0, {}});
    NMSScalars const scalars = nmsScalars(limit.tensor(), &iou.tensor(), &score.tensor()).value();
    Status const done = runNMS(params, boxes.tensor(), scores.tensor(), scalars, selected.tensor(), count.tensor());
    EXPECT_TRUE(done.ok()) << done.error().message;
    return rowsOf(selected, count);
}

TEST(HostNMS, OnnxExamples)
{
    // test_nonmaxsuppression_suppress_by_IOU and _center_point_box_format: boxes 3, 0 and 5 survive.
    std::vector<Row> const expected{{0, 0, 3}, {0, 0, 0}, {0, 0, 5}};
    EXPECT_EQ(onnxExample(BoundingBoxFormat::kCORNER_PAIRS,
                  {0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, -0.1, 1.0, 0.9, 0.0, 10.0, 1.0, 11.0, 0.0, 10.1, 1.0,
                      11.1, 0.0, 100.0, 1.0, 101.0},
                  3),
        expected);
    EXPECT_EQ(onnxExample(BoundingBoxFormat::kCENTER_SIZES,
                  {0.5, 0.5, 1.0, 1.0, 0.5, 0.6, 1.0, 1.0, 0.5, 0.4, 1.0, 1.0, 0.5, 10.5, 1.0, 1.0, 0.5, 10.6, 1.0, 1.0,
                      0.5, 100.5, 1.0, 1.0},
                  3),
        expected);
    // test_nonmaxsuppression_flipped_coordinates: corners given in either order.
    EXPECT_EQ(onnxExample(BoundingBoxFormat::kCORNER_PAIRS,
                  {1.0, 1.0, 0.0, 0.0, 0.0, 0.1, 1.0, 1.1, 0.0, 0.9, 1.0, -0.1, 0.0, 10.0, 1.0, 11.0, 1.0, 10.1, 0.0,
                      11.1, 1.0, 101.0, 0.0, 100.0},
                  3),
        expected);
    // test_nonmaxsuppression_limit_output_size: two per class.
    EXPECT_EQ(onnxExample(BoundingBoxFormat::kCORNER_PAIRS,
                  {0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, -0.1, 1.0, 0.9, 0.0, 10.0, 1.0, 11.0, 0.0, 10.1, 1.0,
                      11.1, 0.0, 100.0, 1.0, 101.0},
                  2),
        (std::vector<Row>{{0, 0, 3}, {0, 0, 0}}));
}

TEST(HostNMS, ScalarsAndRefusals)
{
    HostBuffer negative = scalar(DataType::kINT32, -3);
    EXPECT_EQ(nmsScalars(negative.tensor(), nullptr, nullptr).value().maxPerClass, 0);
    EXPECT_EQ(nmsScalars(negative.tensor(), nullptr, nullptr).value().scoreThreshold, 0.F);
    HostBuffer wide = scalar(DataType::kFLOAT, 1.5);
    expectError(nmsScalars(negative.tensor(), &wide.tensor(), nullptr),
        {"nms: the IoU threshold is 1.5", "; it must lie in [0, 1]"});
    expectError(nmsScalars(wide.tensor(), nullptr, nullptr),
        {"MaxOutputBoxesPerClass is kFLOAT []; it must be a 0-D kINT32 or kINT64 tensor with data"});
    HostBuffer vector(DataType::kFLOAT, Dims{1, {1}});
    expectError(nmsScalars(negative.tensor(), nullptr, &vector.tensor()),
        {"the score threshold is kFLOAT [1]; it must be a 0-D kFLOAT tensor with data"});

    NMSParams params;
    Dims const boxes{3, {1, 5, 4}};
    Dims const scores{3, {1, 5, 2}};
    expectError(inferNMS(params, {DataType::kINT32, boxes}, {DataType::kINT32, scores}),
        {"the boxes are kINT32 and the scores kINT32; they must be both kFLOAT or both kHALF"});
    expectError(inferNMS(params, {DataType::kFLOAT, Dims{3, {1, 6, 4}}}, {DataType::kFLOAT, scores}),
        {"the boxes [1, 6, 4] and scores [1, 5, 2] do not fit"});
    expectError(
        inferNMS(params, {DataType::kFLOAT, Dims{4, {1, 5, 3, 4}}}, {DataType::kFLOAT, scores}), {"do not fit"});
    params.topKBoxLimit = 0;
    expectError(inferNMS(params, {DataType::kFLOAT, boxes}, {DataType::kFLOAT, scores}),
        {"the TopK box limit is 0; it must be 1 to 5000"});
    params.topKBoxLimit = 10;
    params.format = static_cast<BoundingBoxFormat>(5);
    expectError(inferNMS(params, {DataType::kFLOAT, boxes}, {DataType::kFLOAT, scores}),
        {"the bounding box format 5 is not a BoundingBoxFormat"});
    params.format = BoundingBoxFormat::kCORNER_PAIRS;

    HostBuffer boxData(DataType::kFLOAT, boxes);
    HostBuffer scoreData(DataType::kFLOAT, scores);
    NMSScalars const twoPerClass{2, 0.5F, 0.F};
    HostBuffer small(DataType::kINT32, Dims{2, {3, 3}});
    HostBuffer count(DataType::kINT32, Dims{0, {}});
    expectError(runNMS(params, boxData.tensor(), scoreData.tensor(), twoPerClass, small.tensor(), count.tensor()),
        {"output 0 is kINT32 [3, 3]; it must be kINT32 [R, 3] with R at least 4"});
    HostBuffer rows(DataType::kINT32, Dims{2, {4, 3}});
    HostBuffer wideCount(DataType::kFLOAT, Dims{0, {}});
    expectError(runNMS(params, boxData.tensor(), scoreData.tensor(), twoPerClass, rows.tensor(), wideCount.tensor()),
        {"output 1 is kFLOAT []; it must be a 0-D kINT32 or kINT64 tensor"});
}

} // namespace
} // namespace kiln::host::test
