// SPDX-License-Identifier: LGPL-2.1-or-later
// The C++ side of the RDMA test's objects (ibnm-rdma-test.cpp,
// ibnm-rdma-test-result.cpp).
#pragma once

#include "libcore/ibnm-rdma-test.h"
#include "libcore/platform/rdma-test.hpp"

namespace ibnm {

IbnmRdmaPath *rdmaPathNew(const model::RdmaPath &path);
IbnmRdmaTestResult *rdmaTestResultNew(const platform::RdmaTestOutcome &outcome);

} // namespace ibnm
