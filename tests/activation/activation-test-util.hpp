// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by the activation tests (simulated host and kernel lab): profiles
// built straight through libnm, and the profiles as the engine takes them.
#pragma once

#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"
#include "libcore/support/raii.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ibnm::test {

using ConnPtr = GObjectPtr<NMConnection>;

// A profile with only its connection setting: id, a fresh uuid, type and
// interface name.
inline ConnPtr connection(const char *id, const char *type, const char *ifname)
{
    auto c = ConnPtr::adopt(nm_simple_connection_new());
    NMSetting *s = nm_setting_connection_new();
    GCharPtr uuid(nm_utils_uuid_generate());
    g_object_set(s, NM_SETTING_CONNECTION_ID, id, NM_SETTING_CONNECTION_UUID, uuid.get(), NM_SETTING_CONNECTION_TYPE,
                 type, NM_SETTING_CONNECTION_INTERFACE_NAME, ifname, nullptr);
    nm_connection_add_setting(c.get(), s);
    return c;
}

// `c` with a user setting holding `data` (the rdma.* keys).
inline ConnPtr withUser(ConnPtr c, const std::map<std::string, std::string> &data)
{
    NMSetting *u = nm_setting_user_new();
    for (const auto &[k, v] : data)
        EXPECT_TRUE(nm_setting_user_set_data(NM_SETTING_USER(u), k.c_str(), v.c_str(), nullptr));
    nm_connection_add_setting(c.get(), u);
    return c;
}

// An Ethernet profile on `ifname` with the user keys `user`.
inline ConnPtr ethernet(const char *id, const char *ifname, const std::map<std::string, std::string> &user)
{
    auto c = connection(id, NM_SETTING_WIRED_SETTING_NAME, ifname);
    nm_connection_add_setting(c.get(), nm_setting_wired_new());
    return withUser(std::move(c), user);
}

// The profiles as resolve() takes them; `v` keeps owning them.
inline std::vector<NMConnection *> raw(const std::vector<ConnPtr> &v)
{
    std::vector<NMConnection *> r;
    for (const auto &c : v)
        r.push_back(c.get());
    return r;
}

// All of `profiles` resolved against each other and brought up on `p`.
inline activation::Report resolveAndUp(platform::Platform &p, const std::vector<ConnPtr> &profiles, bool withIp,
                                       const activation::Options &o = {})
{
    auto d = activation::resolve(raw(profiles), raw(profiles), withIp);
    EXPECT_TRUE(d.ok()) << d.error().toString();
    return activation::up(p, *d, o);
}

} // namespace ibnm::test
