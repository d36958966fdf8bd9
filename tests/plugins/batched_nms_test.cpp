// SPDX-License-Identifier: Apache-2.0
// BatchedNMSDynamic_TRT on the host: the host implementation against a direct per-class greedy NMS written here
// (double arithmetic, stable sorts) on seeded random boxes with every option (shared and per-class boxes, background
// class, unnormalized boxes with and without Caffe semantics, clipping, topK and keepTopK limits, FP16); the tie and
// threshold rules (a score equal to scoreThreshold is not a candidate; an IoU equal to iouThreshold does not
// suppress; equal scores go by class, then by box); the creator's fields and refusals; serialization; and an engine
// built, serialized, deserialized and run on the host backend.
#include "NvInferPlugin.h"
#include "batched_nms.h"
#include "core/float_convert.h"
#include "host_engine_support.h"
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

using BatchedLogger = test::PluginLog; // warnings and errors, one per line (host_engine_support.h)

BatchedLogger& logger()
{
    static BatchedLogger instance;
    return instance;
}

struct BatchedResult
{
    std::vector<int32_t> count;
    std::vector<float> boxes;
    std::vector<float> scores;
    std::vector<float> classes;
};

struct BatchedCase
{
    BatchedNmsParams p;
    std::vector<float> boxes;
    std::vector<float> scores;
};

double refIou(BatchedNmsParams const& p, std::vector<double> a, std::vector<double> b)
{
    for (auto* box : {&a, &b})
    {
        auto& v = *box;
        if (v[0] > v[2])
        {
            std::swap(v[0], v[2]);
        }
        if (v[1] > v[3])
        {
            std::swap(v[1], v[3]);
        }
    }
    if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1])
    {
        return 0.0;
    }
    double const pad = !p.isNormalized && p.caffeSemantics ? 1.0 : 0.0;
    double const iw = std::min(a[2], b[2]) - std::max(a[0], b[0]) + pad;
    double const ih = std::min(a[3], b[3]) - std::max(a[1], b[1]) + pad;
    if (!(iw > 0 && ih > 0))
    {
        return 0.0;
    }
    double const one = p.isNormalized ? 0.0 : 1.0;
    double const sa = (a[2] - a[0] + one) * (a[3] - a[1] + one);
    double const sb = (b[2] - b[0] + one) * (b[3] - b[1] + one);
    return iw * ih / (sa + sb - iw * ih);
}

BatchedResult reference(BatchedCase const& c)
{
    BatchedNmsParams const& p = c.p;
    int64_t const kept = p.keepTopK;
    int64_t const classes = p.numClasses;
    BatchedResult r;
    r.count.assign(static_cast<size_t>(p.batch), 0);
    r.boxes.assign(static_cast<size_t>(p.batch * kept * 4), 0.0F);
    r.scores.assign(static_cast<size_t>(p.batch * kept), 0.0F);
    r.classes.assign(static_cast<size_t>(p.batch * kept), -1.0F);
    auto const box = [&](int64_t image, int64_t n, int64_t cls) {
        int64_t const row = p.shareLocation ? image * p.boxes + n : (image * p.boxes + n) * classes + cls;
        return std::vector<double>(c.boxes.begin() + row * 4, c.boxes.begin() + row * 4 + 4);
    };
    for (int64_t image = 0; image < p.batch; ++image)
    {
        auto const score = [&](int64_t n, int64_t cls) { return c.scores[(image * p.boxes + n) * classes + cls]; };
        struct Kept
        {
            float score;
            int64_t cls;
            int64_t n;
        };
        std::vector<Kept> all;
        for (int64_t cls = 0; cls < classes; ++cls)
        {
            if (cls == p.backgroundLabelId)
            {
                continue;
            }
            std::vector<int64_t> order;
            for (int64_t n = 0; n < p.boxes; ++n)
            {
                if (score(n, cls) > p.scoreThreshold)
                {
                    order.push_back(n);
                }
            }
            std::stable_sort(
                order.begin(), order.end(), [&](int64_t a, int64_t b) { return score(a, cls) > score(b, cls); });
            order.resize(std::min<size_t>(order.size(), static_cast<size_t>(p.topK)));
            std::vector<int64_t> keptHere;
            for (int64_t n : order)
            {
                bool suppressed = false;
                for (int64_t k : keptHere)
                {
                    suppressed = suppressed || refIou(p, box(image, k, cls), box(image, n, cls)) > p.iouThreshold;
                }
                if (!suppressed)
                {
                    keptHere.push_back(n);
                    all.push_back({score(n, cls), cls, n});
                }
            }
        }
        // Stable: class order, then rank within the class, for equal scores.
        std::stable_sort(all.begin(), all.end(), [](Kept const& a, Kept const& b) { return a.score > b.score; });
        int64_t const found = std::min<int64_t>(static_cast<int64_t>(all.size()), kept);
        for (int64_t d = 0; d < found; ++d)
        {
            size_t const slot = static_cast<size_t>(image * kept + d);
            std::vector<double> const b = box(image, all[d].n, all[d].cls);
            for (int k = 0; k < 4; ++k)
            {
                double const v = p.clipBoxes ? std::min(std::max(b[k], 0.0), 1.0) : b[k];
                r.boxes[slot * 4 + static_cast<size_t>(k)] = static_cast<float>(v);
            }
            r.scores[slot] = all[d].score;
            r.classes[slot] = static_cast<float>(all[d].cls);
        }
        r.count[static_cast<size_t>(image)] = static_cast<int32_t>(found);
    }
    return r;
}

std::vector<float> roundedToHalf(std::vector<float> v)
{
    for (float& x : v)
    {
        x = halfToFloat(floatToHalf(x));
    }
    return v;
}

BatchedResult runHost(BatchedCase const& c, DataType type)
{
    BatchedNmsParams const& p = c.p;
    size_t const slots = static_cast<size_t>(p.batch * p.keepTopK);
    bool const half = type == DataType::kHALF;
    size_t const element = half ? 2 : 4;
    std::vector<uint8_t> boxes(slots * 4 * element, 0xAB);
    std::vector<uint8_t> scores(slots * element, 0xAB);
    std::vector<uint8_t> classes(slots * element, 0xAB);
    BatchedResult r;
    r.count.assign(static_cast<size_t>(p.batch), -5);
    auto const toHalf = [](std::vector<float> const& v) {
        std::vector<uint16_t> h(v.size());
        std::transform(v.begin(), v.end(), h.begin(), [](float x) { return floatToHalf(x); });
        return h;
    };
    std::vector<uint16_t> const hb = toHalf(c.boxes);
    std::vector<uint16_t> const hs = toHalf(c.scores);
    void* outputs[] = {r.count.data(), boxes.data(), scores.data(), classes.data()};
    runBatchedNmsHost(p, type, half ? static_cast<void const*>(hb.data()) : c.boxes.data(),
        half ? static_cast<void const*>(hs.data()) : c.scores.data(), outputs);
    auto const read = [half](std::vector<uint8_t> const& bytes) {
        std::vector<float> v(bytes.size() / (half ? 2 : 4));
        for (size_t i = 0; i < v.size(); ++i)
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
    r.boxes = read(boxes);
    r.scores = read(scores);
    r.classes = read(classes);
    return r;
}

void expectSame(BatchedResult const& actual, BatchedResult const& expected, double tolerance)
{
    EXPECT_EQ(actual.count, expected.count);
    EXPECT_EQ(actual.classes, expected.classes);
    ASSERT_EQ(actual.boxes.size(), expected.boxes.size());
    for (size_t i = 0; i < expected.boxes.size(); ++i)
    {
        EXPECT_NEAR(actual.boxes[i], expected.boxes[i], tolerance * (1 + std::fabs(expected.boxes[i]))) << i;
    }
    EXPECT_EQ(actual.scores, expected.scores);
}

BatchedCase randomCase(std::mt19937_64& rng, BatchedNmsParams const& p, float scale)
{
    BatchedCase c{p, {}, {}};
    std::uniform_real_distribution<float> centre(0.0F, scale);
    std::uniform_real_distribution<float> size(scale / 8, scale / 2);
    std::uniform_real_distribution<float> score(0.0F, 1.0F);
    int64_t const rows = p.batch * p.boxes * (p.shareLocation ? 1 : p.numClasses);
    for (int64_t r = 0; r < rows; ++r)
    {
        float const x = centre(rng);
        float const y = centre(rng);
        float const w = size(rng);
        float const h = size(rng);
        c.boxes.insert(c.boxes.end(), {x - w / 2, y - h / 2, x + w / 2, y + h / 2});
    }
    for (int64_t i = 0; i < p.batch * p.boxes * p.numClasses; ++i)
    {
        c.scores.push_back(score(rng));
    }
    return c;
}

BatchedNmsParams baseParams()
{
    BatchedNmsParams p;
    p.batch = 2;
    p.boxes = 50;
    p.numClasses = 4;
    p.topK = 30;
    p.keepTopK = 20;
    p.scoreThreshold = 0.25F;
    p.iouThreshold = 0.4F;
    return p;
}

TEST(BatchedNmsHost, MatchesTheDirectReferenceWithEveryOption)
{
    std::mt19937_64 rng(20261130);
    std::vector<std::pair<std::string, BatchedNmsParams>> cases;
    cases.emplace_back("shared boxes, normalized, clipped", baseParams());
    BatchedNmsParams p = baseParams();
    p.shareLocation = false;
    p.backgroundLabelId = 0;
    cases.emplace_back("per-class boxes, background 0", p);
    p = baseParams();
    p.isNormalized = false;
    p.clipBoxes = false;
    cases.emplace_back("unnormalized, Caffe semantics", p);
    p.caffeSemantics = false;
    cases.emplace_back("unnormalized, no Caffe semantics", p);
    p = baseParams();
    p.topK = 3;
    p.keepTopK = 3;
    cases.emplace_back("topK 3", p);
    p = baseParams();
    p.topK = 4096;
    p.keepTopK = 4096;
    cases.emplace_back("topK above N", p);
    for (auto const& [name, params] : cases)
    {
        SCOPED_TRACE(name);
        BatchedCase const c = randomCase(rng, params, params.isNormalized ? 1.2F : 40.0F);
        expectSame(runHost(c, DataType::kFLOAT), reference(c), 0);
        BatchedCase rounded = c;
        rounded.boxes = roundedToHalf(c.boxes);
        rounded.scores = roundedToHalf(c.scores);
        BatchedResult expected = reference(rounded);
        expected.boxes = roundedToHalf(expected.boxes);
        expectSame(runHost(c, DataType::kHALF), expected, 0);
    }
}

TEST(BatchedNmsHost, StrictThresholdsAndTies)
{
    BatchedNmsParams p;
    p.batch = 1;
    p.boxes = 4;
    p.numClasses = 2;
    p.topK = 4;
    p.keepTopK = 4;
    p.scoreThreshold = 0.5F;
    p.iouThreshold = 0.5F;
    BatchedCase c{p, {}, {}};
    // Boxes 0 and 1 overlap with IoU exactly 0.5 ([0, 1] x [0, 1] in [0, 1] x [0, 2]); boxes 2 and 3 are apart.
    c.boxes = {0, 0, 1, 1, 0, 0, 1, 2, 0.2F, 0.2F, 0.3F, 0.3F, 0.6F, 0.6F, 0.7F, 0.7F};
    // Class 0: boxes 0 and 1 at 0.8 (both kept: IoU 0.5 is not > 0.5), box 2 at exactly 0.5 (not a candidate).
    // Class 1: box 3 at 0.8 ties with class 0's two: class 0 first, then by rank.
    c.scores = {0.8F, 0.0F, 0.8F, 0.0F, 0.5F, 0.0F, 0.0F, 0.8F};
    BatchedResult const r = runHost(c, DataType::kFLOAT);
    EXPECT_EQ(r.count, std::vector<int32_t>{3});
    EXPECT_EQ(r.classes, (std::vector<float>{0, 0, 1, -1}));
    EXPECT_EQ(r.boxes, (std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 0.6F, 0.6F, 0.7F, 0.7F, 0, 0, 0, 0}))
        << "box 1 is clipped to [0, 1]";
    expectSame(r, reference(c), 0);
}

// ---- The creator, serialization and an engine ----

struct Fields
{
    int32_t share = 1;
    int32_t background = -1;
    int32_t classes = 4;
    int32_t topK = 30;
    int32_t keepTopK = 20;
    float score = 0.25F;
    float iou = 0.4F;
    int32_t normalized = 1;
    int32_t clip = 1;
    int32_t scoreBits = 16;
    int32_t caffe = 1;
    std::vector<PluginField> list() const
    {
        return {{"shareLocation", &share, PluginFieldType::kINT32, 1},
            {"backgroundLabelId", &background, PluginFieldType::kINT32, 1},
            {"numClasses", &classes, PluginFieldType::kINT32, 1}, {"topK", &topK, PluginFieldType::kINT32, 1},
            {"keepTopK", &keepTopK, PluginFieldType::kINT32, 1},
            {"scoreThreshold", &score, PluginFieldType::kFLOAT32, 1},
            {"iouThreshold", &iou, PluginFieldType::kFLOAT32, 1},
            {"isNormalized", &normalized, PluginFieldType::kINT32, 1}, {"clipBoxes", &clip, PluginFieldType::kINT32, 1},
            {"scoreBits", &scoreBits, PluginFieldType::kINT32, 1},
            {"caffeSemantics", &caffe, PluginFieldType::kINT32, 1}};
    }
};

nvinfer1::IPluginCreator* creator(char const* name = "BatchedNMSDynamic_TRT")
{
    return static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator(name, "1", ""));
}

void expectRefused(std::vector<PluginField> const& fields, std::string const& message)
{
    PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
    logger().mMessages.clear();
    nvinfer1::IPluginV2* plugin = creator()->createPlugin("nms", &fc);
    EXPECT_EQ(plugin, nullptr) << message;
    if (plugin != nullptr)
    {
        plugin->destroy();
    }
    EXPECT_NE(logger().mMessages.find(message), std::string::npos) << logger().mMessages;
}

TEST(BatchedNmsPlugin, RegisteredWithTensorRTsFieldsAndRefusesBadOnes)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    ASSERT_NE(creator(), nullptr);
    PluginFieldCollection const* declared = creator()->getFieldNames();
    ASSERT_EQ(declared->nbFields, 11);
    EXPECT_STREQ(declared->fields[0].name, "shareLocation");
    EXPECT_STREQ(declared->fields[6].name, "iouThreshold");
    EXPECT_EQ(declared->fields[5].type, PluginFieldType::kFLOAT32);
    EXPECT_STREQ(declared->fields[10].name, "caffeSemantics");
    Fields const f;
    std::vector<PluginField> fields = f.list();
    fields.erase(fields.begin() + 3);
    expectRefused(fields, "BatchedNMSDynamic_TRT plugin: field topK is required");
    Fields bad = f;
    bad.topK = 4097;
    expectRefused(bad.list(), "topK is 4097; it must be 1 to 4096");
    bad = f;
    bad.keepTopK = 31;
    expectRefused(bad.list(), "keepTopK is 31; it must be 1 to topK (30)");
    bad = f;
    bad.classes = 0;
    expectRefused(bad.list(), "numClasses is 0; it must be positive");
    bad = f;
    bad.clip = 2;
    expectRefused(bad.list(), "shareLocation, isNormalized, clipBoxes and caffeSemantics are 1, 1, 2 and 1");
    bad = f;
    bad.iou = std::nanf("");
    expectRefused(bad.list(), "scoreThreshold and iouThreshold must be numbers");
}

TEST(BatchedNmsPlugin, SerializesAndRunsInAnEngineOnTheHost)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    Fields f;
    f.share = 0;
    f.normalized = 0;
    f.clip = 0;
    std::vector<PluginField> const fields = f.list();
    PluginFieldCollection const fc{11, fields.data()};
    nvinfer1::IPluginV2* plugin = creator()->createPlugin("nms", &fc);
    ASSERT_NE(plugin, nullptr);
    std::vector<uint8_t> bytes(plugin->getSerializationSize());
    ASSERT_EQ(bytes.size(), 44U);
    plugin->serialize(bytes.data());
    nvinfer1::IPluginV2* restored = creator()->deserializePlugin("nms", bytes.data(), bytes.size());
    ASSERT_NE(restored, nullptr);
    std::vector<uint8_t> again(restored->getSerializationSize());
    restored->serialize(again.data());
    EXPECT_EQ(again, bytes);
    restored->destroy();

    std::mt19937_64 rng(5);
    BatchedNmsParams p = baseParams();
    p.shareLocation = false;
    p.isNormalized = false;
    p.clipBoxes = false;
    BatchedCase c = randomCase(rng, p, 40.0F);
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* inputs[]
        = {network->addInput("boxes", DataType::kFLOAT, nvinfer1::Dims{4, {p.batch, p.boxes, p.numClasses, 4}}),
            network->addInput("scores", DataType::kFLOAT, nvinfer1::Dims{3, {p.batch, p.boxes, p.numClasses}})};
    nvinfer1::IPluginV2Layer* layer = network->addPluginV2(inputs, 2, *plugin);
    ASSERT_NE(layer, nullptr);
    char const* const names[] = {"num", "out_boxes", "out_scores", "out_classes"};
    for (int32_t o = 0; o < 4; ++o)
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
    size_t const slots = static_cast<size_t>(p.batch * p.keepTopK);
    BatchedResult r;
    r.count.assign(static_cast<size_t>(p.batch), -1);
    r.boxes.assign(slots * 4, -9.F);
    r.scores.assign(slots, -9.F);
    r.classes.assign(slots, -9.F);
    context->setTensorAddress("boxes", c.boxes.data());
    context->setTensorAddress("scores", c.scores.data());
    context->setTensorAddress("num", r.count.data());
    context->setTensorAddress("out_boxes", r.boxes.data());
    context->setTensorAddress("out_scores", r.scores.data());
    context->setTensorAddress("out_classes", r.classes.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger().mMessages;
    expectSame(r, reference(c), 0);
}

TEST(BatchedNmsPlugin, RunsWhoseShapesDisagreeAreRefused)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    Fields f;
    f.classes = 2;
    f.keepTopK = 2;
    std::vector<PluginField> const fields = f.list();
    PluginFieldCollection const fc{11, fields.data()};
    nvinfer1::IPluginV2* created = creator()->createPlugin("nms", &fc);
    ASSERT_NE(created, nullptr);
    auto* plugin = static_cast<StandardPluginV2*>(created);
    auto const describe = [](nvinfer1::Dims const& dims, DataType type) {
        nvinfer1::PluginTensorDesc desc{};
        desc.dims = dims;
        desc.type = type;
        desc.format = nvinfer1::TensorFormat::kLINEAR;
        return desc;
    };
    std::vector<float> boxes(3 * 4, 0.F);
    std::vector<float> scores(3 * 3, 0.9F); // Three classes where the fields say two.
    std::vector<int32_t> count(1, -7);
    std::vector<float> out(2 * 4, -7.F);
    nvinfer1::PluginTensorDesc const in[] = {describe(nvinfer1::Dims{4, {1, 3, 1, 4}}, DataType::kFLOAT),
        describe(nvinfer1::Dims{3, {1, 3, 3}}, DataType::kFLOAT)};
    nvinfer1::PluginTensorDesc const outDesc[] = {describe(nvinfer1::Dims{2, {1, 1}}, DataType::kINT32),
        describe(nvinfer1::Dims{3, {1, 2, 4}}, DataType::kFLOAT), describe(nvinfer1::Dims{2, {1, 2}}, DataType::kFLOAT),
        describe(nvinfer1::Dims{2, {1, 2}}, DataType::kFLOAT)};
    void const* inputs[] = {boxes.data(), scores.data()};
    void* outputs[] = {count.data(), out.data(), out.data(), out.data()};
    logger().mMessages.clear();
    EXPECT_NE(plugin->enqueueHost(in, outDesc, inputs, outputs, nullptr), 0);
    EXPECT_NE(logger().mMessages.find("BatchedNMSDynamic_TRT plugin: the tensors of this run do not have the shapes"),
        std::string::npos)
        << logger().mMessages;
    EXPECT_EQ(count, std::vector<int32_t>{-7});
    created->destroy();
}

// BatchedNMS_TRT, the IPluginV2Ext form, in an explicit-batch network: the plugin sees shapes without the batch axis,
// num_detections is [B], and its plan carries the number of boxes per item.
TEST(BatchedNmsPlugin, ImplicitBatchFormRunsInAnEngineOnTheHost)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    nvinfer1::IPluginCreator* v2ext = creator("BatchedNMS_TRT");
    ASSERT_NE(v2ext, nullptr);
    EXPECT_EQ(v2ext->getFieldNames()->nbFields, 11);
    Fields const f;
    std::vector<PluginField> const fields = f.list();
    PluginFieldCollection const fc{11, fields.data()};
    nvinfer1::IPluginV2* plugin = v2ext->createPlugin("nms", &fc);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "BatchedNMS_TRT");
    std::vector<uint8_t> const bytes(47);
    logger().mMessages.clear();
    EXPECT_EQ(v2ext->deserializePlugin("nms", bytes.data(), bytes.size()), nullptr);
    EXPECT_NE(logger().mMessages.find("BatchedNMS_TRT plugin: the serialized plugin has 47 bytes; it must have 48"),
        std::string::npos)
        << logger().mMessages;

    std::mt19937_64 rng(6);
    BatchedNmsParams p = baseParams();
    BatchedCase c = randomCase(rng, p, 1.2F);
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* inputs[]
        = {network->addInput("boxes", DataType::kFLOAT, nvinfer1::Dims{4, {p.batch, p.boxes, 1, 4}}),
            network->addInput("scores", DataType::kFLOAT, nvinfer1::Dims{3, {p.batch, p.boxes, p.numClasses}})};
    nvinfer1::IPluginV2Layer* layer = network->addPluginV2(inputs, 2, *plugin);
    ASSERT_NE(layer, nullptr);
    char const* const names[] = {"num", "out_boxes", "out_scores", "out_classes"};
    for (int32_t o = 0; o < 4; ++o)
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
    EXPECT_EQ(engine->getTensorShape("num").nbDims, 1);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << logger().mMessages;
    size_t const slots = static_cast<size_t>(p.batch * p.keepTopK);
    BatchedResult r;
    r.count.assign(static_cast<size_t>(p.batch), -1);
    r.boxes.assign(slots * 4, -9.F);
    r.scores.assign(slots, -9.F);
    r.classes.assign(slots, -9.F);
    context->setTensorAddress("boxes", c.boxes.data());
    context->setTensorAddress("scores", c.scores.data());
    context->setTensorAddress("num", r.count.data());
    context->setTensorAddress("out_boxes", r.boxes.data());
    context->setTensorAddress("out_scores", r.scores.data());
    context->setTensorAddress("out_classes", r.classes.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger().mMessages;
    expectSame(r, reference(c), 0);
}

} // namespace
} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
