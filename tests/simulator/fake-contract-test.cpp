// SPDX-License-Identifier: LGPL-2.1-or-later
// The platform contract on the simulated host, without systemd-resolved (as
// the test host describes it) and with it.
#include "config.h"

#include "tests/platform/contract.hpp"
#include "tests/simulator/fake-test-util.hpp"

namespace ibnm::test {

// The test host with systemd-resolved running.
struct FakeResolvedFactory : FakeFactory {
    static std::unique_ptr<platform::Platform> make()
    {
        static const std::string text = [] {
            std::string t = kTestHost;
            t.replace(t.find("[host]\n"), 7, "[host]\nresolved=true\n");
            return t;
        }();
        return makeTestFake(text.c_str());
    }
};

} // namespace ibnm::test

INSTANTIATE_TYPED_TEST_SUITE_P(Fake, PlatformContract, ::testing::Types<ibnm::test::FakeFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(FakeResolved, PlatformContract, ::testing::Types<ibnm::test::FakeResolvedFactory>);
