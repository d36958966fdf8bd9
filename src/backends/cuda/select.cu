// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
