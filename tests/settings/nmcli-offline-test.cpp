// SPDX-License-Identifier: LGPL-2.1-or-later
// Byte equality with NetworkManager's own writer: `nmcli --offline
// connection add ... connection.uuid U` prints the keyfile the daemon would
// write; ibnm must write the same bytes for the same profile.
#include "config.h"

#include "ibnm-settings.h"
#include "settings-test-util.hpp"
#include "tests/nmcli-oracle.hpp"

#include <functional>

using namespace ibnm::test;

namespace {

const char kUuid[] = "3e5b1c8a-2f4d-4c6e-9a7b-1d2e3f4a5b6c";

struct OfflineCase {
    const char *name;
    std::vector<std::string> nmcliArgs; // after `nmcli --offline connection add`
    std::function<NMConnection *()> build;
};

NMConnection *ib(const char *id, const char *ifname, const char *mode)
{
    NMConnection *c = newConnection(id, kUuid, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
    addInfiniband(c, mode);
    return c;
}

void addIp4Manual(NMConnection *c, const char *addr, guint prefix, const char *gw)
{
    NMSetting *s = nm_setting_ip4_config_new();
    NMIPAddress *a = nm_ip_address_new(AF_INET, addr, prefix, nullptr);
    nm_setting_ip_config_add_address(NM_SETTING_IP_CONFIG(s), a);
    nm_ip_address_unref(a);
    g_object_set(s, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP4_CONFIG_METHOD_MANUAL, NM_SETTING_IP_CONFIG_GATEWAY, gw,
                 nullptr);
    nm_connection_add_setting(c, s);
}

std::vector<OfflineCase> cases()
{
    return {
        {"ib-datagram",
         {"type", "infiniband", "con-name", "ib0", "ifname", "ib0", "infiniband.transport-mode", "datagram"},
         [] { return ib("ib0", "ib0", "datagram"); }},
        {"ib-connected-mtu-mac",
         {"type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0", "infiniband.transport-mode", "connected",
          "infiniband.mtu", "65520", "infiniband.mac-address",
          "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:12:34:56"},
         [] {
             NMConnection *c = ib("mlx4_ib0", "mlx4_ib0", "connected");
             g_object_set(nm_connection_get_setting_infiniband(c), NM_SETTING_INFINIBAND_MTU, 65520u,
                          NM_SETTING_INFINIBAND_MAC_ADDRESS,
                          "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:12:34:56", nullptr);
             return c;
         }},
        {"ib-pkey-child",
         {"type", "infiniband", "con-name", "mlx4_ib0.8002", "ifname", "mlx4_ib0.8002", "infiniband.parent",
          "mlx4_ib0", "infiniband.p-key", "0x8002", "infiniband.transport-mode", "datagram", "infiniband.mtu",
          "2044"},
         [] {
             NMConnection *c = ib("mlx4_ib0.8002", "mlx4_ib0.8002", "datagram");
             g_object_set(nm_connection_get_setting_infiniband(c), NM_SETTING_INFINIBAND_PARENT, "mlx4_ib0",
                          NM_SETTING_INFINIBAND_P_KEY, 0x8002, NM_SETTING_INFINIBAND_MTU, 2044u, nullptr);
             return c;
         }},
        {"bond",
         {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
          "mode=active-backup,miimon=100,fail_over_mac=1"},
         [] {
             NMConnection *c = newConnection("bond0", kUuid, NM_SETTING_BOND_SETTING_NAME, "bond0");
             NMSetting *s = nm_setting_bond_new();
             nm_setting_bond_add_option(NM_SETTING_BOND(s), "mode", "active-backup");
             nm_setting_bond_add_option(NM_SETTING_BOND(s), "miimon", "100");
             nm_setting_bond_add_option(NM_SETTING_BOND(s), "fail_over_mac", "1");
             nm_connection_add_setting(c, s);
             return c;
         }},
        {"bond-port",
         {"type", "infiniband", "con-name", "bond0-port1", "ifname", "mlx4_ib0", "master", "bond0", "slave-type",
          "bond", "infiniband.transport-mode", "datagram"},
         [] {
             NMConnection *c = ib("bond0-port1", "mlx4_ib0", "datagram");
             g_object_set(nm_connection_get_setting_connection(c), NM_SETTING_CONNECTION_MASTER, "bond0",
                          NM_SETTING_CONNECTION_SLAVE_TYPE, NM_SETTING_BOND_SETTING_NAME, nullptr);
             // nmcli gives a bond port its (empty) [bond-port] setting.
             nm_connection_add_setting(c, nm_setting_bond_port_new());
             return c;
         }},
        {"ib-ipv4-manual",
         {"type", "infiniband", "con-name", "ib1", "ifname", "ib1", "infiniband.transport-mode", "datagram",
          "ipv4.method", "manual", "ipv4.addresses", "192.0.2.10/24", "ipv4.gateway", "192.0.2.1"},
         [] {
             NMConnection *c = ib("ib1", "ib1", "datagram");
             addIp4Manual(c, "192.0.2.10", 24, "192.0.2.1");
             return c;
         }},
    };
}

} // namespace

TEST(NmcliOffline, IbnmWritesTheSameBytes)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    for (const auto &tc : cases()) {
        SCOPED_TRACE(tc.name);
        std::vector<std::string> argv = {nmcli, "--offline", "connection", "add"};
        argv.insert(argv.end(), tc.nmcliArgs.begin(), tc.nmcliArgs.end());
        argv.insert(argv.end(), {"connection.uuid", kUuid});
        RunResult r = run(argv);
        ASSERT_EQ(r.status, 0) << r.err;
        // nmcli prints warnings ("master='bond0' doesn't refer to any
        // existing profile") on stdout before the keyfile.
        while (r.out.rfind("Warning: ", 0) == 0)
            r.out.erase(0, r.out.find('\n') + 1);
        NMConnection *c = tc.build();
        GError *err = nullptr;
        char *data = ibnm_keyfile_to_data(c, &err);
        ASSERT_NE(data, nullptr) << err->message;
        EXPECT_EQ(std::string(data), r.out);
        g_free(data);
        g_object_unref(c);
    }
}

TEST(NmcliOffline, UserKeysSurviveNmcliModify)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    NMConnection *c = ib("ib0", "ib0", "datagram");
    setUserData(c, "rdma.link-type", "rxe");
    setUserData(c, "rdma.link-name", "rxe_ib0");
    setUserData(c, "rdma.roce-mode", "v2");
    setUserData(c, "rdma.roce-tos", "106");
    setUserData(c, "rdma.traffic-class", "96");
    setUserData(c, "rdma.ttl", "64");
    setUserData(c, "ipoib.umcast", "yes");
    GError *err = nullptr;
    char *data = ibnm_keyfile_to_data(c, &err);
    ASSERT_NE(data, nullptr) << err->message;

    RunResult r = run({nmcli, "--offline", "connection", "modify", "infiniband.mtu", "2044",
                       "infiniband.transport-mode", "connected"},
                      data);
    ASSERT_EQ(r.status, 0) << r.err;
    NMConnection *back = ibnm_keyfile_from_data(r.out.c_str(), "/etc/NetworkManager/system-connections/ib0.nmconnection",
                                                &err);
    ASSERT_NE(back, nullptr) << err->message;
    EXPECT_EQ(nm_setting_infiniband_get_mtu(nm_connection_get_setting_infiniband(back)), 2044u);
    EXPECT_STREQ(nm_setting_infiniband_get_transport_mode(nm_connection_get_setting_infiniband(back)), "connected");
    auto *user = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    guint n = 0;
    const char *const *keys = nm_setting_user_get_keys(user, &n);
    EXPECT_EQ(n, 7u);
    for (guint i = 0; i < n; i++)
        EXPECT_STREQ(userData(back, keys[i]), userData(c, keys[i])) << keys[i];
    g_free(data);
    g_object_unref(back);
    g_object_unref(c);
}
