// SPDX-License-Identifier: Apache-2.0
#include "cuda_test_util.h"
