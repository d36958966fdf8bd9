// SPDX-License-Identifier: Apache-2.0
// IIdentityLayer: the output has the input's type and shape.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using IdentityTest = ApiTest;

TEST_F(IdentityTest, CopiesTypeAndShape)
{
    nvinfer1::IIdentityLayer* layer = mNetwork->addIdentity(*input("x", dims({-1, 2}), nvinfer1::DataType::kINT8));
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kIDENTITY);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [Identity]");
    EXPECT_EQ(layer->getOutput(0)->getType(), nvinfer1::DataType::kINT8);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {-1, 2});
    expectNoError();
}

} // namespace
} // namespace kiln::test
