// SPDX-License-Identifier: Apache-2.0
// EfficientNMS_TRT and EfficientNMS_ONNX_TRT on the host: the host implementation against a direct greedy NMS written
// here (double arithmetic, a stable sort) on seeded random boxes and scores with every option (class-agnostic,
// background class, sigmoid activation, centre-size coding, the fused box decoder with shared and per-image anchors,
// one box per class, FP16); the tie and threshold rules (equal scores: the lower element index first; a score equal to
// score_threshold is a candidate; an IoU equal to iou_threshold suppresses); the ONNX variant's limits and padding;
// the creators' fields and refusals; serialization; and an engine built, serialized, deserialized and run on the host
// backend.
#include "NvInferPlugin.h"
#include "core/float_convert.h"
#include "efficient_nms.h"
#include "host_engine_support.h"
#include "kiln/plugin_host.h"
#include "standard_plugin_v2.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

using NmsLogger = test::PluginLog; // warnings and errors, one per line (host_engine_support.h)

NmsLogger& logger()
{
    static NmsLogger instance;
    return instance;
}

//! What the plugin computes for one case, in float and int32.
struct NmsResult
{
    std::vector<int32_t> count;
    std::vector<float> boxes;
    std::vector<float> scores;
    std::vector<int32_t> classes;
    std::vector<int32_t> rows; //!< The ONNX variant's selected_indices.
};

struct NmsCase
{
    EfficientNmsParams p;
    std::vector<float> boxes;
    std::vector<float> scores;
    std::vector<float> anchors;
};

// ---- The direct reference ----

struct RefBox
{
    double v[4];
};

double refIou(RefBox a, RefBox b)
{
    for (RefBox* box : {&a, &b})
    {
        if (box->v[0] > box->v[2])
        {
            std::swap(box->v[0], box->v[2]);
        }
        if (box->v[1] > box->v[3])
        {
            std::swap(box->v[1], box->v[3]);
        }
    }
    auto const area = [](double e0, double e1) { return e0 <= 0 || e1 <= 0 ? 0.0 : e0 * e1; };
    double const inter = area(
        std::min(a.v[2], b.v[2]) - std::max(a.v[0], b.v[0]), std::min(a.v[3], b.v[3]) - std::max(a.v[1], b.v[1]));
    if (inter <= 0)
    {
        return 0.0;
    }
    double const uni = area(a.v[2] - a.v[0], a.v[3] - a.v[1]) + area(b.v[2] - b.v[0], b.v[3] - b.v[1]) - inter;
    return uni <= 0 ? 0.0 : inter / uni;
}

RefBox refDecode(NmsCase const& c, int64_t image, int64_t n, int64_t cls)
{
    EfficientNmsParams const& p = c.p;
    int64_t const row = p.boxPerClass ? (image * p.boxes + n) * p.classes + cls : image * p.boxes + n;
    RefBox b{{c.boxes[row * 4], c.boxes[row * 4 + 1], c.boxes[row * 4 + 2], c.boxes[row * 4 + 3]}};
    if (p.hasAnchors)
    {
        int64_t const at = ((p.sharedAnchors ? 0 : image * p.boxes) + n) * 4;
        RefBox a{{c.anchors[at], c.anchors[at + 1], c.anchors[at + 2], c.anchors[at + 3]}};
        if (p.boxCoding == 0)
        {
            for (int k : {0, 1})
            {
                if (b.v[k] > b.v[k + 2])
                {
                    std::swap(b.v[k], b.v[k + 2]);
                }
                if (a.v[k] > a.v[k + 2])
                {
                    std::swap(a.v[k], a.v[k + 2]);
                }
            }
            return RefBox{{b.v[0] + a.v[0], b.v[1] + a.v[1], b.v[2] + a.v[2], b.v[3] + a.v[3]}};
        }
        b = RefBox{
            {b.v[0] * a.v[2] + a.v[0], b.v[1] * a.v[3] + a.v[1], a.v[2] * std::exp(b.v[2]), a.v[3] * std::exp(b.v[3])}};
    }
    if (p.boxCoding == 1)
    {
        return RefBox{{b.v[0] - b.v[2] / 2, b.v[1] - b.v[3] / 2, b.v[0] + b.v[2] / 2, b.v[1] + b.v[3] / 2}};
    }
    return b;
}

NmsResult reference(NmsCase const& c)
{
    EfficientNmsParams const& p = c.p;
    int64_t const kept = p.maxOutputBoxes;
    NmsResult r;
    r.count.assign(static_cast<size_t>(p.batch), 0);
    r.boxes.assign(static_cast<size_t>(p.batch * kept * 4), 0.0F);
    r.scores.assign(static_cast<size_t>(p.batch * kept), 0.0F);
    r.classes.assign(static_cast<size_t>(p.batch * kept), 0);
    double threshold = p.scoreThreshold;
    if (p.scoreActivation)
    {
        threshold = p.scoreThreshold <= 0 ? -32768.0 : std::log(p.scoreThreshold / (1.0 - p.scoreThreshold));
    }
    for (int64_t image = 0; image < p.batch; ++image)
    {
        std::vector<int64_t> order;
        for (int64_t e = 0; e < p.boxes * p.classes; ++e)
        {
            float const s = c.scores[static_cast<size_t>(image * p.boxes * p.classes + e)];
            if (s >= static_cast<float>(threshold) && e % p.classes != p.backgroundClass)
            {
                order.push_back(e);
            }
        }
        auto const score = [&](int64_t e) { return c.scores[static_cast<size_t>(image * p.boxes * p.classes + e)]; };
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score(a) > score(b); });
        if (order.size() > static_cast<size_t>(kEfficientNmsMaxCandidates))
        {
            order.resize(kEfficientNmsMaxCandidates);
        }
        std::vector<int64_t> keptElements;
        std::vector<int32_t> perClass(static_cast<size_t>(p.classes), 0);
        int64_t written = 0;
        for (int64_t e : order)
        {
            if (written >= kept)
            {
                break;
            }
            RefBox const mine = refDecode(c, image, e / p.classes, e % p.classes);
            bool suppressed = false;
            for (int64_t k : keptElements)
            {
                if ((p.classAgnostic || k % p.classes == e % p.classes)
                    && refIou(refDecode(c, image, k / p.classes, k % p.classes), mine) >= p.iouThreshold)
                {
                    suppressed = true;
                }
            }
            if (suppressed)
            {
                continue;
            }
            keptElements.push_back(e);
            if (p.maxOutputBoxesPerClass >= 0
                && perClass[static_cast<size_t>(e % p.classes)]++ >= p.maxOutputBoxesPerClass)
            {
                continue;
            }
            if (p.onnxIndices)
            {
                r.rows.insert(r.rows.end(),
                    {static_cast<int32_t>(image), static_cast<int32_t>(e % p.classes),
                        static_cast<int32_t>(e / p.classes)});
            }
            size_t const slot = static_cast<size_t>(image * kept + written);
            for (int k = 0; k < 4; ++k)
            {
                r.boxes[slot * 4 + static_cast<size_t>(k)] = static_cast<float>(mine.v[k]);
            }
            double const raw = score(e);
            r.scores[slot] = static_cast<float>(p.scoreActivation ? 1.0 / (1.0 + std::exp(-raw)) : raw);
            r.classes[slot] = static_cast<int32_t>(e % p.classes);
            ++written;
        }
        r.count[static_cast<size_t>(image)] = static_cast<int32_t>(written);
    }
    if (p.onnxIndices)
    {
        size_t const total = static_cast<size_t>(p.batch * kept * 3);
        std::vector<int32_t> rows = r.rows;
        r.rows.assign(total, -1);
        for (size_t i = 0; i < total && !rows.empty(); ++i)
        {
            r.rows[i] = i < rows.size() ? rows[i] : rows[rows.size() - 3 + i % 3];
        }
    }
    return r;
}

// ---- Running the host implementation ----

std::vector<uint16_t> toHalf(std::vector<float> const& v)
{
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i)
    {
        h[i] = floatToHalf(v[i]);
    }
    return h;
}

std::vector<float> roundedToHalf(std::vector<float> v)
{
    for (float& x : v)
    {
        x = halfToFloat(floatToHalf(x));
    }
    return v;
}

NmsResult runHost(NmsCase const& c, DataType type)
{
    EfficientNmsParams p = c.p;
    p.filterThreshold = efficientNmsFilterThreshold(p.scoreThreshold, p.scoreActivation);
    int64_t const kept = p.maxOutputBoxes;
    size_t const slots = static_cast<size_t>(p.batch * kept);
    NmsResult r;
    r.count.assign(static_cast<size_t>(p.batch), -5);
    r.classes.assign(slots, -5);
    r.rows.assign(slots * 3, -5);
    std::vector<uint8_t> boxes(slots * 4 * 4, 0xAB);
    std::vector<uint8_t> scores(slots * 4, 0xAB);
    bool const half = type == DataType::kHALF;
    std::vector<uint16_t> hb = toHalf(c.boxes);
    std::vector<uint16_t> hs = toHalf(c.scores);
    std::vector<uint16_t> ha = toHalf(c.anchors);
    void const* in[] = {half ? static_cast<void const*>(hb.data()) : c.boxes.data(),
        half ? static_cast<void const*>(hs.data()) : c.scores.data(),
        p.hasAnchors ? (half ? static_cast<void const*>(ha.data()) : c.anchors.data()) : nullptr};
    void* standard[] = {r.count.data(), boxes.data(), scores.data(), r.classes.data()};
    void* onnx[] = {r.rows.data()};
    runEfficientNmsHost(p, type, in[0], in[1], in[2], p.onnxIndices ? onnx : standard);
    auto const read = [half](std::vector<uint8_t> const& bytes, size_t n) {
        std::vector<float> v(n);
        for (size_t i = 0; i < n; ++i)
        {
            if (half)
            {
                uint16_t h = 0;
                std::memcpy(&h, bytes.data() + 2 * i, 2);
                v[i] = halfToFloat(h);
            }
            else
            {
                std::memcpy(&v[i], bytes.data() + 4 * i, 4);
            }
        }
        return v;
    };
    r.boxes = read(boxes, slots * 4);
    r.scores = read(scores, slots);
    return r;
}

void expectSame(NmsResult const& actual, NmsResult const& expected, double tolerance)
{
    if (!expected.rows.empty())
    {
        EXPECT_EQ(actual.rows, expected.rows);
        return;
    }
    EXPECT_EQ(actual.count, expected.count);
    EXPECT_EQ(actual.classes, expected.classes);
    ASSERT_EQ(actual.boxes.size(), expected.boxes.size());
    for (size_t i = 0; i < expected.boxes.size(); ++i)
    {
        EXPECT_NEAR(actual.boxes[i], expected.boxes[i], tolerance * (1 + std::fabs(expected.boxes[i]))) << i;
    }
    for (size_t i = 0; i < expected.scores.size(); ++i)
    {
        EXPECT_NEAR(actual.scores[i], expected.scores[i], tolerance * (1 + std::fabs(expected.scores[i]))) << i;
    }
}

std::vector<float> uniform(std::mt19937_64& rng, size_t n, float lo, float hi)
{
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v)
    {
        x = d(rng);
    }
    return v;
}

//! Random boxes (clustered, so that many overlap), scores and anchors for p.
NmsCase randomCase(std::mt19937_64& rng, EfficientNmsParams const& p)
{
    NmsCase c{p, {}, {}, {}};
    int64_t const rows = p.batch * p.boxes * (p.boxPerClass ? p.classes : 1);
    std::vector<float> const centres = uniform(rng, static_cast<size_t>(rows * 2), 0.0F, 4.0F);
    std::vector<float> const sizes = uniform(rng, static_cast<size_t>(rows * 2), 0.5F, 3.0F);
    for (int64_t r = 0; r < rows; ++r)
    {
        float const cx = centres[r * 2];
        float const cy = centres[r * 2 + 1];
        float const w = sizes[r * 2];
        float const h = sizes[r * 2 + 1];
        if (p.hasAnchors && p.boxCoding == 1)
        {
            // Deltas: small centre shifts and log-sizes.
            c.boxes.insert(c.boxes.end(), {(cx - 2) / 8, (cy - 2) / 8, (w - 1.5F) / 4, (h - 1.5F) / 4});
        }
        else if (p.boxCoding == 1)
        {
            c.boxes.insert(c.boxes.end(), {cx, cy, w, h});
        }
        else if (r % 3 == 0)
        {
            c.boxes.insert(c.boxes.end(), {cx + w / 2, cy + h / 2, cx - w / 2, cy - h / 2}); // Corners reversed.
        }
        else
        {
            c.boxes.insert(c.boxes.end(), {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
        }
    }
    c.scores = uniform(rng, static_cast<size_t>(p.batch * p.elements()), p.scoreActivation ? -4.0F : 0.0F, 1.0F);
    if (p.hasAnchors)
    {
        int64_t const anchors = (p.sharedAnchors ? 1 : p.batch) * p.boxes;
        for (int64_t a = 0; a < anchors; ++a)
        {
            std::vector<float> const v = uniform(rng, 4, 0.0F, 4.0F);
            if (p.boxCoding == 1)
            {
                c.anchors.insert(c.anchors.end(), {v[0], v[1], 1.0F + v[2] / 2, 1.0F + v[3] / 2});
            }
            else
            {
                c.anchors.insert(c.anchors.end(), {v[0], v[1], v[0] + 1 + v[2] / 2, v[1] + 1 + v[3] / 2});
            }
        }
    }
    return c;
}

EfficientNmsParams baseParams()
{
    EfficientNmsParams p;
    p.batch = 2;
    p.boxes = 40;
    p.classes = 3;
    p.scoreThreshold = 0.3F;
    p.iouThreshold = 0.45F;
    p.maxOutputBoxes = 25;
    return p;
}

TEST(EfficientNmsHost, MatchesTheDirectReferenceWithEveryOption)
{
    std::mt19937_64 rng(20261130);
    std::vector<std::pair<std::string, EfficientNmsParams>> cases;
    cases.emplace_back("plain", baseParams());
    EfficientNmsParams p = baseParams();
    p.classAgnostic = true;
    cases.emplace_back("class_agnostic", p);
    p = baseParams();
    p.backgroundClass = 1;
    cases.emplace_back("background_class 1", p);
    p = baseParams();
    p.scoreActivation = true;
    cases.emplace_back("score_activation", p);
    p = baseParams();
    p.boxCoding = 1;
    cases.emplace_back("box_coding 1", p);
    p = baseParams();
    p.hasAnchors = true;
    p.sharedAnchors = true;
    cases.emplace_back("anchors [1, N, 4], corners", p);
    p.boxCoding = 1;
    p.sharedAnchors = false;
    cases.emplace_back("anchors [B, N, 4], centre-size", p);
    p = baseParams();
    p.boxPerClass = true;
    cases.emplace_back("boxes [B, N, C, 4]", p);
    p = baseParams();
    p.maxOutputBoxes = 4;
    p.scoreThreshold = 0.0F;
    cases.emplace_back("max_output_boxes 4, threshold 0", p);
    p = baseParams();
    p.scoreThreshold = 2.0F;
    cases.emplace_back("no candidates", p);
    for (auto const& [name, params] : cases)
    {
        SCOPED_TRACE(name);
        NmsCase const c = randomCase(rng, params);
        expectSame(runHost(c, DataType::kFLOAT), reference(c), 2e-6);
        // FP16: the same rules on the inputs rounded to half.
        NmsCase rounded = c;
        rounded.boxes = roundedToHalf(c.boxes);
        rounded.scores = roundedToHalf(c.scores);
        rounded.anchors = roundedToHalf(c.anchors);
        expectSame(runHost(c, DataType::kHALF), reference(rounded), 2e-3);
    }
}

TEST(EfficientNmsHost, EqualScoresGoByElementIndexAndThresholdsAreInclusive)
{
    EfficientNmsParams p;
    p.batch = 1;
    p.boxes = 4;
    p.classes = 2;
    p.scoreThreshold = 0.5F;
    p.iouThreshold = 0.5F;
    p.maxOutputBoxes = 8;
    NmsCase c{p, {}, {}, {}};
    // Boxes 0 and 1 are the same square; box 2 overlaps box 3 with IoU exactly 0.5 ([0, 2] x [0, 1] and [0, 2] x
    // [0, 2]: 2 / 4); box 3 is elsewhere.
    c.boxes = {0, 0, 1, 1, 0, 0, 1, 1, 10, 10, 12, 11, 10, 10, 12, 12};
    // Class 0: boxes 0 and 1 tie at 0.9 (box 0 wins: element 0 < 2); box 2 at 0.7, box 3 at 0.7 (2 wins: element 4 <
    // 6), which then suppresses box 3 (IoU 0.5 >= 0.5). Class 1: box 1 at exactly the threshold 0.5 is a candidate;
    // box 0 at 0.49 is not.
    c.scores = {0.9F, 0.49F, 0.9F, 0.5F, 0.7F, 0.0F, 0.7F, 0.0F};
    NmsResult const r = runHost(c, DataType::kFLOAT);
    ASSERT_EQ(r.count, std::vector<int32_t>{3});
    EXPECT_EQ(std::vector<int32_t>(r.classes.begin(), r.classes.begin() + 3), (std::vector<int32_t>{0, 0, 1}));
    EXPECT_EQ(std::vector<float>(r.boxes.begin(), r.boxes.begin() + 12),
        (std::vector<float>{0, 0, 1, 1, 10, 10, 12, 11, 0, 0, 1, 1}));
    EXPECT_EQ(std::vector<float>(r.scores.begin(), r.scores.begin() + 3), (std::vector<float>{0.9F, 0.7F, 0.5F}));
    expectSame(r, reference(c), 0);
    // Equal scores across classes: element order n * C + c.
    c.scores = {0.8F, 0.8F, 0.8F, 0.8F, 0.0F, 0.0F, 0.0F, 0.0F};
    NmsResult const tie = runHost(c, DataType::kFLOAT);
    EXPECT_EQ(tie.count, std::vector<int32_t>{2});
    EXPECT_EQ(std::vector<int32_t>(tie.classes.begin(), tie.classes.begin() + 2), (std::vector<int32_t>{0, 1}));
}

TEST(EfficientNmsHost, OnnxVariantLimitsPerClassAndPerImageAndPads)
{
    std::mt19937_64 rng(7);
    EfficientNmsParams p = baseParams();
    p.onnxIndices = true;
    p.batch = 3;
    p.maxOutputBoxesPerClass = 3;
    p.maxOutputBoxes = 3;
    p.iouThreshold = 0.7F;
    NmsCase c = randomCase(rng, p);
    NmsResult const r = runHost(c, DataType::kFLOAT);
    expectSame(r, reference(c), 0);
    ASSERT_EQ(r.rows.size(), 27U);
    EXPECT_EQ(r.rows[0], 0);
    // Nothing selected: every row is -1.
    c.p.scoreThreshold = 5.0F;
    EXPECT_EQ(runHost(c, DataType::kFLOAT).rows, std::vector<int32_t>(27, -1));
    // One image selects one box: the rest repeat it.
    c.p.scoreThreshold = 0.5F;
    c.p.batch = 1;
    c.p.boxes = 1;
    c.p.classes = 1;
    c.boxes = {0, 0, 1, 1};
    c.scores = {0.9F};
    EXPECT_EQ(runHost(c, DataType::kFLOAT).rows, (std::vector<int32_t>{0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

// ---- The creators, serialization and engines ----

nvinfer1::IPluginCreator* creator(char const* name, char const* ns = "")
{
    return static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator(name, "1", ns));
}

struct StandardFields
{
    float score = 0.3F;
    float iou = 0.45F;
    int32_t maxBoxes = 25;
    int32_t background = -1;
    int32_t activation = 0;
    int32_t agnostic = 0;
    int32_t coding = 0;
    std::vector<PluginField> list() const
    {
        return {{"score_threshold", &score, PluginFieldType::kFLOAT32, 1},
            {"iou_threshold", &iou, PluginFieldType::kFLOAT32, 1},
            {"max_output_boxes", &maxBoxes, PluginFieldType::kINT32, 1},
            {"background_class", &background, PluginFieldType::kINT32, 1},
            {"score_activation", &activation, PluginFieldType::kINT32, 1},
            {"class_agnostic", &agnostic, PluginFieldType::kINT32, 1},
            {"box_coding", &coding, PluginFieldType::kINT32, 1}};
    }
};

void expectRefused(nvinfer1::IPluginCreator* c, std::vector<PluginField> const& fields, std::string const& message)
{
    PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
    logger().mMessages.clear();
    nvinfer1::IPluginV2* plugin = c->createPlugin("nms", &fc);
    EXPECT_EQ(plugin, nullptr) << message;
    if (plugin != nullptr)
    {
        plugin->destroy();
    }
    EXPECT_NE(logger().mMessages.find(message), std::string::npos) << logger().mMessages;
}

TEST(EfficientNmsPlugin, RegisteredWithTensorRTsFieldsAndRefusesBadOnes)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    nvinfer1::IPluginCreator* standard = creator("EfficientNMS_TRT");
    ASSERT_NE(standard, nullptr);
    EXPECT_STREQ(standard->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    PluginFieldCollection const* declared = standard->getFieldNames();
    ASSERT_EQ(declared->nbFields, 7);
    char const* const names[] = {"score_threshold", "iou_threshold", "max_output_boxes", "background_class",
        "score_activation", "class_agnostic", "box_coding"};
    for (int32_t i = 0; i < 7; ++i)
    {
        EXPECT_STREQ(declared->fields[i].name, names[i]);
        EXPECT_EQ(declared->fields[i].type, i < 2 ? PluginFieldType::kFLOAT32 : PluginFieldType::kINT32);
    }
    nvinfer1::IPluginCreator* onnx = creator("EfficientNMS_ONNX_TRT");
    ASSERT_NE(onnx, nullptr);
    ASSERT_EQ(onnx->getFieldNames()->nbFields, 4);
    EXPECT_STREQ(onnx->getFieldNames()->fields[2].name, "max_output_boxes_per_class");
    EXPECT_STREQ(onnx->getFieldNames()->fields[3].name, "center_point_box");

    StandardFields f;
    std::vector<PluginField> fields = f.list();
    fields.erase(fields.begin() + 2);
    expectRefused(standard, fields, "EfficientNMS_TRT plugin: field max_output_boxes is required");
    StandardFields bad = f;
    bad.score = -0.1F;
    expectRefused(standard, bad.list(), "score_threshold is -0.100000; it must be >= 0");
    bad = f;
    bad.iou = 0.0F;
    expectRefused(standard, bad.list(), "iou_threshold is 0.000000; it must be > 0");
    bad = f;
    bad.maxBoxes = 0;
    expectRefused(standard, bad.list(), "max_output_boxes is 0; it must be positive");
    bad = f;
    bad.agnostic = 2;
    expectRefused(standard, bad.list(), "score_activation and class_agnostic are 0 and 2; each must be 0 or 1");
    bad = f;
    bad.coding = 3;
    expectRefused(standard, bad.list(), "box_coding is 3; it must be 0 (corners) or 1 (centre and size)");
    fields = f.list();
    fields[2].type = PluginFieldType::kFLOAT32;
    expectRefused(standard, fields, "field max_output_boxes must be kINT32");

    int32_t const zero = 0;
    int32_t const two = 2;
    int32_t const three = 3;
    expectRefused(onnx, {}, "EfficientNMS_ONNX_TRT plugin: max_output_boxes_per_class is -1; it must be given");
    expectRefused(onnx, {{"max_output_boxes_per_class", &zero, PluginFieldType::kINT32, 1}},
        "max_output_boxes_per_class is 0; it must be given, and positive");
    expectRefused(onnx,
        {{"max_output_boxes_per_class", &three, PluginFieldType::kINT32, 1},
            {"center_point_box", &two, PluginFieldType::kINT32, 1}},
        "center_point_box is 2; it must be 0 (corners) or 1 (centre and size)");
    float const nan = std::nanf("");
    expectRefused(onnx,
        {{"max_output_boxes_per_class", &three, PluginFieldType::kINT32, 1},
            {"iou_threshold", &nan, PluginFieldType::kFLOAT32, 1}},
        "score_threshold and iou_threshold must be numbers");
}

TEST(EfficientNmsPlugin, SerializesToItsFieldsAndRefusesAWrongLength)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    nvinfer1::IPluginCreator* standard = creator("EfficientNMS_TRT");
    ASSERT_NE(standard, nullptr);
    StandardFields f;
    f.activation = 1;
    f.agnostic = 1;
    f.background = 2;
    std::vector<PluginField> const fields = f.list();
    PluginFieldCollection const fc{7, fields.data()};
    auto* plugin = static_cast<nvinfer1::IPluginV2DynamicExt*>(standard->createPlugin("nms", &fc));
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "EfficientNMS_TRT");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    EXPECT_EQ(plugin->getNbOutputs(), 4);
    DataType const in[] = {DataType::kHALF, DataType::kHALF};
    EXPECT_EQ(plugin->getOutputDataType(0, in, 2), DataType::kINT32);
    EXPECT_EQ(plugin->getOutputDataType(1, in, 2), DataType::kHALF);
    EXPECT_EQ(plugin->getOutputDataType(3, in, 2), DataType::kINT32);
    std::vector<uint8_t> bytes(plugin->getSerializationSize());
    ASSERT_EQ(bytes.size(), 28U);
    plugin->serialize(bytes.data());
    nvinfer1::IPluginV2* restored = standard->deserializePlugin("nms", bytes.data(), bytes.size());
    ASSERT_NE(restored, nullptr);
    std::vector<uint8_t> again(restored->getSerializationSize());
    restored->serialize(again.data());
    EXPECT_EQ(again, bytes);
    restored->destroy();
    plugin->destroy();
    logger().mMessages.clear();
    EXPECT_EQ(standard->deserializePlugin("nms", bytes.data(), 27), nullptr);
    EXPECT_NE(logger().mMessages.find("EfficientNMS_TRT plugin: version 1 namespace \"\": the serialized plugin has 27 "
                                      "bytes; it must have 28 (its fields)"),
        std::string::npos)
        << logger().mMessages;
    // A serialized value the creator refuses is refused on the way back too.
    f.maxBoxes = -3;
    std::vector<PluginField> const badFields = f.list();
    std::vector<uint8_t> hostile(28);
    for (size_t i = 0; i < badFields.size(); ++i)
    {
        std::memcpy(hostile.data() + 4 * i, badFields[i].data, 4);
    }
    logger().mMessages.clear();
    EXPECT_EQ(standard->deserializePlugin("nms", hostile.data(), hostile.size()), nullptr);
    EXPECT_NE(logger().mMessages.find("max_output_boxes is -3"), std::string::npos) << logger().mMessages;
}

//! A plugin tensor description of dims.
nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, DataType type = DataType::kFLOAT)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(EfficientNmsPlugin, RunsWhoseShapesDisagreeAreRefused)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    StandardFields f;
    f.maxBoxes = 2;
    std::vector<PluginField> const fields = f.list();
    PluginFieldCollection const fc{7, fields.data()};
    nvinfer1::IPluginV2* created = creator("EfficientNMS_TRT")->createPlugin("nms", &fc);
    ASSERT_NE(created, nullptr);
    auto* dynamic = static_cast<StandardPluginV2*>(created);
    std::vector<float> boxes(1 * 3 * 4, 0.F);
    std::vector<float> scores(1 * 3 * 2, 0.9F);
    std::vector<int32_t> count(1, -7);
    std::vector<float> outBoxes(1 * 2 * 4, -7.F);
    std::vector<float> outScores(1 * 2, -7.F);
    std::vector<int32_t> outClasses(1, -7); // [1, 1]: one short of [1, 2].
    nvinfer1::PluginTensorDesc const in[]
        = {describe(nvinfer1::Dims{3, {1, 3, 4}}), describe(nvinfer1::Dims{3, {1, 3, 2}})};
    nvinfer1::PluginTensorDesc const out[]
        = {describe(nvinfer1::Dims{2, {1, 1}}, DataType::kINT32), describe(nvinfer1::Dims{3, {1, 2, 4}}),
            describe(nvinfer1::Dims{2, {1, 2}}), describe(nvinfer1::Dims{2, {1, 1}}, DataType::kINT32)};
    void const* inputs[] = {boxes.data(), scores.data()};
    void* outputs[] = {count.data(), outBoxes.data(), outScores.data(), outClasses.data()};
    nvinfer1::DynamicPluginTensorDesc dynIn[2]{};
    nvinfer1::DynamicPluginTensorDesc dynOut[4]{};
    // The host route before configurePlugin, then with a short output.
    logger().mMessages.clear();
    EXPECT_NE(dynamic->enqueueHost(in, out, inputs, outputs, nullptr), 0);
    EXPECT_NE(logger().mMessages.find("enqueue before configurePlugin"), std::string::npos) << logger().mMessages;
    dynamic->configurePlugin(dynIn, 2, dynOut, 4);
    logger().mMessages.clear();
    EXPECT_NE(dynamic->enqueueHost(in, out, inputs, outputs, nullptr), 0);
    EXPECT_NE(logger().mMessages.find("EfficientNMS_TRT plugin: the tensors of this run do not have the shapes"),
        std::string::npos)
        << logger().mMessages;
    EXPECT_EQ(count, std::vector<int32_t>{-7}) << "nothing written";
    created->destroy();
}

TEST(EfficientNmsPlugin, EnginesSerializeDeserializeAndRunOnTheHost)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    std::mt19937_64 rng(11);
    for (bool onnx : {false, true})
    {
        SCOPED_TRACE(onnx ? "EfficientNMS_ONNX_TRT" : "EfficientNMS_TRT, with anchors");
        EfficientNmsParams p = baseParams();
        p.hasAnchors = !onnx;
        p.sharedAnchors = true;
        p.boxCoding = 1;
        p.onnxIndices = onnx;
        if (onnx)
        {
            p.maxOutputBoxesPerClass = 4;
            p.maxOutputBoxes = 4;
        }
        NmsCase c = randomCase(rng, p); // Not const: its buffers are bound as tensors.
        std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
        std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
        std::vector<nvinfer1::ITensor*> inputs
            = {network->addInput("boxes", DataType::kFLOAT, nvinfer1::Dims{3, {p.batch, p.boxes, 4}}),
                network->addInput("scores", DataType::kFLOAT, nvinfer1::Dims{3, {p.batch, p.boxes, p.classes}})};
        if (p.hasAnchors)
        {
            inputs.push_back(network->addInput("anchors", DataType::kFLOAT, nvinfer1::Dims{3, {1, p.boxes, 4}}));
        }
        StandardFields f;
        f.coding = 1;
        int32_t const perClass = 4;
        std::vector<PluginField> const fields = onnx
            ? std::vector<PluginField>{{"score_threshold", &f.score, PluginFieldType::kFLOAT32, 1},
                {"iou_threshold", &f.iou, PluginFieldType::kFLOAT32, 1},
                {"max_output_boxes_per_class", &perClass, PluginFieldType::kINT32, 1},
                {"center_point_box", &f.coding, PluginFieldType::kINT32, 1}}
            : f.list();
        PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
        nvinfer1::IPluginV2* plugin
            = creator(onnx ? "EfficientNMS_ONNX_TRT" : "EfficientNMS_TRT")->createPlugin("nms", &fc);
        ASSERT_NE(plugin, nullptr);
        nvinfer1::IPluginV2Layer* layer
            = network->addPluginV2(inputs.data(), static_cast<int32_t>(inputs.size()), *plugin);
        ASSERT_NE(layer, nullptr);
        char const* const names[] = {"num", "boxes_out", "scores_out", "classes_out"};
        for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
        {
            layer->getOutput(o)->setName(names[o]);
            network->markOutput(*layer->getOutput(o));
        }
        std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
        logger().mMessages.clear();
        std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
        plugin->destroy();
        ASSERT_NE(plan, nullptr) << logger().mMessages;
        std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
        std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
        ASSERT_NE(engine, nullptr) << logger().mMessages;
        std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
        ASSERT_NE(context, nullptr) << logger().mMessages;
        NmsResult r;
        size_t const slots = static_cast<size_t>(p.batch * p.maxOutputBoxes);
        r.count.assign(static_cast<size_t>(p.batch), -1);
        r.boxes.assign(slots * 4, -1.F);
        r.scores.assign(slots, -1.F);
        r.classes.assign(slots, -1);
        r.rows.assign(slots * 3, -9);
        context->setTensorAddress("boxes", c.boxes.data());
        context->setTensorAddress("scores", c.scores.data());
        if (p.hasAnchors)
        {
            context->setTensorAddress("anchors", c.anchors.data());
        }
        if (onnx)
        {
            context->setTensorAddress("num", r.rows.data());
        }
        else
        {
            context->setTensorAddress("num", r.count.data());
            context->setTensorAddress("boxes_out", r.boxes.data());
            context->setTensorAddress("scores_out", r.scores.data());
            context->setTensorAddress("classes_out", r.classes.data());
        }
        ASSERT_TRUE(context->enqueueV3(nullptr)) << logger().mMessages;
        if (!onnx)
        {
            r.rows.clear();
        }
        expectSame(r, reference(c), 2e-6);
    }
}

} // namespace
} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
