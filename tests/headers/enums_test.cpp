// Every enumerator value, underlying type and EnumMax of spec section 3 that the headers declare. Each table reads
// like the spec's: KILN_ENUM(Enum, enumerator, value). Deprecated enumerators are included (the gtest targets
// build with -Wno-deprecated-declarations).

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

using namespace nvinfer1;

namespace
{

//! A scoped enum (enum class) with the given underlying type: no implicit conversion to int.
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

TEST(EnumValues, EnumMaxIsConstexprNoexceptInt32)
{
    static_assert(EnumMax<DataType>() == 12, "usable in constant expressions");
    EXPECT_TRUE((std::is_same_v<decltype(EnumMax<DataType>()), int32_t>));
    EXPECT_TRUE(noexcept(EnumMax<DataType>()));
    EXPECT_TRUE(noexcept(EnumMax<BuilderFlag>()));
    EXPECT_EQ(impl::EnumMaxImpl<DataType>::kVALUE, 12);
}

TEST(EnumValues, DataType)
{
    KILN_ENUM_TYPE(DataType, int32_t);
    KILN_ENUM(DataType, kFLOAT, 0);
    KILN_ENUM(DataType, kHALF, 1);
    KILN_ENUM(DataType, kINT8, 2);
    KILN_ENUM(DataType, kINT32, 3);
    KILN_ENUM(DataType, kBOOL, 4);
    KILN_ENUM(DataType, kUINT8, 5);
    KILN_ENUM(DataType, kFP8, 6);
    KILN_ENUM(DataType, kBF16, 7);
    KILN_ENUM(DataType, kINT64, 8);
    KILN_ENUM(DataType, kINT4, 9);
    KILN_ENUM(DataType, kFP4, 10);
    KILN_ENUM(DataType, kE8M0, 11);
    KILN_ENUM_MAX(DataType, 12);
}

TEST(EnumValues, TensorFormat)
{
    KILN_ENUM_TYPE(TensorFormat, int32_t);
    EXPECT_TRUE((std::is_same_v<PluginFormat, TensorFormat>));
    KILN_ENUM(TensorFormat, kLINEAR, 0);
    KILN_ENUM(TensorFormat, kCHW2, 1);
    KILN_ENUM(TensorFormat, kHWC8, 2);
    KILN_ENUM(TensorFormat, kCHW4, 3);
    KILN_ENUM(TensorFormat, kCHW16, 4);
    KILN_ENUM(TensorFormat, kCHW32, 5);
    KILN_ENUM(TensorFormat, kDHWC8, 6);
    KILN_ENUM(TensorFormat, kCDHW32, 7);
    KILN_ENUM(TensorFormat, kHWC, 8);
    KILN_ENUM(TensorFormat, kDLA_LINEAR, 9);
    KILN_ENUM(TensorFormat, kDLA_HWC4, 10);
    KILN_ENUM(TensorFormat, kHWC16, 11);
    KILN_ENUM(TensorFormat, kDHWC, 12);
    KILN_ENUM_MAX(TensorFormat, 13);
}

TEST(EnumValues, DimensionOperation)
{
    KILN_ENUM_TYPE(DimensionOperation, int32_t);
    KILN_ENUM(DimensionOperation, kSUM, 0);
    KILN_ENUM(DimensionOperation, kPROD, 1);
    KILN_ENUM(DimensionOperation, kMAX, 2);
    KILN_ENUM(DimensionOperation, kMIN, 3);
    KILN_ENUM(DimensionOperation, kSUB, 4);
    KILN_ENUM(DimensionOperation, kEQUAL, 5);
    KILN_ENUM(DimensionOperation, kLESS, 6);
    KILN_ENUM(DimensionOperation, kFLOOR_DIV, 7);
    KILN_ENUM(DimensionOperation, kCEIL_DIV, 8);
    KILN_ENUM_MAX(DimensionOperation, 9);
}

TEST(EnumValues, PluginFieldType)
{
    KILN_ENUM_TYPE(PluginFieldType, int32_t);
    KILN_ENUM(PluginFieldType, kFLOAT16, 0);
    KILN_ENUM(PluginFieldType, kFLOAT32, 1);
    KILN_ENUM(PluginFieldType, kFLOAT64, 2);
    KILN_ENUM(PluginFieldType, kINT8, 3);
    KILN_ENUM(PluginFieldType, kINT16, 4);
    KILN_ENUM(PluginFieldType, kINT32, 5);
    KILN_ENUM(PluginFieldType, kCHAR, 6);
    KILN_ENUM(PluginFieldType, kDIMS, 7);
    KILN_ENUM(PluginFieldType, kUNKNOWN, 8);
    KILN_ENUM(PluginFieldType, kBF16, 9);
    KILN_ENUM(PluginFieldType, kINT64, 10);
    KILN_ENUM(PluginFieldType, kFP8, 11);
    KILN_ENUM(PluginFieldType, kINT4, 12);
    KILN_ENUM(PluginFieldType, kFP4, 13);
}

TEST(EnumValues, CapabilityPhaseLanguage)
{
    KILN_ENUM_TYPE(PluginCapabilityType, int32_t);
    KILN_ENUM(PluginCapabilityType, kCORE, 0);
    KILN_ENUM(PluginCapabilityType, kBUILD, 1);
    KILN_ENUM(PluginCapabilityType, kRUNTIME, 2);
    KILN_ENUM_TYPE(TensorRTPhase, int32_t);
    KILN_ENUM(TensorRTPhase, kBUILD, 0);
    KILN_ENUM(TensorRTPhase, kRUNTIME, 1);
    KILN_ENUM_TYPE(APILanguage, int32_t);
    KILN_ENUM(APILanguage, kCPP, 0);
    KILN_ENUM(APILanguage, kPYTHON, 1);
    KILN_ENUM_MAX(APILanguage, 2);
}

TEST(EnumValues, PreviewFeature)
{
    KILN_ENUM_TYPE(PreviewFeature, int32_t);
    KILN_ENUM(PreviewFeature, kPROFILE_SHARING_0806, 0);
    KILN_ENUM(PreviewFeature, kALIASED_PLUGIN_IO_10_03, 1);
    KILN_ENUM(PreviewFeature, kRUNTIME_ACTIVATION_RESIZE_10_10, 2);
    KILN_ENUM(PreviewFeature, kMULTIDEVICE_RUNTIME_10_16, 3);
    KILN_ENUM_MAX(PreviewFeature, 4);
}

TEST(EnumValues, LoggerSeverity)
{
    KILN_ENUM_TYPE(ILogger::Severity, int32_t);
    KILN_ENUM(ILogger::Severity, kINTERNAL_ERROR, 0);
    KILN_ENUM(ILogger::Severity, kERROR, 1);
    KILN_ENUM(ILogger::Severity, kWARNING, 2);
    KILN_ENUM(ILogger::Severity, kINFO, 3);
    KILN_ENUM(ILogger::Severity, kVERBOSE, 4);
    KILN_ENUM_MAX(ILogger::Severity, 5);
}

TEST(EnumValues, ErrorCode)
{
    KILN_ENUM_TYPE(ErrorCode, int32_t);
    KILN_ENUM(ErrorCode, kSUCCESS, 0);
    KILN_ENUM(ErrorCode, kUNSPECIFIED_ERROR, 1);
    KILN_ENUM(ErrorCode, kINTERNAL_ERROR, 2);
    KILN_ENUM(ErrorCode, kINVALID_ARGUMENT, 3);
    KILN_ENUM(ErrorCode, kINVALID_CONFIG, 4);
    KILN_ENUM(ErrorCode, kFAILED_ALLOCATION, 5);
    KILN_ENUM(ErrorCode, kFAILED_INITIALIZATION, 6);
    KILN_ENUM(ErrorCode, kFAILED_EXECUTION, 7);
    KILN_ENUM(ErrorCode, kFAILED_COMPUTATION, 8);
    KILN_ENUM(ErrorCode, kINVALID_STATE, 9);
    KILN_ENUM(ErrorCode, kUNSUPPORTED_STATE, 10);
    KILN_ENUM_MAX(ErrorCode, 11);
}

TEST(EnumValues, LegacyPluginVersions)
{
    EXPECT_EQ(kPLUGIN_VERSION_PYTHON_BIT, 0x40);
    EXPECT_TRUE((std::is_same_v<decltype(kPLUGIN_VERSION_PYTHON_BIT), int32_t const>));
    KILN_ENUM_TYPE(PluginVersion, uint8_t);
    KILN_ENUM(PluginVersion, kV2, 0);
    KILN_ENUM(PluginVersion, kV2_EXT, 1);
    KILN_ENUM(PluginVersion, kV2_IOEXT, 2);
    KILN_ENUM(PluginVersion, kV2_DYNAMICEXT, 3);
    KILN_ENUM(PluginVersion, kV2_DYNAMICEXT_PYTHON, 0x43);
    KILN_ENUM_TYPE(PluginCreatorVersion, int32_t);
    KILN_ENUM(PluginCreatorVersion, kV1, 0);
    KILN_ENUM(PluginCreatorVersion, kV1_PYTHON, 0x40);
}

TEST(EnumValues, RuntimeEnums)
{
    KILN_ENUM_TYPE(OptProfileSelector, int32_t);
    KILN_ENUM(OptProfileSelector, kMIN, 0);
    KILN_ENUM(OptProfileSelector, kOPT, 1);
    KILN_ENUM(OptProfileSelector, kMAX, 2);
    KILN_ENUM_MAX(OptProfileSelector, 3);

    KILN_ENUM_TYPE(TensorIOMode, int32_t);
    KILN_ENUM(TensorIOMode, kNONE, 0);
    KILN_ENUM(TensorIOMode, kINPUT, 1);
    KILN_ENUM(TensorIOMode, kOUTPUT, 2);
    KILN_ENUM_MAX(TensorIOMode, 3);

    KILN_ENUM_TYPE(TensorLocation, int32_t);
    KILN_ENUM(TensorLocation, kDEVICE, 0);
    KILN_ENUM(TensorLocation, kHOST, 1);
    KILN_ENUM_MAX(TensorLocation, 2);

    KILN_ENUM_TYPE(AllocatorFlag, int32_t);
    KILN_ENUM(AllocatorFlag, kRESIZABLE, 0);
    KILN_ENUM_MAX(AllocatorFlag, 1);

    KILN_ENUM_TYPE(EngineCapability, int32_t);
    KILN_ENUM(EngineCapability, kSTANDARD, 0);
    KILN_ENUM(EngineCapability, kSAFETY, 1);
    KILN_ENUM(EngineCapability, kDLA_STANDALONE, 2);
    KILN_ENUM_MAX(EngineCapability, 3);

    KILN_ENUM_TYPE(ExecutionContextAllocationStrategy, int32_t);
    KILN_ENUM(ExecutionContextAllocationStrategy, kSTATIC, 0);
    KILN_ENUM(ExecutionContextAllocationStrategy, kON_PROFILE_CHANGE, 1);
    KILN_ENUM(ExecutionContextAllocationStrategy, kUSER_MANAGED, 2);
    KILN_ENUM_MAX(ExecutionContextAllocationStrategy, 3);

    KILN_ENUM_TYPE(SeekPosition, int32_t);
    KILN_ENUM(SeekPosition, kSET, 0);
    KILN_ENUM(SeekPosition, kCUR, 1);
    KILN_ENUM(SeekPosition, kEND, 2);
}

TEST(EnumValues, BuilderEnums)
{
    KILN_ENUM_TYPE(MemoryPoolType, int32_t);
    KILN_ENUM(MemoryPoolType, kWORKSPACE, 0);
    KILN_ENUM(MemoryPoolType, kDLA_MANAGED_SRAM, 1);
    KILN_ENUM(MemoryPoolType, kDLA_LOCAL_DRAM, 2);
    KILN_ENUM(MemoryPoolType, kDLA_GLOBAL_DRAM, 3);
    KILN_ENUM(MemoryPoolType, kTACTIC_DRAM, 4);
    KILN_ENUM(MemoryPoolType, kTACTIC_SHARED_MEMORY, 5);
    KILN_ENUM_MAX(MemoryPoolType, 6);

    KILN_ENUM_TYPE(NetworkDefinitionCreationFlag, int32_t);
    KILN_ENUM(NetworkDefinitionCreationFlag, kEXPLICIT_BATCH, 0);
    KILN_ENUM(NetworkDefinitionCreationFlag, kSTRONGLY_TYPED, 1);
    KILN_ENUM(NetworkDefinitionCreationFlag, kPREFER_JIT_PYTHON_PLUGINS, 2);
    KILN_ENUM(NetworkDefinitionCreationFlag, kPREFER_AOT_PYTHON_PLUGINS, 3);
    KILN_ENUM_MAX(NetworkDefinitionCreationFlag, 4);

    KILN_ENUM_TYPE(HardwareCompatibilityLevel, int32_t);
    KILN_ENUM(HardwareCompatibilityLevel, kNONE, 0);
    KILN_ENUM(HardwareCompatibilityLevel, kAMPERE_PLUS, 1);
    KILN_ENUM(HardwareCompatibilityLevel, kSAME_COMPUTE_CAPABILITY, 2);
    KILN_ENUM_MAX(HardwareCompatibilityLevel, 3);

    KILN_ENUM_TYPE(TacticSource, int32_t);
    KILN_ENUM(TacticSource, kCUBLAS, 0);
    KILN_ENUM(TacticSource, kCUBLAS_LT, 1);
    KILN_ENUM(TacticSource, kCUDNN, 2);
    KILN_ENUM(TacticSource, kEDGE_MASK_CONVOLUTIONS, 3);
    KILN_ENUM(TacticSource, kJIT_CONVOLUTIONS, 4);
    KILN_ENUM_MAX(TacticSource, 5);

    KILN_ENUM_TYPE(ProfilingVerbosity, int32_t);
    KILN_ENUM(ProfilingVerbosity, kLAYER_NAMES_ONLY, 0);
    KILN_ENUM(ProfilingVerbosity, kNONE, 1);
    KILN_ENUM(ProfilingVerbosity, kDETAILED, 2);
    KILN_ENUM_MAX(ProfilingVerbosity, 3);

    KILN_ENUM_TYPE(SerializationFlag, int32_t);
    KILN_ENUM(SerializationFlag, kEXCLUDE_WEIGHTS, 0);
    KILN_ENUM(SerializationFlag, kEXCLUDE_LEAN_RUNTIME, 1);
    KILN_ENUM(SerializationFlag, kINCLUDE_REFIT, 2);
    KILN_ENUM_MAX(SerializationFlag, 3);

    KILN_ENUM_TYPE(RuntimePlatform, int32_t);
    KILN_ENUM(RuntimePlatform, kSAME_AS_BUILD, 0);
    KILN_ENUM(RuntimePlatform, kWINDOWS_AMD64, 1);
    KILN_ENUM_MAX(RuntimePlatform, 2);

    KILN_ENUM_TYPE(TempfileControlFlag, int32_t);
    KILN_ENUM(TempfileControlFlag, kALLOW_IN_MEMORY_FILES, 0);
    KILN_ENUM(TempfileControlFlag, kALLOW_TEMPORARY_FILES, 1);
    KILN_ENUM_MAX(TempfileControlFlag, 2);

    KILN_ENUM_TYPE(WeightsRole, int32_t);
    KILN_ENUM(WeightsRole, kKERNEL, 0);
    KILN_ENUM(WeightsRole, kBIAS, 1);
    KILN_ENUM(WeightsRole, kSHIFT, 2);
    KILN_ENUM(WeightsRole, kSCALE, 3);
    KILN_ENUM(WeightsRole, kCONSTANT, 4);
    KILN_ENUM(WeightsRole, kANY, 5);
    KILN_ENUM_MAX(WeightsRole, 6);

    KILN_ENUM_TYPE(DeviceType, int32_t);
    KILN_ENUM(DeviceType, kGPU, 0);
    KILN_ENUM(DeviceType, kDLA, 1);
    KILN_ENUM_MAX(DeviceType, 2);

    KILN_ENUM_TYPE(EngineStat, int32_t);
    KILN_ENUM(EngineStat, kTOTAL_WEIGHTS_SIZE, 0);
    KILN_ENUM(EngineStat, kSTRIPPED_WEIGHTS_SIZE, 1);
    KILN_ENUM_MAX(EngineStat, 2);

    KILN_ENUM_TYPE(TilingOptimizationLevel, int32_t);
    KILN_ENUM(TilingOptimizationLevel, kNONE, 0);
    KILN_ENUM(TilingOptimizationLevel, kFAST, 1);
    KILN_ENUM(TilingOptimizationLevel, kMODERATE, 2);
    KILN_ENUM(TilingOptimizationLevel, kFULL, 3);
    KILN_ENUM_MAX(TilingOptimizationLevel, 4);
}

TEST(EnumValues, BuilderFlag)
{
    KILN_ENUM_TYPE(BuilderFlag, int32_t);
    KILN_ENUM(BuilderFlag, kFP16, 0);
    KILN_ENUM(BuilderFlag, kINT8, 1);
    KILN_ENUM(BuilderFlag, kDEBUG, 2);
    KILN_ENUM(BuilderFlag, kGPU_FALLBACK, 3);
    KILN_ENUM(BuilderFlag, kREFIT, 4);
    KILN_ENUM(BuilderFlag, kDISABLE_TIMING_CACHE, 5);
    KILN_ENUM(BuilderFlag, kTF32, 6);
    KILN_ENUM(BuilderFlag, kSPARSE_WEIGHTS, 7);
    KILN_ENUM(BuilderFlag, kSAFETY_SCOPE, 8);
    KILN_ENUM(BuilderFlag, kOBEY_PRECISION_CONSTRAINTS, 9);
    KILN_ENUM(BuilderFlag, kPREFER_PRECISION_CONSTRAINTS, 10);
    KILN_ENUM(BuilderFlag, kDIRECT_IO, 11);
    KILN_ENUM(BuilderFlag, kREJECT_EMPTY_ALGORITHMS, 12);
    KILN_ENUM(BuilderFlag, kVERSION_COMPATIBLE, 13);
    KILN_ENUM(BuilderFlag, kEXCLUDE_LEAN_RUNTIME, 14);
    KILN_ENUM(BuilderFlag, kFP8, 15);
    KILN_ENUM(BuilderFlag, kERROR_ON_TIMING_CACHE_MISS, 16);
    KILN_ENUM(BuilderFlag, kBF16, 17);
    KILN_ENUM(BuilderFlag, kDISABLE_COMPILATION_CACHE, 18);
    KILN_ENUM(BuilderFlag, kSTRIP_PLAN, 19);
    KILN_ENUM(BuilderFlag, kWEIGHTLESS, 19);
    EXPECT_EQ(BuilderFlag::kWEIGHTLESS, BuilderFlag::kSTRIP_PLAN);
    KILN_ENUM(BuilderFlag, kREFIT_IDENTICAL, 20);
    KILN_ENUM(BuilderFlag, kWEIGHT_STREAMING, 21);
    KILN_ENUM(BuilderFlag, kINT4, 22);
    KILN_ENUM(BuilderFlag, kREFIT_INDIVIDUAL, 23);
    KILN_ENUM(BuilderFlag, kSTRICT_NANS, 24);
    KILN_ENUM(BuilderFlag, kMONITOR_MEMORY, 25);
    KILN_ENUM(BuilderFlag, kFP4, 26);
    KILN_ENUM(BuilderFlag, kEDITABLE_TIMING_CACHE, 27);
    KILN_ENUM(BuilderFlag, kDISTRIBUTIVE_INDEPENDENCE, 28);
    KILN_ENUM_MAX(BuilderFlag, 29);
}

TEST(EnumValues, FlagMaskTypes)
{
    EXPECT_TRUE((std::is_same_v<AllocatorFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<TempfileControlFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<TacticSources, uint32_t>));
    EXPECT_TRUE((std::is_same_v<SerializationFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<BuilderFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<NetworkDefinitionCreationFlags, uint32_t>));
    EXPECT_TRUE((std::is_same_v<TensorFormats, uint32_t>));
}
