// SPDX-License-Identifier: Apache-2.0
// The probes' one error check: CHECK(call) prints the failing call with its status (a cudaError_t or cublasStatus_t)
// and exits, for standalone probes that have no error handling of their own to report through.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                                    \
    do                                                                                                                 \
    {                                                                                                                  \
        auto const status_ = (call);                                                                                   \
        if (static_cast<int>(status_) != 0)                                                                            \
        {                                                                                                              \
            std::printf("%s:%d %s failed (%d)\n", __FILE__, __LINE__, #call, static_cast<int>(status_));               \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)
