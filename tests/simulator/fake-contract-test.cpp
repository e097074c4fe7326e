// SPDX-License-Identifier: LGPL-2.1-or-later
// The platform contract on the simulated host.
#include "config.h"

#include "tests/platform/contract.hpp"
#include "tests/simulator/fake-test-util.hpp"

INSTANTIATE_TYPED_TEST_SUITE_P(Fake, PlatformContract, ::testing::Types<ibnm::test::FakeFactory>);
