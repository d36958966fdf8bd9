// SPDX-License-Identifier: Apache-2.0
// Per batch item: the candidates above the score threshold are sorted (stably, by decreasing score, after being
// listed class by class and box by box, which gives the tie order), cut at the TopK box limit, then walked once; a
// candidate is checked against the boxes already selected in its class.
#include "backends/host/nms.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "nms: " + message};
}

//! Why a threshold input cannot be read, or nullopt.
std::optional<std::string> thresholdProblem(HostTensor const* threshold, char const* what)
{
    if (threshold == nullptr)
    {
        return std::nullopt;
    }
    if (threshold->type != DataType::kFLOAT || threshold->dims.nbDims != 0 || threshold->data == nullptr)
    {
        return std::string("the ") + what + " threshold is " + dataTypeName(threshold->type) + " "
            + shapeString(threshold->dims) + "; it must be a 0-D kFLOAT tensor with data";
    }
    return std::nullopt;
}

} // namespace

Expected<NMSScalars> nmsScalars(HostTensor const& maxPerClass, HostTensor const* iou, HostTensor const* score)
{
    if ((maxPerClass.type != DataType::kINT32 && maxPerClass.type != DataType::kINT64) || maxPerClass.dims.nbDims != 0
        || maxPerClass.data == nullptr)
    {
        return invalid(std::string("MaxOutputBoxesPerClass is ") + dataTypeName(maxPerClass.type) + " "
            + shapeString(maxPerClass.dims) + "; it must be a 0-D kINT32 or kINT64 tensor with data");
    }
    for (auto const& [threshold, what] : {std::pair{iou, "IoU"}, std::pair{score, "score"}})
    {
        if (std::optional<std::string> const problem = thresholdProblem(threshold, what))
        {
            return invalid(*problem);
        }
    }
    NMSScalars scalars;
    scalars.maxPerClass = std::max<int64_t>(loadInteger(maxPerClass, 0), 0);
    scalars.iouThreshold = iou != nullptr ? static_cast<float>(loadFloat(*iou, 0)) : 0.F;
    scalars.scoreThreshold = score != nullptr ? static_cast<float>(loadFloat(*score, 0)) : 0.F;
    if (!(scalars.iouThreshold >= 0.F && scalars.iouThreshold <= 1.F))
    {
        return invalid("the IoU threshold is " + std::to_string(scalars.iouThreshold) + "; it must lie in [0, 1]");
    }
    return scalars;
}

Expected<TensorDesc> inferNMS(NMSParams const& params, TensorDesc const& boxes, TensorDesc const& scores)
{
    if (params.format != nvinfer1::BoundingBoxFormat::kCORNER_PAIRS
        && params.format != nvinfer1::BoundingBoxFormat::kCENTER_SIZES)
    {
        return invalid("the bounding box format " + std::to_string(static_cast<int32_t>(params.format))
            + " is not a BoundingBoxFormat");
    }
    if (params.topKBoxLimit < 1 || params.topKBoxLimit > 5000)
    {
        return invalid("the TopK box limit is " + std::to_string(params.topKBoxLimit) + "; it must be 1 to 5000");
    }
    if (params.indicesType != DataType::kINT32 && params.indicesType != DataType::kINT64)
    {
        return invalid(
            std::string("the indices type is ") + dataTypeName(params.indicesType) + "; it must be kINT32 or kINT64");
    }
    if ((boxes.type != DataType::kFLOAT && boxes.type != DataType::kHALF) || scores.type != boxes.type)
    {
        return invalid(std::string("the boxes are ") + dataTypeName(boxes.type) + " and the scores "
            + dataTypeName(scores.type) + "; they must be both kFLOAT or both kHALF");
    }
    Dims const& b = boxes.dims;
    Dims const& s = scores.dims;
    bool const fits = isValidShape(b) && isValidShape(s) && (b.nbDims == 3 || b.nbDims == 4) && s.nbDims == 3
        && b.d[b.nbDims - 1] == 4 && b.d[0] == s.d[0] && b.d[1] == s.d[1] && (b.nbDims == 3 || b.d[2] == s.d[2]);
    if (!fits)
    {
        return invalid("the boxes " + shapeString(b) + " and scores " + shapeString(s)
            + " do not fit: boxes [B, N, 4] or [B, N, C, 4], scores [B, N, C]");
    }
    // Every (batch, class, box) may be selected; each row is a triple of indices.
    Dims const rows{2, {s.d[0] * s.d[2] * s.d[1], 3}};
    if (!isValidShape(rows))
    {
        return invalid("the scores " + shapeString(s) + " give more selected indices than a 64-bit count holds");
    }
    if (params.indicesType == DataType::kINT32
        && std::max({s.d[0], s.d[1], s.d[2]}) - 1 > std::numeric_limits<int32_t>::max())
    {
        return invalid("the scores " + shapeString(s)
            + " have more batches, boxes or classes than kINT32 indices "
              "can number; use kINT64 indices");
    }
    return TensorDesc{params.indicesType, rows};
}

std::optional<std::string> nmsOutputProblem(
    NMSParams const& params, int64_t rows, HostTensor const& selected, HostTensor const& count)
{
    if (selected.type != params.indicesType || selected.dims.nbDims != 2 || selected.dims.d[1] != 3
        || selected.dims.d[0] < rows)
    {
        return std::string("output 0 is ") + dataTypeName(selected.type) + " " + shapeString(selected.dims)
            + "; it must be " + dataTypeName(params.indicesType) + " [R, 3] with R at least " + std::to_string(rows);
    }
    if ((count.type != DataType::kINT32 && count.type != DataType::kINT64) || count.dims.nbDims != 0)
    {
        return std::string("output 1 is ") + dataTypeName(count.type) + " " + shapeString(count.dims)
            + "; it must be a 0-D kINT32 or kINT64 tensor";
    }
    return std::nullopt;
}

Status runNMS(NMSParams const& params, HostTensor const& boxes, HostTensor const& scores, NMSScalars const& scalars,
    HostTensor const& selected, HostTensor const& count)
{
    Expected<TensorDesc> const desc = inferNMS(params, {boxes.type, boxes.dims}, {scores.type, scores.dims});
    if (!desc)
    {
        return desc.error();
    }
    int64_t const batches = scores.dims.d[0];
    int64_t const n = scores.dims.d[1];
    int64_t const classes = scores.dims.d[2];
    int64_t const perClass = std::min(n, scalars.maxPerClass);
    if (std::optional<std::string> const problem
        = nmsOutputProblem(params, batches * classes * perClass, selected, count))
    {
        return invalid(*problem);
    }
    for (auto const& [tensor, role] : {std::pair{&boxes, "input 0"}, std::pair{&scores, "input 1"},
             std::pair{&selected, "output 0"}, std::pair{&count, "output 1"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    bool const perClassBoxes = boxes.dims.nbDims == 4;
    bool const centerSizes = params.format == nvinfer1::BoundingBoxFormat::kCENTER_SIZES;
    auto const boxOf = [&](int64_t b, int64_t box, int64_t cls) {
        int64_t const first = ((b * n + box) * (perClassBoxes ? classes : 1) + (perClassBoxes ? cls : 0)) * 4;
        float coordinates[4];
        for (int64_t k = 0; k < 4; ++k)
        {
            coordinates[k] = static_cast<float>(loadFloat(boxes, first + k));
        }
        return nmsBox(coordinates, centerSizes);
    };

    struct Candidate
    {
        float score;
        int64_t cls;
        int64_t box;
    };
    std::vector<Candidate> candidates;
    std::vector<Candidate> chosen;
    int64_t rows = 0;
    for (int64_t b = 0; b < batches; ++b)
    {
        candidates.clear();
        for (int64_t cls = 0; cls < classes; ++cls)
        {
            for (int64_t box = 0; box < n; ++box)
            {
                auto const score = static_cast<float>(loadFloat(scores, (b * n + box) * classes + cls));
                if (score > scalars.scoreThreshold)
                {
                    candidates.push_back(Candidate{score, cls, box});
                }
            }
        }
        std::stable_sort(candidates.begin(), candidates.end(),
            [](Candidate const& x, Candidate const& y) { return x.score > y.score; });
        candidates.resize(std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(params.topKBoxLimit)));
        chosen.clear();
        for (Candidate const& candidate : candidates)
        {
            NMSBox const box = boxOf(b, candidate.box, candidate.cls);
            int64_t sameClass = 0;
            bool suppressed = false;
            for (Candidate const& earlier : chosen)
            {
                if (earlier.cls == candidate.cls)
                {
                    ++sameClass;
                    suppressed = suppressed || nmsIoU(box, boxOf(b, earlier.box, earlier.cls)) > scalars.iouThreshold;
                }
            }
            if (suppressed || sameClass >= scalars.maxPerClass)
            {
                continue;
            }
            chosen.push_back(candidate);
            storeInteger(selected, rows * 3, b);
            storeInteger(selected, rows * 3 + 1, candidate.cls);
            storeInteger(selected, rows * 3 + 2, candidate.box);
            ++rows;
        }
    }
    if (count.type == DataType::kINT32 && rows > std::numeric_limits<int32_t>::max())
    {
        return invalid("selected " + std::to_string(rows) + " boxes, more than a kINT32 count holds");
    }
    storeInteger(count, 0, rows);
    return Done{};
}

} // namespace kiln::host
