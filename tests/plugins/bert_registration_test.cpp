// SPDX-License-Identifier: Apache-2.0
// Registration of the BERT family: initLibNvInferPlugins registers CustomSkipLayerNormPluginDynamic "5",
// CustomEmbLayerNormPluginDynamic "6", CustomQKVToContextPluginDynamic "4" and DisentangledAttention_TRT "2" (V3
// creators), and the four versions "1" (V1 creators), under the namespace it is given, a second call (and
// registerBertPlugins itself) adds nothing and logs nothing. (The registration when libnvinfer_plugin.so.10 loads is
// tested through the ONNX parser, which loads it.)
#include "bert_registration.h"
#include "bert_test_support.h"

namespace kiln::plugins
{
namespace
{

using namespace bert_test;

struct Expected
{
    char const* name;
    char const* version;
};

constexpr Expected kBertPlugins[]
    = {{"CustomSkipLayerNormPluginDynamic", "5"}, {"CustomEmbLayerNormPluginDynamic", "6"},
        {"CustomQKVToContextPluginDynamic", "4"}, {"DisentangledAttention_TRT", "2"}};

TEST(BertPluginRegistration, InitRegistersTheFourCreatorsUnderTheNamespaceAndTwiceIsHarmless)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), "kiln_bert_ns"));
    for (Expected const& e : kBertPlugins)
    {
        nvinfer1::IPluginCreatorV3One* found = creator(e.name, e.version, "kiln_bert_ns");
        ASSERT_NE(found, nullptr) << e.name;
        EXPECT_STREQ(found->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
        EXPECT_STREQ(found->getPluginName(), e.name);
        EXPECT_STREQ(found->getPluginVersion(), e.version);
        EXPECT_STREQ(found->getPluginNamespace(), "kiln_bert_ns");
    }
    int32_t before = 0;
    getPluginRegistry()->getAllCreators(&before);
    logger().mMessages.clear();
    EXPECT_TRUE(initLibNvInferPlugins(&logger(), "kiln_bert_ns"));
    registerBertPlugins(*getPluginRegistry(), "kiln_bert_ns");
    int32_t after = 0;
    getPluginRegistry()->getAllCreators(&after);
    EXPECT_EQ(before, after);
    EXPECT_EQ(logger().mMessages, "") << "a second registration must be quiet";
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    for (Expected const& e : kBertPlugins)
    {
        EXPECT_NE(creator(e.name, e.version, ""), nullptr) << e.name;
    }
}

TEST(BertPluginRegistration, InitAlsoRegistersTheV2VersionsOne)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), "kiln_bert_ns"));
    for (Expected const& e : kBertPlugins)
    {
        nvinfer1::IPluginCreatorInterface* found = getPluginRegistry()->getCreator(e.name, "1", "kiln_bert_ns");
        ASSERT_NE(found, nullptr) << e.name;
        EXPECT_STREQ(found->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
        EXPECT_STREQ(static_cast<nvinfer1::IPluginCreator*>(found)->getPluginNamespace(), "kiln_bert_ns");
    }
}

} // namespace
} // namespace kiln::plugins
