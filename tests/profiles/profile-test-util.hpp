// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers for the profile tests: profiles from nmcli-style arguments, their
// keyfile bytes, and small hosts built straight from the model.
#pragma once

#include "libcore/ibnm.h"
#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ibnm::test {

// argv for the C API: the strings stay owned by `args`.
inline std::vector<const char *> argvOf(const std::vector<std::string> &args)
{
    std::vector<const char *> v;
    for (const auto &a : args)
        v.push_back(a.c_str());
    v.push_back(nullptr);
    return v;
}

// The profile, or nullptr with `*message` set to the error.
inline GObjectPtr<IbnmProfile> profileFromArgs(const std::vector<std::string> &args, std::string *message = nullptr)
{
    GErrorPtr err;
    auto p = GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argvOf(args).data(), outPtr(err)));
    if (message)
        *message = err ? err->message : "";
    return p;
}

// A profile that must build; fails the test otherwise.
inline GObjectPtr<IbnmProfile> mustProfile(const std::vector<std::string> &args)
{
    std::string message;
    auto p = profileFromArgs(args, &message);
    EXPECT_TRUE(p) << message;
    return p;
}

inline NMConnection *connectionOf(IbnmProfile *p)
{
    return static_cast<NMConnection *>(ibnm_profile_get_connection(p));
}

// The keyfile libnm writes for the profile: what `nmcli --offline` prints.
inline std::string keyfileBytes(IbnmProfile *p)
{
    GErrorPtr err;
    GKeyFilePtr kf(nm_keyfile_write(connectionOf(p), NM_KEYFILE_HANDLER_FLAGS_NONE, nullptr, nullptr,
                                    outPtr(err)));
    if (!kf) {
        ADD_FAILURE() << "nm_keyfile_write: " << err->message;
        return {};
    }
    gsize len = 0;
    GCharPtr data(g_key_file_to_data(kf.get(), &len, nullptr));
    return std::string(data.get(), len);
}

// One IB port behind netdev `netdev`: device `device` port 1.
struct HostBuilder {
    model::Host host;

    HostBuilder &ibPort(const std::string &netdev, const std::string &device, unsigned activeMtu,
                        std::optional<unsigned> broadcastMtu = std::nullopt, std::vector<uint16_t> pkeys = {0xffff},
                        bool enhanced = false, bool cm = true)
    {
        model::Device d;
        d.name = device;
        d.enhancedIpoib = enhanced;
        d.connectedModeSupported = cm && !enhanced;
        model::Port port;
        port.number = 1;
        port.linkLayer = model::LinkLayer::InfiniBand;
        port.activeMtu = activeMtu;
        port.maxMtu = 4096;
        port.broadcastMtu = broadcastMtu;
        port.pkeys = std::move(pkeys);
        d.ports.push_back(port);
        host.devices.push_back(d);
        model::Netdev n;
        n.name = netdev;
        n.type = 32;
        n.kind = "ipoib";
        n.mtu = 2044;
        n.rdmaDevice = device;
        n.rdmaPort = 1;
        host.netdevs.push_back(n);
        model::IpoibNetdev i;
        i.name = netdev;
        host.ipoib.push_back(i);
        return *this;
    }
};

} // namespace ibnm::test
