// Enumerator values, underlying types and EnumMax of the enums the builder, network and runtime API adds (TensorRT
// 10.16 NvInfer.h and NvInferRuntime.h), in the style of enums_test.cpp: KILN_ENUM(Enum, enumerator, value) reads
// like the header's enumerator list. Where TensorRT specialises impl::EnumMaxImpl rather than EnumMax directly,
// that specialisation is checked too, so code naming either keeps compiling.

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

using namespace nvinfer1;

namespace
{

//! A scoped enum (enum class) with the given underlying type.
template <typename Enum, typename Underlying>
::testing::AssertionResult isScopedEnumOf(char const* name)
{
    if (!std::is_enum_v<Enum>)
    {
        return ::testing::AssertionFailure() << name << " is not an enum";
    }
    if (std::is_convertible_v<Enum, int>)
    {
        return ::testing::AssertionFailure() << name << " is not a scoped enum (enum class)";
    }
    if (!std::is_same_v<std::underlying_type_t<Enum>, Underlying>)
    {
        return ::testing::AssertionFailure() << name << " has the wrong underlying type";
    }
    return ::testing::AssertionSuccess();
}

} // namespace

#define KILN_ENUM(Enum, enumerator, value)                                                                             \
    EXPECT_EQ(static_cast<int64_t>(Enum::enumerator), static_cast<int64_t>(value)) << #Enum "::" #enumerator

#define KILN_ENUM_TYPE(Enum, Underlying) EXPECT_TRUE((isScopedEnumOf<Enum, Underlying>(#Enum)))

#define KILN_ENUM_MAX(Enum, value) EXPECT_EQ(EnumMax<Enum>(), value) << "EnumMax<" #Enum ">()"

#define KILN_ENUM_MAX_IMPL(Enum, value)                                                                                \
    EXPECT_EQ(impl::EnumMaxImpl<Enum>::kVALUE, value) << "impl::EnumMaxImpl<" #Enum ">::kVALUE"

TEST(EnumValuesApi, LayerType)
{
    KILN_ENUM_TYPE(LayerType, int32_t);
    KILN_ENUM(LayerType, kCONVOLUTION, 0);
    KILN_ENUM(LayerType, kCAST, 1);
    KILN_ENUM(LayerType, kACTIVATION, 2);
    KILN_ENUM(LayerType, kPOOLING, 3);
    KILN_ENUM(LayerType, kLRN, 4);
    KILN_ENUM(LayerType, kSCALE, 5);
    KILN_ENUM(LayerType, kSOFTMAX, 6);
    KILN_ENUM(LayerType, kDECONVOLUTION, 7);
    KILN_ENUM(LayerType, kCONCATENATION, 8);
    KILN_ENUM(LayerType, kELEMENTWISE, 9);
    KILN_ENUM(LayerType, kPLUGIN, 10);
    KILN_ENUM(LayerType, kUNARY, 11);
    KILN_ENUM(LayerType, kPADDING, 12);
    KILN_ENUM(LayerType, kSHUFFLE, 13);
    KILN_ENUM(LayerType, kREDUCE, 14);
    KILN_ENUM(LayerType, kTOPK, 15);
    KILN_ENUM(LayerType, kGATHER, 16);
    KILN_ENUM(LayerType, kMATRIX_MULTIPLY, 17);
    KILN_ENUM(LayerType, kRAGGED_SOFTMAX, 18);
    KILN_ENUM(LayerType, kCONSTANT, 19);
    KILN_ENUM(LayerType, kIDENTITY, 20);
    KILN_ENUM(LayerType, kPLUGIN_V2, 21);
    KILN_ENUM(LayerType, kSLICE, 22);
    KILN_ENUM(LayerType, kSHAPE, 23);
    KILN_ENUM(LayerType, kPARAMETRIC_RELU, 24);
    KILN_ENUM(LayerType, kRESIZE, 25);
    KILN_ENUM(LayerType, kTRIP_LIMIT, 26);
    KILN_ENUM(LayerType, kRECURRENCE, 27);
    KILN_ENUM(LayerType, kITERATOR, 28);
    KILN_ENUM(LayerType, kLOOP_OUTPUT, 29);
    KILN_ENUM(LayerType, kSELECT, 30);
    KILN_ENUM(LayerType, kFILL, 31);
    KILN_ENUM(LayerType, kQUANTIZE, 32);
    KILN_ENUM(LayerType, kDEQUANTIZE, 33);
    KILN_ENUM(LayerType, kCONDITION, 34);
    KILN_ENUM(LayerType, kCONDITIONAL_INPUT, 35);
    KILN_ENUM(LayerType, kCONDITIONAL_OUTPUT, 36);
    KILN_ENUM(LayerType, kSCATTER, 37);
    KILN_ENUM(LayerType, kEINSUM, 38);
    KILN_ENUM(LayerType, kASSERTION, 39);
    KILN_ENUM(LayerType, kONE_HOT, 40);
    KILN_ENUM(LayerType, kNON_ZERO, 41);
    KILN_ENUM(LayerType, kGRID_SAMPLE, 42);
    KILN_ENUM(LayerType, kNMS, 43);
    KILN_ENUM(LayerType, kREVERSE_SEQUENCE, 44);
    KILN_ENUM(LayerType, kNORMALIZATION, 45);
    KILN_ENUM(LayerType, kPLUGIN_V3, 46);
    KILN_ENUM(LayerType, kSQUEEZE, 47);
    KILN_ENUM(LayerType, kUNSQUEEZE, 48);
    KILN_ENUM(LayerType, kCUMULATIVE, 49);
    KILN_ENUM(LayerType, kDYNAMIC_QUANTIZE, 50);
    KILN_ENUM(LayerType, kATTENTION_INPUT, 51);
    KILN_ENUM(LayerType, kATTENTION_OUTPUT, 52);
    KILN_ENUM(LayerType, kROTARY_EMBEDDING, 53);
    KILN_ENUM(LayerType, kKVCACHE_UPDATE, 54);
    KILN_ENUM(LayerType, kMOE, 55);
    KILN_ENUM(LayerType, kDIST_COLLECTIVE, 56);
    KILN_ENUM_MAX(LayerType, 57);
}

TEST(EnumValuesApi, ActivationType)
{
    KILN_ENUM_TYPE(ActivationType, int32_t);
    KILN_ENUM(ActivationType, kRELU, 0);
    KILN_ENUM(ActivationType, kSIGMOID, 1);
    KILN_ENUM(ActivationType, kTANH, 2);
    KILN_ENUM(ActivationType, kLEAKY_RELU, 3);
    KILN_ENUM(ActivationType, kELU, 4);
    KILN_ENUM(ActivationType, kSELU, 5);
    KILN_ENUM(ActivationType, kSOFTSIGN, 6);
    KILN_ENUM(ActivationType, kSOFTPLUS, 7);
    KILN_ENUM(ActivationType, kCLIP, 8);
    KILN_ENUM(ActivationType, kHARD_SIGMOID, 9);
    KILN_ENUM(ActivationType, kSCALED_TANH, 10);
    KILN_ENUM(ActivationType, kTHRESHOLDED_RELU, 11);
    KILN_ENUM(ActivationType, kGELU_ERF, 12);
    KILN_ENUM(ActivationType, kGELU_TANH, 13);
    KILN_ENUM_MAX(ActivationType, 14);
    KILN_ENUM_MAX_IMPL(ActivationType, 14);
}

TEST(EnumValuesApi, PaddingMode)
{
    KILN_ENUM_TYPE(PaddingMode, int32_t);
    KILN_ENUM(PaddingMode, kEXPLICIT_ROUND_DOWN, 0);
    KILN_ENUM(PaddingMode, kEXPLICIT_ROUND_UP, 1);
    KILN_ENUM(PaddingMode, kSAME_UPPER, 2);
    KILN_ENUM(PaddingMode, kSAME_LOWER, 3);
    KILN_ENUM_MAX(PaddingMode, 4);
    KILN_ENUM_MAX_IMPL(PaddingMode, 4);
}

TEST(EnumValuesApi, PoolingType)
{
    KILN_ENUM_TYPE(PoolingType, int32_t);
    KILN_ENUM(PoolingType, kMAX, 0);
    KILN_ENUM(PoolingType, kAVERAGE, 1);
    KILN_ENUM(PoolingType, kMAX_AVERAGE_BLEND, 2);
    KILN_ENUM_MAX(PoolingType, 3);
    KILN_ENUM_MAX_IMPL(PoolingType, 3);
}

TEST(EnumValuesApi, ElementWiseOperation)
{
    KILN_ENUM_TYPE(ElementWiseOperation, int32_t);
    KILN_ENUM(ElementWiseOperation, kSUM, 0);
    KILN_ENUM(ElementWiseOperation, kPROD, 1);
    KILN_ENUM(ElementWiseOperation, kMAX, 2);
    KILN_ENUM(ElementWiseOperation, kMIN, 3);
    KILN_ENUM(ElementWiseOperation, kSUB, 4);
    KILN_ENUM(ElementWiseOperation, kDIV, 5);
    KILN_ENUM(ElementWiseOperation, kPOW, 6);
    KILN_ENUM(ElementWiseOperation, kFLOOR_DIV, 7);
    KILN_ENUM(ElementWiseOperation, kAND, 8);
    KILN_ENUM(ElementWiseOperation, kOR, 9);
    KILN_ENUM(ElementWiseOperation, kXOR, 10);
    KILN_ENUM(ElementWiseOperation, kEQUAL, 11);
    KILN_ENUM(ElementWiseOperation, kGREATER, 12);
    KILN_ENUM(ElementWiseOperation, kLESS, 13);
    KILN_ENUM_MAX(ElementWiseOperation, 14);
    KILN_ENUM_MAX_IMPL(ElementWiseOperation, 14);
}

TEST(EnumValuesApi, TopKOperation)
{
    KILN_ENUM_TYPE(TopKOperation, int32_t);
    KILN_ENUM(TopKOperation, kMAX, 0);
    KILN_ENUM(TopKOperation, kMIN, 1);
    KILN_ENUM_MAX(TopKOperation, 2);
}

TEST(EnumValuesApi, BoundingBoxFormat)
{
    KILN_ENUM_TYPE(BoundingBoxFormat, int32_t);
    KILN_ENUM(BoundingBoxFormat, kCORNER_PAIRS, 0);
    KILN_ENUM(BoundingBoxFormat, kCENTER_SIZES, 1);
    KILN_ENUM_MAX(BoundingBoxFormat, 2);
}

TEST(EnumValuesApi, ScatterMode)
{
    KILN_ENUM_TYPE(ScatterMode, int32_t);
    KILN_ENUM(ScatterMode, kELEMENT, 0);
    KILN_ENUM(ScatterMode, kND, 1);
    KILN_ENUM_MAX(ScatterMode, 2);
    KILN_ENUM_MAX_IMPL(ScatterMode, 2);
}

TEST(EnumValuesApi, GatherMode)
{
    KILN_ENUM_TYPE(GatherMode, int32_t);
    KILN_ENUM(GatherMode, kDEFAULT, 0);
    KILN_ENUM(GatherMode, kELEMENT, 1);
    KILN_ENUM(GatherMode, kND, 2);
    KILN_ENUM_MAX(GatherMode, 3);
}

TEST(EnumValuesApi, UnaryOperation)
{
    KILN_ENUM_TYPE(UnaryOperation, int32_t);
    KILN_ENUM(UnaryOperation, kEXP, 0);
    KILN_ENUM(UnaryOperation, kLOG, 1);
    KILN_ENUM(UnaryOperation, kSQRT, 2);
    KILN_ENUM(UnaryOperation, kRECIP, 3);
    KILN_ENUM(UnaryOperation, kABS, 4);
    KILN_ENUM(UnaryOperation, kNEG, 5);
    KILN_ENUM(UnaryOperation, kSIN, 6);
    KILN_ENUM(UnaryOperation, kCOS, 7);
    KILN_ENUM(UnaryOperation, kTAN, 8);
    KILN_ENUM(UnaryOperation, kSINH, 9);
    KILN_ENUM(UnaryOperation, kCOSH, 10);
    KILN_ENUM(UnaryOperation, kASIN, 11);
    KILN_ENUM(UnaryOperation, kACOS, 12);
    KILN_ENUM(UnaryOperation, kATAN, 13);
    KILN_ENUM(UnaryOperation, kASINH, 14);
    KILN_ENUM(UnaryOperation, kACOSH, 15);
    KILN_ENUM(UnaryOperation, kATANH, 16);
    KILN_ENUM(UnaryOperation, kCEIL, 17);
    KILN_ENUM(UnaryOperation, kFLOOR, 18);
    KILN_ENUM(UnaryOperation, kERF, 19);
    KILN_ENUM(UnaryOperation, kNOT, 20);
    KILN_ENUM(UnaryOperation, kSIGN, 21);
    KILN_ENUM(UnaryOperation, kROUND, 22);
    KILN_ENUM(UnaryOperation, kISINF, 23);
    KILN_ENUM(UnaryOperation, kISNAN, 24);
    KILN_ENUM_MAX(UnaryOperation, 25);
}

TEST(EnumValuesApi, ReduceOperation)
{
    KILN_ENUM_TYPE(ReduceOperation, int32_t);
    KILN_ENUM(ReduceOperation, kSUM, 0);
    KILN_ENUM(ReduceOperation, kPROD, 1);
    KILN_ENUM(ReduceOperation, kMAX, 2);
    KILN_ENUM(ReduceOperation, kMIN, 3);
    KILN_ENUM(ReduceOperation, kAVG, 4);
    KILN_ENUM(ReduceOperation, kNONE, 5);
    KILN_ENUM_MAX(ReduceOperation, 6);
}

TEST(EnumValuesApi, SampleMode)
{
    KILN_ENUM_TYPE(SampleMode, int32_t);
    KILN_ENUM(SampleMode, kSTRICT_BOUNDS, 0);
    KILN_ENUM(SampleMode, kWRAP, 1);
    KILN_ENUM(SampleMode, kCLAMP, 2);
    KILN_ENUM(SampleMode, kFILL, 3);
    KILN_ENUM(SampleMode, kREFLECT, 4);
    KILN_ENUM_MAX(SampleMode, 5);
}

TEST(EnumValuesApi, MatrixOperation)
{
    KILN_ENUM_TYPE(MatrixOperation, int32_t);
    KILN_ENUM(MatrixOperation, kNONE, 0);
    KILN_ENUM(MatrixOperation, kTRANSPOSE, 1);
    KILN_ENUM(MatrixOperation, kVECTOR, 2);
    KILN_ENUM_MAX(MatrixOperation, 3);
}

TEST(EnumValuesApi, InterpolationMode)
{
    KILN_ENUM_TYPE(InterpolationMode, int32_t);
    KILN_ENUM(InterpolationMode, kNEAREST, 0);
    KILN_ENUM(InterpolationMode, kLINEAR, 1);
    KILN_ENUM(InterpolationMode, kCUBIC, 2);
    KILN_ENUM_MAX(InterpolationMode, 3);
    KILN_ENUM_MAX_IMPL(InterpolationMode, 3);
    EXPECT_TRUE((std::is_same<ResizeMode, InterpolationMode>::value));
}

TEST(EnumValuesApi, ResizeCoordinateTransformation)
{
    KILN_ENUM_TYPE(ResizeCoordinateTransformation, int32_t);
    KILN_ENUM(ResizeCoordinateTransformation, kALIGN_CORNERS, 0);
    KILN_ENUM(ResizeCoordinateTransformation, kASYMMETRIC, 1);
    KILN_ENUM(ResizeCoordinateTransformation, kHALF_PIXEL, 2);
    KILN_ENUM_MAX(ResizeCoordinateTransformation, 3);
    KILN_ENUM_MAX_IMPL(ResizeCoordinateTransformation, 3);
}

TEST(EnumValuesApi, ResizeSelector)
{
    KILN_ENUM_TYPE(ResizeSelector, int32_t);
    KILN_ENUM(ResizeSelector, kFORMULA, 0);
    KILN_ENUM(ResizeSelector, kUPPER, 1);
    KILN_ENUM_MAX(ResizeSelector, 2);
    KILN_ENUM_MAX_IMPL(ResizeSelector, 2);
}

TEST(EnumValuesApi, ResizeRoundMode)
{
    KILN_ENUM_TYPE(ResizeRoundMode, int32_t);
    KILN_ENUM(ResizeRoundMode, kHALF_UP, 0);
    KILN_ENUM(ResizeRoundMode, kHALF_DOWN, 1);
    KILN_ENUM(ResizeRoundMode, kFLOOR, 2);
    KILN_ENUM(ResizeRoundMode, kCEIL, 3);
    KILN_ENUM_MAX(ResizeRoundMode, 4);
    KILN_ENUM_MAX_IMPL(ResizeRoundMode, 4);
}

TEST(EnumValuesApi, FillOperation)
{
    KILN_ENUM_TYPE(FillOperation, int32_t);
    KILN_ENUM(FillOperation, kLINSPACE, 0);
    KILN_ENUM(FillOperation, kRANDOM_UNIFORM, 1);
    KILN_ENUM(FillOperation, kRANDOM_NORMAL, 2);
    KILN_ENUM_MAX(FillOperation, 3);
}

TEST(EnumValuesApi, CumulativeOperation)
{
    KILN_ENUM_TYPE(CumulativeOperation, int32_t);
    KILN_ENUM(CumulativeOperation, kSUM, 0);
    KILN_ENUM_MAX(CumulativeOperation, 1);
    KILN_ENUM_MAX_IMPL(CumulativeOperation, 1);
}

TEST(EnumValuesApi, QuantizationFlag)
{
    KILN_ENUM_TYPE(QuantizationFlag, int32_t);
    KILN_ENUM(QuantizationFlag, kCALIBRATE_BEFORE_FUSION, 0);
    KILN_ENUM_MAX(QuantizationFlag, 1);
}

TEST(EnumValuesApi, LayerInformationFormat)
{
    KILN_ENUM_TYPE(LayerInformationFormat, int32_t);
    KILN_ENUM(LayerInformationFormat, kONELINE, 0);
    KILN_ENUM(LayerInformationFormat, kJSON, 1);
    KILN_ENUM_MAX(LayerInformationFormat, 2);
}

TEST(EnumValuesApi, LayerTypesOfTheDeclaredLayers)
{
    // The kinds kiln declares a class for, and the plugin kinds the spec lists (3.10).
    static_assert(EnumMax<LayerType>() == 57, "usable in constant expressions");
    KILN_ENUM(LayerType, kPLUGIN, 10);
    KILN_ENUM(LayerType, kPLUGIN_V2, 21);
    KILN_ENUM(LayerType, kPLUGIN_V3, 46);
    KILN_ENUM(LayerType, kKVCACHE_UPDATE, 54);
    KILN_ENUM(LayerType, kDIST_COLLECTIVE, 56);
}

TEST(EnumValuesApi, FlagMaskTypes)
{
    EXPECT_TRUE((std::is_same_v<QuantizationFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<NetworkDefinitionCreationFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<BuilderFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<TensorFormats, uint32_t>));
    EXPECT_TRUE((std::is_same_v<SerializationFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<TempfileControlFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<TacticSources, uint32_t>));
}
