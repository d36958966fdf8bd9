// Object layout and class properties of the builder, network, layer and runtime wrappers (spec 7.1), measured the
// way layout_test.cpp measures IDimensionExpr: a class derived from the wrapper reports where the protected
// pointers lie. LP64 targets.
//
//  - Every wrapper other than a layer is [vptr][apiv::V<Name>* mImpl]: 16 bytes, mImpl at 8.
//  - ILayer is [vptr][apiv::VLayer* mLayer]; each layer class adds its own pointer: [vptr][mLayer][mImpl], 24 bytes,
//    mLayer at 8 and mImpl at 16 (TensorRT declares mLayer in ILayer and mImpl in each layer class).
//  - Objects the user deletes have public destructors; tensors, layers and optimization profiles, owned by the
//    library, have protected ones. None can be copied or moved.

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>
#include <utility>

using namespace nvinfer1;

namespace
{

//! Derives from a wrapper to find its implementation pointer. Never dereferences it.
template <typename W>
class ImplProbe final : public W
{
public:
    std::ptrdiff_t implOffset() const noexcept { return offsetOf(&this->mImpl); }

private:
    template <typename P>
    std::ptrdiff_t offsetOf(P const* member) const noexcept
    {
        return reinterpret_cast<char const*>(member) - reinterpret_cast<char const*>(static_cast<W const*>(this));
    }
};

//! Derives from a layer class to find both of its implementation pointers.
template <typename L>
class LayerProbe final : public L
{
public:
    std::ptrdiff_t layerOffset() const noexcept { return offsetOf(&this->mLayer); }
    std::ptrdiff_t implOffset() const noexcept { return offsetOf(&this->mImpl); }

private:
    template <typename P>
    std::ptrdiff_t offsetOf(P const* member) const noexcept
    {
        return reinterpret_cast<char const*>(member) - reinterpret_cast<char const*>(static_cast<L const*>(this));
    }
};

//! Derives from ILayer itself.
class BaseLayerProbe final : public ILayer
{
public:
    std::ptrdiff_t layerOffset() const noexcept
    {
        return reinterpret_cast<char const*>(&mLayer) - reinterpret_cast<char const*>(static_cast<ILayer const*>(this));
    }
};

template <typename W>
::testing::AssertionResult isVptrPlusImpl(char const* name)
{
    if (sizeof(W) != 16 || alignof(W) != 8)
    {
        return ::testing::AssertionFailure() << name << " is " << sizeof(W) << " bytes; expected 16";
    }
    if (!std::is_polymorphic<W>::value)
    {
        return ::testing::AssertionFailure() << name << " has no vptr";
    }
    ImplProbe<W> const probe{};
    if (probe.implOffset() != 8)
    {
        return ::testing::AssertionFailure() << name << "::mImpl is at " << probe.implOffset() << "; expected 8";
    }
    return ::testing::AssertionSuccess();
}

template <typename L>
::testing::AssertionResult isLayerLayout(char const* name)
{
    if (sizeof(L) != 24 || alignof(L) != 8)
    {
        return ::testing::AssertionFailure() << name << " is " << sizeof(L) << " bytes; expected 24";
    }
    if (!std::is_base_of<ILayer, L>::value)
    {
        return ::testing::AssertionFailure() << name << " does not derive from ILayer";
    }
    LayerProbe<L> const probe{};
    if (probe.layerOffset() != 8 || probe.implOffset() != 16)
    {
        return ::testing::AssertionFailure() << name << ": mLayer at " << probe.layerOffset() << ", mImpl at "
                                             << probe.implOffset() << "; expected 8 and 16";
    }
    return ::testing::AssertionSuccess();
}

//! Neither copyable nor movable, as INoCopy makes every API object.
template <typename T>
constexpr bool isNoCopy() noexcept
{
    return std::is_base_of<INoCopy, T>::value && !std::is_copy_constructible<T>::value
        && !std::is_copy_assignable<T>::value && !std::is_move_constructible<T>::value
        && !std::is_move_assignable<T>::value;
}

} // namespace

#define KILN_EXPECT_WRAPPER(Type) EXPECT_TRUE(isVptrPlusImpl<Type>(#Type))
#define KILN_EXPECT_LAYER(Type) EXPECT_TRUE(isLayerLayout<Type>(#Type))

TEST(LayoutApi, RuntimeWrappersAreVptrPlusImpl)
{
    static_assert(sizeof(void*) == 8, "the layouts are those of LP64 targets");
    KILN_EXPECT_WRAPPER(IHostMemory);
    KILN_EXPECT_WRAPPER(IRuntime);
    KILN_EXPECT_WRAPPER(ICudaEngine);
    KILN_EXPECT_WRAPPER(IExecutionContext);
    KILN_EXPECT_WRAPPER(IOptimizationProfile);
    KILN_EXPECT_WRAPPER(IRuntimeConfig);
    KILN_EXPECT_WRAPPER(ISerializationConfig);
    KILN_EXPECT_WRAPPER(IEngineInspector);
}

TEST(LayoutApi, BuilderWrappersAreVptrPlusImpl)
{
    KILN_EXPECT_WRAPPER(IBuilder);
    KILN_EXPECT_WRAPPER(IBuilderConfig);
    KILN_EXPECT_WRAPPER(INetworkDefinition);
    KILN_EXPECT_WRAPPER(ITimingCache);
    KILN_EXPECT_WRAPPER(ITensor);
}

TEST(LayoutApi, ILayerIsVptrPlusLayer)
{
    EXPECT_EQ(sizeof(ILayer), 16U);
    EXPECT_EQ(alignof(ILayer), 8U);
    BaseLayerProbe const probe{};
    EXPECT_EQ(probe.layerOffset(), 8);
}

TEST(LayoutApi, LoopBoundaryLayersAddBoundaryThenImpl)
{
    EXPECT_EQ(sizeof(ILoopBoundaryLayer), 24U);
    EXPECT_EQ(sizeof(IRecurrenceLayer), 32U);
    EXPECT_EQ(sizeof(ILoopOutputLayer), 32U);
    EXPECT_EQ(sizeof(ITripLimitLayer), 32U);
    EXPECT_EQ(sizeof(IIteratorLayer), 32U);
    EXPECT_FALSE(std::is_destructible<IIteratorLayer>::value);
    KILN_EXPECT_WRAPPER(ILoop);
    EXPECT_TRUE(isNoCopy<ILoop>());
    EXPECT_EQ(static_cast<int32_t>(TripLimit::kWHILE), 1);
    EXPECT_EQ(static_cast<int32_t>(LoopOutput::kREVERSE), 2);
    EXPECT_EQ(EnumMax<LoopOutput>(), 3);
    EXPECT_EQ(EnumMax<TripLimit>(), 2);
}

TEST(LayoutApi, IfConditionalBoundaryLayersAddBoundaryThenImpl)
{
    // vptr, ILayer::mLayer, IIfConditionalBoundaryLayer::mBoundary, then the kind's mImpl.
    EXPECT_EQ(sizeof(IIfConditionalBoundaryLayer), 24U);
    EXPECT_EQ(sizeof(IConditionLayer), 32U);
    EXPECT_EQ(sizeof(IIfConditionalInputLayer), 32U);
    EXPECT_EQ(sizeof(IIfConditionalOutputLayer), 32U);
    EXPECT_TRUE((std::is_base_of<IIfConditionalBoundaryLayer, IConditionLayer>::value));
    EXPECT_FALSE(std::is_destructible<IConditionLayer>::value);
    KILN_EXPECT_WRAPPER(IIfConditional);
    EXPECT_TRUE(isNoCopy<IIfConditional>());
}

TEST(LayoutApi, LayersAddTheirOwnImpl)
{
    KILN_EXPECT_LAYER(IConvolutionLayer);
    KILN_EXPECT_LAYER(IDeconvolutionLayer);
    KILN_EXPECT_LAYER(IActivationLayer);
    KILN_EXPECT_LAYER(IPoolingLayer);
    KILN_EXPECT_LAYER(ISoftMaxLayer);
    KILN_EXPECT_LAYER(IConcatenationLayer);
    KILN_EXPECT_LAYER(IElementWiseLayer);
    KILN_EXPECT_LAYER(IGatherLayer);
    KILN_EXPECT_LAYER(IPluginV2Layer);
    KILN_EXPECT_LAYER(IPluginV3Layer);
    KILN_EXPECT_LAYER(IUnaryLayer);
    KILN_EXPECT_LAYER(IReduceLayer);
    KILN_EXPECT_LAYER(ITopKLayer);
    KILN_EXPECT_LAYER(INonZeroLayer);
    KILN_EXPECT_LAYER(INMSLayer);
    KILN_EXPECT_LAYER(IShuffleLayer);
    KILN_EXPECT_LAYER(ISliceLayer);
    KILN_EXPECT_LAYER(IShapeLayer);
    KILN_EXPECT_LAYER(IResizeLayer);
    KILN_EXPECT_LAYER(IMatrixMultiplyLayer);
    KILN_EXPECT_LAYER(IIdentityLayer);
    KILN_EXPECT_LAYER(ICastLayer);
    KILN_EXPECT_LAYER(IQuantizeLayer);
    KILN_EXPECT_LAYER(IDequantizeLayer);
    KILN_EXPECT_LAYER(IScatterLayer);
    KILN_EXPECT_LAYER(IEinsumLayer);
    KILN_EXPECT_LAYER(IGridSampleLayer);
    KILN_EXPECT_LAYER(IReverseSequenceLayer);
    KILN_EXPECT_LAYER(IConstantLayer);
    KILN_EXPECT_LAYER(ISelectLayer);
    KILN_EXPECT_LAYER(IFillLayer);
    KILN_EXPECT_LAYER(ICumulativeLayer);
}

TEST(LayoutApi, PermutationIsEightInt32)
{
    EXPECT_EQ(sizeof(Permutation), 32U);
    EXPECT_EQ(alignof(Permutation), 4U);
    EXPECT_TRUE((std::is_same<decltype(Permutation::order), int32_t[Dims::MAX_DIMS]>::value));
    EXPECT_TRUE(std::is_trivial<Permutation>::value);
}

TEST(ApiSurfaceApi, UserOwnedObjectsHavePublicVirtualDestructors)
{
    EXPECT_TRUE(std::has_virtual_destructor<IHostMemory>::value && std::is_destructible<IHostMemory>::value);
    EXPECT_TRUE(std::has_virtual_destructor<IRuntime>::value && std::is_destructible<IRuntime>::value);
    EXPECT_TRUE(std::has_virtual_destructor<ICudaEngine>::value && std::is_destructible<ICudaEngine>::value);
    EXPECT_TRUE(
        std::has_virtual_destructor<IExecutionContext>::value && std::is_destructible<IExecutionContext>::value);
    EXPECT_TRUE(std::has_virtual_destructor<IRuntimeConfig>::value && std::is_destructible<IRuntimeConfig>::value);
    EXPECT_TRUE(
        std::has_virtual_destructor<ISerializationConfig>::value && std::is_destructible<ISerializationConfig>::value);
    EXPECT_TRUE(std::has_virtual_destructor<IEngineInspector>::value && std::is_destructible<IEngineInspector>::value);
    EXPECT_TRUE(std::has_virtual_destructor<IBuilder>::value && std::is_destructible<IBuilder>::value);
    EXPECT_TRUE(std::has_virtual_destructor<IBuilderConfig>::value && std::is_destructible<IBuilderConfig>::value);
    EXPECT_TRUE(
        std::has_virtual_destructor<INetworkDefinition>::value && std::is_destructible<INetworkDefinition>::value);
    EXPECT_TRUE(std::has_virtual_destructor<ITimingCache>::value && std::is_destructible<ITimingCache>::value);
}

TEST(ApiSurfaceApi, LibraryOwnedObjectsHaveProtectedDestructors)
{
    EXPECT_FALSE(std::is_destructible<IOptimizationProfile>::value);
    EXPECT_FALSE(std::is_destructible<ITensor>::value);
    EXPECT_FALSE(std::is_destructible<ILayer>::value);
    EXPECT_FALSE(std::is_destructible<IConvolutionLayer>::value);
    EXPECT_FALSE(std::is_destructible<IDeconvolutionLayer>::value);
    EXPECT_FALSE(std::is_destructible<IActivationLayer>::value);
    EXPECT_FALSE(std::is_destructible<IPoolingLayer>::value);
    EXPECT_FALSE(std::is_destructible<ISoftMaxLayer>::value);
    EXPECT_FALSE(std::is_destructible<IConcatenationLayer>::value);
    EXPECT_FALSE(std::is_destructible<IElementWiseLayer>::value);
    EXPECT_FALSE(std::is_destructible<IGatherLayer>::value);
    EXPECT_FALSE(std::is_destructible<IPluginV2Layer>::value);
    EXPECT_FALSE(std::is_destructible<IPluginV3Layer>::value);
    EXPECT_FALSE(std::is_destructible<IUnaryLayer>::value);
    EXPECT_FALSE(std::is_destructible<IReduceLayer>::value);
    EXPECT_FALSE(std::is_destructible<ITopKLayer>::value);
    EXPECT_FALSE(std::is_destructible<INonZeroLayer>::value);
    EXPECT_FALSE(std::is_destructible<INMSLayer>::value);
    EXPECT_FALSE(std::is_destructible<IShuffleLayer>::value);
    EXPECT_FALSE(std::is_destructible<ISliceLayer>::value);
    EXPECT_FALSE(std::is_destructible<IShapeLayer>::value);
    EXPECT_FALSE(std::is_destructible<IResizeLayer>::value);
    EXPECT_FALSE(std::is_destructible<IMatrixMultiplyLayer>::value);
    EXPECT_FALSE(std::is_destructible<IIdentityLayer>::value);
    EXPECT_FALSE(std::is_destructible<ICastLayer>::value);
    EXPECT_FALSE(std::is_destructible<IQuantizeLayer>::value);
    EXPECT_FALSE(std::is_destructible<IDequantizeLayer>::value);
    EXPECT_FALSE(std::is_destructible<IScatterLayer>::value);
    EXPECT_FALSE(std::is_destructible<IEinsumLayer>::value);
    EXPECT_FALSE(std::is_destructible<IGridSampleLayer>::value);
    EXPECT_FALSE(std::is_destructible<IReverseSequenceLayer>::value);
    EXPECT_FALSE(std::is_destructible<IConstantLayer>::value);
    EXPECT_FALSE(std::is_destructible<ISelectLayer>::value);
    EXPECT_FALSE(std::is_destructible<IFillLayer>::value);
    EXPECT_FALSE(std::is_destructible<ICumulativeLayer>::value);
}

TEST(ApiSurfaceApi, NothingCanBeCopiedOrMoved)
{
    EXPECT_TRUE(isNoCopy<IHostMemory>());
    EXPECT_TRUE(isNoCopy<IRuntime>());
    EXPECT_TRUE(isNoCopy<ICudaEngine>());
    EXPECT_TRUE(isNoCopy<IExecutionContext>());
    EXPECT_TRUE(isNoCopy<IOptimizationProfile>());
    EXPECT_TRUE(isNoCopy<IRuntimeConfig>());
    EXPECT_TRUE(isNoCopy<ISerializationConfig>());
    EXPECT_TRUE(isNoCopy<IEngineInspector>());
    EXPECT_TRUE(isNoCopy<IBuilder>());
    EXPECT_TRUE(isNoCopy<IBuilderConfig>());
    EXPECT_TRUE(isNoCopy<INetworkDefinition>());
    EXPECT_TRUE(isNoCopy<ITimingCache>());
    EXPECT_TRUE(isNoCopy<ITensor>());
    EXPECT_TRUE(isNoCopy<ILayer>());
    EXPECT_TRUE(isNoCopy<IConvolutionLayer>());
    EXPECT_TRUE(isNoCopy<IDeconvolutionLayer>());
    EXPECT_TRUE(isNoCopy<IFillLayer>());
    EXPECT_TRUE(isNoCopy<INonZeroLayer>());
    EXPECT_TRUE(isNoCopy<INMSLayer>());
    EXPECT_TRUE(isNoCopy<ICumulativeLayer>());
    EXPECT_TRUE(isNoCopy<IEinsumLayer>());
    EXPECT_TRUE(isNoCopy<IGridSampleLayer>());
    EXPECT_TRUE(isNoCopy<IReverseSequenceLayer>());
    EXPECT_TRUE(isNoCopy<IResizeLayer>());
}

TEST(ApiSurfaceApi, ImplementationInterfacesDeriveFromVRoot)
{
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VHostMemory>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VRuntime>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VCudaEngine>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VExecutionContext>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VNetworkDefinition>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VBuilderConfig>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VBuilder>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VLayer>::value));
    // A layer's own interface is not a VLayer: the ILayer part has its own implementation pointer.
    EXPECT_FALSE((std::is_base_of<apiv::VLayer, apiv::VConvolutionLayer>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VConvolutionLayer>::value));
    EXPECT_TRUE((std::is_base_of<apiv::VRoot, apiv::VDeconvolutionLayer>::value));
    EXPECT_TRUE(std::is_abstract<apiv::VNetworkDefinition>::value);
    EXPECT_FALSE(std::is_abstract<apiv::VShapeLayer>::value);
}

TEST(ApiSurfaceApi, FactoriesAndEntryPoints)
{
    EXPECT_TRUE((std::is_same<decltype(&createInferRuntime_INTERNAL), void* (*)(void*, int32_t) noexcept>::value));
    EXPECT_TRUE((std::is_same<decltype(&createInferBuilder_INTERNAL), void* (*)(void*, int32_t) noexcept>::value));
    EXPECT_TRUE((std::is_same<decltype(&createInferRuntime), IRuntime* (*)(ILogger&) noexcept>::value));
    EXPECT_TRUE((std::is_same<decltype(&createInferBuilder), IBuilder* (*)(ILogger&) noexcept>::value));
}

TEST(ApiSurfaceApi, DefaultArgumentsAndOverloads)
{
    // createExecutionContext() takes kSTATIC by default; the IRuntimeConfig overload and the two-argument
    // buildSerializedNetwork exist alongside.
    EXPECT_TRUE(
        (std::is_same<decltype(std::declval<ICudaEngine&>().createExecutionContext()), IExecutionContext*>::value));
    EXPECT_TRUE((std::is_same<decltype(std::declval<ICudaEngine&>().createExecutionContext(
                                  static_cast<IRuntimeConfig*>(nullptr))),
        IExecutionContext*>::value));
    EXPECT_TRUE(noexcept(std::declval<ICudaEngine&>().createExecutionContext()));
    EXPECT_FALSE(noexcept(std::declval<IRuntime&>().deserializeCudaEngine(std::declval<IStreamReaderV2&>())));
    EXPECT_TRUE(noexcept(std::declval<IRuntime&>().deserializeCudaEngine(nullptr, std::size_t{0})));
    EXPECT_TRUE((std::is_same<decltype(std::declval<IBuilder&>().buildSerializedNetwork(
                                  std::declval<INetworkDefinition&>(), std::declval<IBuilderConfig&>())),
        IHostMemory*>::value));
    EXPECT_TRUE((std::is_same<decltype(std::declval<IShuffleLayer&>().getFirstTranspose()), Permutation>::value));
}
