// SPDX-License-Identifier: Apache-2.0
// The CUDA NMS kernel against the host reference, exactly (the count and every row): both box formats, shared and
// per-class boxes, FP32 and FP16, both indices and count types; fixed cases (ONNX's example, a detection head's sizes,
// the TopK box limit cutting candidates, a limit per class of 0, thresholds that drop everything, empty inputs) and
// random ones with many overlapping boxes and tied scores; and the refusals (the host's messages).
#include "backends/host/nms.h"

#include "cuda_test_util.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::BoundingBoxFormat;

struct Case
{
    int64_t batches, boxes, classes;
    bool perClass;
    int64_t maxPerClass;
    float iou, score;
    int32_t topK;
    BoundingBoxFormat format;
    DataType type;
};

class CudaNms : public CudaKernelTest
{
protected:
    //! Boxes clustered on a small grid (so that many overlap) and scores from a few values (so that many tie).
    void fill(HostBuffer& boxes, HostBuffer& scores, BoundingBoxFormat format)
    {
        std::uniform_real_distribution<double> position(0.0, 8.0);
        std::uniform_real_distribution<double> size(0.5, 3.0);
        int64_t const nbBoxes = host::elementCount(boxes.tensor()) / 4;
        for (int64_t b = 0; b < nbBoxes; ++b)
        {
            double const x = position(mRng);
            double const y = position(mRng);
            double const w = mRng() % 20 == 0 ? 0.0 : size(mRng);
            double const h = size(mRng);
            double const values[4] = {x, y, format == BoundingBoxFormat::kCENTER_SIZES ? w : x + w,
                format == BoundingBoxFormat::kCENTER_SIZES ? h : y + h};
            bool const flip = format == BoundingBoxFormat::kCORNER_PAIRS && mRng() % 3 == 0;
            for (int64_t k = 0; k < 4; ++k)
            {
                host::storeFloat(boxes.tensor(), 4 * b + k, values[flip ? (k + 2) % 4 : k]);
            }
        }
        for (int64_t i = 0; i < host::elementCount(scores.tensor()); ++i)
        {
            host::storeFloat(scores.tensor(), i, mRng() % 4 == 0 ? 0.5 : static_cast<double>(mRng() % 97) / 97.0);
        }
    }

    void check(Case const& c, DataType indicesType, DataType countType)
    {
        std::ostringstream what;
        what << dataTypeName(c.type) << " B " << c.batches << " N " << c.boxes << " C " << c.classes << " perClass "
             << c.perClass << " max " << c.maxPerClass << " iou " << c.iou << " score " << c.score << " topK " << c.topK
             << (c.format == BoundingBoxFormat::kCENTER_SIZES ? " center" : " corners") << " indices "
             << dataTypeName(indicesType) << " count " << dataTypeName(countType);
        SCOPED_TRACE(what.str());
        NMSParams params;
        params.format = c.format;
        params.topKBoxLimit = c.topK;
        params.indicesType = indicesType;
        Dims const boxDims
            = c.perClass ? Dims{4, {c.batches, c.boxes, c.classes, 4}} : Dims{3, {c.batches, c.boxes, 4}};
        HostBuffer boxes(c.type, boxDims);
        HostBuffer scores(c.type, Dims{3, {c.batches, c.boxes, c.classes}});
        fill(boxes, scores, c.format);
        host::NMSScalars const scalars{c.maxPerClass, c.iou, c.score};
        Dims const rows{2, {c.batches * c.classes * std::min(c.boxes, c.maxPerClass) + 1, 3}};
        HostBuffer selected(indicesType, rows);
        HostBuffer count(countType, Dims{0, {}});
        Status const hostDone
            = host::runNMS(params, boxes.tensor(), scores.tensor(), scalars, selected.tensor(), count.tensor());
        ASSERT_TRUE(hostDone.ok()) << hostDone.error().message;
        DeviceBuffer const dboxes = DeviceBuffer::upload(boxes.tensor());
        DeviceBuffer const dscores = DeviceBuffer::upload(scores.tensor());
        DeviceBuffer const dselected(selected.tensor());
        DeviceBuffer const dcount(count.tensor());
        Status const done = cuda::runNMS(
            params, dboxes.tensor(), dscores.tensor(), scalars, dselected.tensor(), dcount.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        int64_t const n = host::loadInteger(count.tensor(), 0);
        HostBuffer const gotCount = dcount.download(mStream);
        ASSERT_EQ(host::loadInteger(gotCount.tensor(), 0), n);
        HostBuffer const got = dselected.download(mStream);
        for (int64_t k = 0, failures = 0; k < 3 * n && failures < 10; ++k)
        {
            bool const same = host::loadInteger(got.tensor(), k) == host::loadInteger(selected.tensor(), k);
            EXPECT_TRUE(same) << "row " << k / 3 << " column " << k % 3 << ": device "
                              << host::loadInteger(got.tensor(), k) << ", host "
                              << host::loadInteger(selected.tensor(), k);
            failures += same ? 0 : 1;
        }
    }
};

TEST_F(CudaNms, FixedCases)
{
    std::vector<Case> const cases{
        {1, 6, 1, false, 3, 0.5F, 0.F, 5000, BoundingBoxFormat::kCORNER_PAIRS, DataType::kFLOAT},
        {2, 1000, 80, false, 100, 0.45F, 0.25F, 5000, BoundingBoxFormat::kCENTER_SIZES, DataType::kFLOAT}, // detection
        {1, 2000, 4, false, 1000, 0.5F, 0.F, 300, BoundingBoxFormat::kCORNER_PAIRS, DataType::kFLOAT},     // topK cuts
        {3, 50, 5, true, 10, 0.3F, 0.1F, 5000, BoundingBoxFormat::kCORNER_PAIRS, DataType::kHALF},         // per class
        {2, 40, 3, false, 0, 0.5F, 0.F, 5000, BoundingBoxFormat::kCORNER_PAIRS, DataType::kFLOAT},         // max 0
        {2, 40, 3, false, 5, 0.5F, 2.F, 5000, BoundingBoxFormat::kCORNER_PAIRS, DataType::kFLOAT},         // none above
        {2, 0, 3, false, 5, 0.5F, 0.F, 5000, BoundingBoxFormat::kCORNER_PAIRS, DataType::kFLOAT},          // no boxes
        {1, 64, 2, false, 64, 0.F, -1.F, 5000, BoundingBoxFormat::kCENTER_SIZES, DataType::kHALF},         // IoU 0
        {1, 64, 2, false, 64, 1.F, -1.F, 7, BoundingBoxFormat::kCORNER_PAIRS, DataType::kFLOAT},           // IoU 1
    };
    for (Case const& c : cases)
    {
        check(c, DataType::kINT32, DataType::kINT32);
        check(c, DataType::kINT64, DataType::kINT64);
    }
}

TEST_F(CudaNms, RandomCases)
{
    std::uniform_real_distribution<float> unit(0.F, 1.F);
    for (int trial = 0; trial < 150; ++trial)
    {
        Case c{};
        c.batches = 1 + static_cast<int64_t>(mRng() % 4);
        c.boxes = static_cast<int64_t>(mRng() % 200);
        c.classes = 1 + static_cast<int64_t>(mRng() % 6);
        c.perClass = mRng() % 3 == 0;
        c.maxPerClass = static_cast<int64_t>(mRng() % 30);
        c.iou = unit(mRng);
        c.score = mRng() % 4 == 0 ? -1.F : unit(mRng) * 0.5F;
        c.topK = mRng() % 3 == 0 ? 1 + static_cast<int32_t>(mRng() % 100) : 5000;
        c.format = mRng() % 2 == 0 ? BoundingBoxFormat::kCORNER_PAIRS : BoundingBoxFormat::kCENTER_SIZES;
        c.type = mRng() % 4 == 0 ? DataType::kHALF : DataType::kFLOAT;
        check(c, trial % 2 == 0 ? DataType::kINT64 : DataType::kINT32,
            trial % 3 == 0 ? DataType::kINT64 : DataType::kINT32);
    }
}

TEST_F(CudaNms, RefusesWhatTheHostRefuses)
{
    NMSParams const params;
    HostBuffer const boxes(DataType::kFLOAT, Dims{3, {1, 5, 4}});
    HostBuffer const scores(DataType::kFLOAT, Dims{3, {1, 5, 2}});
    DeviceBuffer const dboxes = DeviceBuffer::upload(boxes.tensor());
    DeviceBuffer const dscores = DeviceBuffer::upload(scores.tensor());
    HostBuffer const small(DataType::kINT32, Dims{2, {3, 3}});
    DeviceBuffer const dsmall(small.tensor());
    HostBuffer const count(DataType::kINT32, Dims{0, {}});
    DeviceBuffer const dcount(count.tensor());
    Status const done = cuda::runNMS(params, dboxes.tensor(), dscores.tensor(), host::NMSScalars{2, 0.5F, 0.F},
        dsmall.tensor(), dcount.tensor(), launch());
    ASSERT_FALSE(done.ok());
    EXPECT_NE(done.error().message.find("output 0 is kINT32 [3, 3]; it must be kINT32 [R, 3] with R at least 4"),
        std::string::npos)
        << done.error().message;
    DeviceBuffer const dwrong = DeviceBuffer::upload(HostBuffer(DataType::kFLOAT, Dims{3, {1, 6, 4}}).tensor());
    Status const refused = cuda::runNMS(params, dwrong.tensor(), dscores.tensor(), host::NMSScalars{2, 0.5F, 0.F},
        dsmall.tensor(), dcount.tensor(), launch());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("do not fit"), std::string::npos) << refused.error().message;
}

} // namespace
} // namespace kiln::cuda::test
