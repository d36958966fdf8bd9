// SPDX-License-Identifier: Apache-2.0
#include "onnx/weights.h"

#include "core/data_type.h"
#include "core/float_convert.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>

namespace kiln::onnx_import
{

namespace
{

//! TensorProto element types newer than the libonnx kiln may build with (ONNX 1.14 and 1.16).
constexpr int32_t kOnnxFloat8E4M3FN = 17;
constexpr int32_t kOnnxInt4 = 22;

} // namespace

using ::onnx::TensorProto;

std::optional<DataType> dataTypeFromOnnx(int32_t onnxType) noexcept
{
    switch (onnxType)
    {
    case TensorProto::FLOAT: return DataType::kFLOAT;
    case TensorProto::DOUBLE: return DataType::kFLOAT;
    case TensorProto::FLOAT16: return DataType::kHALF;
    case TensorProto::BFLOAT16: return DataType::kBF16;
    case TensorProto::INT8: return DataType::kINT8;
    case TensorProto::UINT8: return DataType::kUINT8;
    case TensorProto::INT32: return DataType::kINT32;
    case TensorProto::INT64: return DataType::kINT64;
    case TensorProto::BOOL: return DataType::kBOOL;
    case kOnnxFloat8E4M3FN: return DataType::kFP8;
    case kOnnxInt4: return DataType::kINT4;
    default: return std::nullopt;
    }
}

char const* onnxTypeName(int32_t onnxType) noexcept
{
    // The types of ONNX 1.14 to 1.18, which an older libonnx does not name.
    static constexpr char const* kLaterTypes[]
        = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1"};
    if (!TensorProto::DataType_IsValid(onnxType) && onnxType >= kOnnxFloat8E4M3FN
        && onnxType < kOnnxFloat8E4M3FN + static_cast<int32_t>(std::size(kLaterTypes)))
    {
        return kLaterTypes[onnxType - kOnnxFloat8E4M3FN];
    }
    if (TensorProto::DataType_IsValid(onnxType))
    {
        static std::string names[TensorProto::DataType_ARRAYSIZE];
        std::string& name = names[onnxType];
        if (name.empty())
        {
            name = TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnxType));
        }
        return name.c_str();
    }
    return "UNKNOWN";
}

namespace
{

//! A read-only mapping of a whole file, unmapped when the last owner goes.
struct MappedFile
{
    void const* base{nullptr};
    size_t size{0};
    ~MappedFile()
    {
        if (base != nullptr && size != 0)
        {
            munmap(const_cast<void*>(base), size);
        }
    }
};

std::shared_ptr<MappedFile> mapFile(std::string const& path, std::string const& tensorName)
{
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    require(fd >= 0, ErrorCode::kINVALID_VALUE, "initializer '", tensorName, "': cannot open its external data file ",
        path, ": ", std::strerror(errno));
    struct stat info
    {
    };
    if (fstat(fd, &info) != 0)
    {
        close(fd);
        fail(ErrorCode::kINVALID_VALUE, "initializer '", tensorName, "': cannot read the size of ", path);
    }
    auto mapped = std::make_shared<MappedFile>();
    mapped->size = static_cast<size_t>(info.st_size);
    if (mapped->size != 0)
    {
        void* base = mmap(nullptr, mapped->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (base == MAP_FAILED)
        {
            close(fd);
            fail(ErrorCode::kMEM_ALLOC_FAILED, "initializer '", tensorName, "': cannot map ", path, ": ",
                std::strerror(errno));
        }
        mapped->base = base;
    }
    close(fd);
    return mapped;
}

//! The external bytes of tensor: base and length inside a mapping the context keeps.
std::pair<void const*, size_t> externalBytes(ImportContext& ctx, TensorProto const& tensor)
{
    std::string location;
    int64_t offset = 0;
    int64_t length = -1;
    for (auto const& entry : tensor.external_data())
    {
        std::string const& key = entry.key();
        if (key == "location")
        {
            location = entry.value();
        }
        else if (key == "offset" || key == "length")
        {
            char* end = nullptr;
            long long number = std::strtoll(entry.value().c_str(), &end, 10);
            require(!entry.value().empty() && *end == '\0' && number >= 0, ErrorCode::kINVALID_VALUE, "initializer '",
                tensor.name(), "': external data ", key, " '", entry.value(), "' is not a non-negative integer");
            (key == "offset" ? offset : length) = number;
        }
        else
        {
            require(key == "checksum", ErrorCode::kINVALID_VALUE, "initializer '", tensor.name(),
                "': unexpected external data key '", key, "' (expected location, offset, length, checksum)");
        }
    }
    require(!location.empty(), ErrorCode::kINVALID_VALUE, "initializer '", tensor.name(),
        "': external data without a location");
    std::filesystem::path relative = std::filesystem::path(location).lexically_normal();
    bool leaves = relative.is_absolute();
    for (auto const& part : relative)
    {
        leaves = leaves || part == "..";
    }
    require(!leaves, ErrorCode::kINVALID_VALUE, "initializer '", tensor.name(), "': external data location '", location,
        "' leaves the model's folder; only paths inside it are allowed");
    std::filesystem::path path = ctx.modelFolder().empty() ? relative : ctx.modelFolder() / relative;

    std::shared_ptr<MappedFile> mapped = mapFile(path.string(), tensor.name());
    ctx.keep(mapped);
    auto size = static_cast<int64_t>(mapped->size);
    require(offset <= size, ErrorCode::kINVALID_VALUE, "initializer '", tensor.name(), "': offset ", offset,
        " is beyond the end of ", path.string(), " (", size, " bytes)");
    if (length < 0 || (length == 0 && offset == 0))
    {
        length = size - offset;
    }
    require(length <= size - offset, ErrorCode::kINVALID_VALUE, "initializer '", tensor.name(), "': ", length,
        " bytes at offset ", offset, " run past the end of ", path.string(), " (", size, " bytes)");
    return {static_cast<std::byte const*>(mapped->base) + offset, static_cast<size_t>(length)};
}

template <typename Field, typename Out, typename Convert>
void convertField(Field const& field, ShapedWeights& weights, Convert convert)
{
    Out* out = static_cast<Out*>(const_cast<void*>(weights.data));
    for (int64_t i = 0; i < weights.count; ++i)
    {
        out[i] = convert(field[static_cast<int>(i)]);
    }
}

float clampToFloat(double v)
{
    double const limit = std::numeric_limits<float>::max();
    return std::isnan(v) ? static_cast<float>(v) : static_cast<float>(std::clamp(v, -limit, limit));
}

} // namespace

ShapedWeights importTensor(ImportContext& ctx, TensorProto const& tensor)
{
    std::string const& name = tensor.name();
    std::optional<DataType> type = dataTypeFromOnnx(tensor.data_type());
    require(type.has_value(), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "initializer '", name, "' has element type ",
        onnxTypeName(tensor.data_type()), ", which kiln does not support");
    require(tensor.dims_size() <= nvinfer1::Dims::MAX_DIMS, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "initializer '", name,
        "' has ", tensor.dims_size(), " dimensions; at most ", nvinfer1::Dims::MAX_DIMS, " are supported");
    Dims shape{tensor.dims_size(), {}};
    int64_t count = 1;
    for (int i = 0; i < tensor.dims_size(); ++i)
    {
        int64_t d = tensor.dims(i);
        require(d >= 0, ErrorCode::kINVALID_VALUE, "initializer '", name, "' has negative dimension ", d);
        require(d == 0 || count <= (int64_t{1} << 50) / d, ErrorCode::kINVALID_VALUE, "initializer '", name,
            "' is too large");
        shape.d[i] = d;
        count *= d;
    }
    bool const isDouble = tensor.data_type() == TensorProto::DOUBLE;
    // The element size as stored in the model (DOUBLE: 8 bytes, converted below).
    int64_t const storedBytes = isDouble ? count * 8 : storageBytes(*type, count);

    void const* bytes = nullptr;
    size_t size = 0;
    bool hasBytes = false;
    if (tensor.data_location() == TensorProto::EXTERNAL)
    {
        std::tie(bytes, size) = externalBytes(ctx, tensor);
        hasBytes = true;
    }
    else if (tensor.has_raw_data())
    {
        bytes = tensor.raw_data().data();
        size = tensor.raw_data().size();
        hasBytes = true;
    }
    if (hasBytes)
    {
        require(static_cast<int64_t>(size) == storedBytes, ErrorCode::kINVALID_VALUE, "initializer '", name, "' has ",
            size, " bytes of data, but its shape and type need ", storedBytes);
        if (isDouble)
        {
            ShapedWeights weights = ctx.allocate(DataType::kFLOAT, shape, name);
            float* out = static_cast<float*>(const_cast<void*>(weights.data));
            for (int64_t i = 0; i < count; ++i)
            {
                double v;
                std::memcpy(&v, static_cast<std::byte const*>(bytes) + i * 8, 8);
                out[i] = clampToFloat(v);
            }
            return weights;
        }
        size_t const alignment = std::max<size_t>(1, static_cast<size_t>(dataTypeBits(*type) / 8));
        if (size != 0 && reinterpret_cast<uintptr_t>(bytes) % alignment == 0)
        {
            // No copy: the bytes live in the kept model or in a mapped file.
            ShapedWeights weights;
            weights.type = *type;
            weights.shape = shape;
            weights.data = bytes;
            weights.count = count;
            weights.name = name;
            return weights;
        }
        ShapedWeights weights = ctx.allocate(*type, shape, name);
        if (size != 0)
        {
            std::memcpy(const_cast<void*>(weights.data), bytes, size);
        }
        return weights;
    }

    ShapedWeights weights = ctx.allocate(*type, shape, name);
    auto expectCount = [&](int fieldSize, char const* field) {
        require(fieldSize == count, ErrorCode::kINVALID_VALUE, "initializer '", name, "' has ", fieldSize,
            " values in ", field, ", but its shape needs ", count);
    };
    switch (tensor.data_type())
    {
    case TensorProto::FLOAT:
        expectCount(tensor.float_data_size(), "float_data");
        convertField<decltype(tensor.float_data()), float>(tensor.float_data(), weights, [](float v) { return v; });
        break;
    case TensorProto::DOUBLE:
        expectCount(tensor.double_data_size(), "double_data");
        convertField<decltype(tensor.double_data()), float>(tensor.double_data(), weights, clampToFloat);
        break;
    case TensorProto::INT64:
        expectCount(tensor.int64_data_size(), "int64_data");
        convertField<decltype(tensor.int64_data()), int64_t>(tensor.int64_data(), weights, [](int64_t v) { return v; });
        break;
    case TensorProto::INT32:
        expectCount(tensor.int32_data_size(), "int32_data");
        convertField<decltype(tensor.int32_data()), int32_t>(tensor.int32_data(), weights, [](int32_t v) { return v; });
        break;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
        expectCount(tensor.int32_data_size(), "int32_data");
        convertField<decltype(tensor.int32_data()), uint16_t>(
            tensor.int32_data(), weights, [](int32_t v) { return static_cast<uint16_t>(v); });
        break;
    case TensorProto::INT8:
        expectCount(tensor.int32_data_size(), "int32_data");
        convertField<decltype(tensor.int32_data()), int8_t>(
            tensor.int32_data(), weights, [](int32_t v) { return static_cast<int8_t>(v); });
        break;
    case TensorProto::UINT8:
    case TensorProto::BOOL:
    case kOnnxFloat8E4M3FN: // the E4M3 bit patterns
        expectCount(tensor.int32_data_size(), "int32_data");
        convertField<decltype(tensor.int32_data()), uint8_t>(
            tensor.int32_data(), weights, [](int32_t v) { return static_cast<uint8_t>(v); });
        break;
    case kOnnxInt4:
    {
        // Packed as in raw_data: each int32_data entry holds one byte, two values (the first in the low nibble).
        int64_t const packedBytes = storageBytes(DataType::kINT4, count);
        require(tensor.int32_data_size() == packedBytes, ErrorCode::kINVALID_VALUE, "initializer '", name, "' has ",
            tensor.int32_data_size(), " entries in int32_data, but ", count, " packed INT4 values need ", packedBytes);
        auto* out = static_cast<uint8_t*>(const_cast<void*>(weights.data));
        for (int64_t i = 0; i < packedBytes; ++i)
        {
            out[i] = static_cast<uint8_t>(tensor.int32_data(static_cast<int>(i)));
        }
        break;
    }
    default:
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "initializer '", name, "' has element type ",
            onnxTypeName(tensor.data_type()), ", which kiln does not support");
    }
    if (isDouble)
    {
        ctx.warn("initializer '", name, "' is DOUBLE; kiln converts it to FLOAT");
    }
    return weights;
}

} // namespace kiln::onnx_import
