// SPDX-License-Identifier: LGPL-2.1-or-later
// Keyfile text in and out through libnm's keyfile API, checked against
// NetworkManager's own keyfile test data (test-keyfile.c expectations).
#include "config.h"

#include "ibnm-check.h"
#include "ibnm-error.h"
#include "ibnm-finding.h"
#include "ibnm-settings.h"
#include "settings-test-util.hpp"
#include "settings/keyfile-codec.hpp"

#include <set>

using namespace ibnm::test;

namespace {

const char kIbMac[] = "00:11:22:33:44:55:66:77:88:99:01:12:23:34:45:56:67:78:89:90";

struct KeyfileCase {
    const char *file;
    const char *id;
    const char *uuid;
    bool autoconnect;
    const char *mac;
    guint32 mtu;
    const char *transportMode;
    const char *ip4Method;
};

// Expectations from NetworkManager's src/core/settings/plugins/keyfile/tests/
// test-keyfile.c: test_read_infiniband (MAC, MTU 1400, datagram),
// test_read_mac_ib_old_format (the decimal byte list gives the same MAC) and
// test_write_infiniband (the profile Test_Write_Infiniband is written from).
const KeyfileCase kConformance[] = {
    {"Test_InfiniBand_Connection", "Test InfiniBand Connection", "4e80a56d-c99f-4aad-a6dd-b449bc398c57", true,
     kIbMac, 1400, "datagram", "auto"},
    {"Test_MAC_IB_Old_Format", "Test InfiniBand Connection", "5680a56d-c99f-45ad-a6dd-b44d5c398c12", true, kIbMac,
     1400, "datagram", "auto"},
    {"Test_Write_Infiniband", "Work InfiniBand", "c27325f5-9eff-517a-9d96-d7897785fa5b", false,
     "99:88:77:66:55:44:AB:BC:CD:DE:EF:F0:0A:1B:2C:3D:4E:5F:6F:BA", 900, "datagram", "auto"},
};

std::string keyfileDir()
{
    auto shared = sharedDir();
    return shared ? *shared + "/conformance/networkmanager/keyfile" : std::string();
}

NMConnection *readConformance(const std::string &path)
{
    GError *err = nullptr;
    NMConnection *c = ibnm_keyfile_from_data(readFile(path).c_str(), path.c_str(), &err);
    EXPECT_NE(c, nullptr) << path << ": " << (err ? err->message : "");
    g_clear_error(&err);
    return c;
}

// The profile of NetworkManager's test_write_infiniband().
NMConnection *workInfiniband()
{
    NMConnection *c = newConnection("Work InfiniBand", "c27325f5-9eff-517a-9d96-d7897785fa5b",
                                    NM_SETTING_INFINIBAND_SETTING_NAME, nullptr);
    g_object_set(nm_connection_get_setting_connection(c), NM_SETTING_CONNECTION_AUTOCONNECT, FALSE, nullptr);
    NMSettingInfiniband *ib = addInfiniband(c, "datagram");
    g_object_set(ib, NM_SETTING_INFINIBAND_MAC_ADDRESS, "99:88:77:66:55:44:ab:bc:cd:de:ef:f0:0a:1b:2c:3d:4e:5f:6f:ba",
                 NM_SETTING_INFINIBAND_MTU, 900u, nullptr);
    NMSetting *ip4 = nm_setting_ip4_config_new();
    g_object_set(ip4, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP4_CONFIG_METHOD_AUTO, nullptr);
    nm_connection_add_setting(c, ip4);
    NMSetting *ip6 = nm_setting_ip6_config_new();
    g_object_set(ip6, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP6_CONFIG_METHOD_AUTO, nullptr);
    nm_connection_add_setting(c, ip6);
    return c;
}

} // namespace

TEST(KeyfileConformance, EveryFileReadsWithNetworkManagersValues)
{
    std::string dir = keyfileDir();
    if (dir.empty())
        IBNM_LAB_SKIP("no shared directory (set IBNM_SHARED_DIR): conformance keyfiles absent");

    std::set<std::string> covered;
    for (const auto &tc : kConformance) {
        SCOPED_TRACE(tc.file);
        covered.insert(tc.file);
        NMConnection *c = readConformance(dir + "/" + tc.file);
        ASSERT_NE(c, nullptr);
        EXPECT_STREQ(nm_connection_get_id(c), tc.id);
        EXPECT_STREQ(nm_connection_get_uuid(c), tc.uuid);
        EXPECT_STREQ(nm_connection_get_connection_type(c), NM_SETTING_INFINIBAND_SETTING_NAME);
        EXPECT_EQ(bool(nm_setting_connection_get_autoconnect(nm_connection_get_setting_connection(c))),
                  tc.autoconnect);
        NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
        ASSERT_NE(ib, nullptr);
        EXPECT_TRUE(nm_utils_hwaddr_matches(nm_setting_infiniband_get_mac_address(ib), -1, tc.mac, -1))
            << nm_setting_infiniband_get_mac_address(ib);
        EXPECT_EQ(nm_setting_infiniband_get_mtu(ib), tc.mtu);
        EXPECT_STREQ(nm_setting_infiniband_get_transport_mode(ib), tc.transportMode);
        EXPECT_EQ(nm_setting_infiniband_get_p_key(ib), -1);
        NMSettingIPConfig *ip4 = nm_connection_get_setting_ip4_config(c);
        ASSERT_NE(ip4, nullptr);
        EXPECT_STREQ(nm_setting_ip_config_get_method(ip4), tc.ip4Method);
        g_object_unref(c);
    }
    // Every file of the directory has its expectations here.
    GDir *d = g_dir_open(dir.c_str(), 0, nullptr);
    ASSERT_NE(d, nullptr);
    while (const char *name = g_dir_read_name(d))
        EXPECT_TRUE(covered.count(name)) << "no expectations for " << name;
    g_dir_close(d);
}

TEST(KeyfileConformance, WritesTestWriteInfinibandByteForByte)
{
    std::string dir = keyfileDir();
    if (dir.empty())
        IBNM_LAB_SKIP("no shared directory (set IBNM_SHARED_DIR): conformance keyfiles absent");
    NMConnection *c = workInfiniband();
    GError *err = nullptr;
    char *data = ibnm_keyfile_to_data(c, &err);
    ASSERT_NE(data, nullptr) << err->message;
    EXPECT_EQ(std::string(data), readFile(dir + "/Test_Write_Infiniband"));
    g_free(data);
    g_object_unref(c);
}

TEST(KeyfileCodec, WriteThenReadIsTheSameProfile)
{
    NMConnection *c = workInfiniband();
    setUserData(c, "rdma.link-type", "rxe");
    setUserData(c, "rdma.ttl", "64");
    setUserData(c, "other.key", "kept");
    GError *err = nullptr;
    char *data = ibnm_keyfile_to_data(c, &err);
    ASSERT_NE(data, nullptr) << err->message;
    EXPECT_NE(std::string(data).find("[user]\nother.key=kept\nrdma.link-type=rxe\nrdma.ttl=64\n"), std::string::npos)
        << data;
    NMConnection *back = ibnm_keyfile_from_data(data, "/etc/x/Work.nmconnection", &err);
    ASSERT_NE(back, nullptr) << err->message;
    nm_connection_normalize(c, nullptr, nullptr, nullptr);
    EXPECT_TRUE(nm_connection_compare(c, back, NM_SETTING_COMPARE_FLAG_EXACT));
    EXPECT_STREQ(userData(back, "rdma.ttl"), "64");
    g_free(data);
    g_object_unref(back);
    g_object_unref(c);
}

TEST(KeyfileCodec, BadUserValueOnReadNamesFileAndKey)
{
    const char *text = "[connection]\nid=x\nuuid=0a2b7e2a-5a8c-4ad5-9a0a-1d2b3c4d5e6f\ntype=infiniband\n\n"
                       "[infiniband]\ntransport-mode=datagram\n\n[user]\nrdma.ttl=300\n";
    GError *err = nullptr;
    NMConnection *c = ibnm_keyfile_from_data(text, "/etc/NetworkManager/system-connections/x.nmconnection", &err);
    EXPECT_EQ(c, nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_STREQ(err->message, "/etc/NetworkManager/system-connections/x.nmconnection: user.rdma.ttl: '300' is not "
                               "an integer from 0 to 255");
    g_error_free(err);
}

TEST(KeyfileCodec, RefusesToWriteBadUserValue)
{
    NMConnection *c = workInfiniband();
    setUserData(c, "rdma.roce-mode", "v3");
    GError *err = nullptr;
    EXPECT_EQ(ibnm_keyfile_to_data(c, &err), nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(std::string(err->message).rfind("user.rdma.roce-mode: ", 0), 0u) << err->message;
    g_error_free(err);
    g_object_unref(c);
}

TEST(KeyfileCodec, MissingIdAndUuidComeFromTheFileName)
{
    const char *text = "[connection]\ntype=infiniband\n\n[infiniband]\ntransport-mode=connected\n";
    GError *err = nullptr;
    NMConnection *a = ibnm_keyfile_from_data(text, "/etc/nm/ib-a.nmconnection", &err);
    ASSERT_NE(a, nullptr) << err->message;
    NMConnection *b = ibnm_keyfile_from_data(text, "/etc/nm/ib-a.nmconnection", &err);
    ASSERT_NE(b, nullptr) << err->message;
    NMConnection *other = ibnm_keyfile_from_data(text, "/etc/nm/ib-b.nmconnection", &err);
    ASSERT_NE(other, nullptr) << err->message;
    EXPECT_STREQ(nm_connection_get_id(a), "ib-a");
    EXPECT_TRUE(g_uuid_string_is_valid(nm_connection_get_uuid(a)));
    EXPECT_STREQ(nm_connection_get_uuid(a), nm_connection_get_uuid(b));
    EXPECT_STRNE(nm_connection_get_uuid(a), nm_connection_get_uuid(other));
    g_object_unref(a);
    g_object_unref(b);
    g_object_unref(other);
}

namespace {

// What ibnm_check_profiles() finds in `c` alone, without a host: severity,
// property and message of each finding, one a line.
std::string findingsOf(NMConnection *c)
{
    GPtrArray *profiles = g_ptr_array_new();
    g_ptr_array_add(profiles, c);
    GPtrArray *findings = ibnm_check_profiles(profiles, nullptr, IBNM_CHECK_FLAGS_NONE);
    std::string out;
    for (guint i = 0; i < findings->len; i++) {
        auto *f = IBNM_FINDING(g_ptr_array_index(findings, i));
        out += std::to_string(ibnm_finding_get_severity(f)) + " " + ibnm_finding_get_property(f) + ": "
            + ibnm_finding_get_message(f) + "\n";
    }
    g_ptr_array_unref(findings);
    g_ptr_array_unref(profiles);
    return out;
}

} // namespace

// The keyfile reader marks what it read as verified by NetworkManager's
// verify() (nm_connection_normalize() ends with it), so that check does not
// ask libnm again: check finds in such a profile what it finds in a copy
// without the mark (libnm asked), also once the profile has changed in
// memory so that verify() refuses it (the change takes the mark away).
TEST(KeyfileCodec, ProfileReadIsVerifiedOnceUntilItChanges)
{
    const char *text = "[connection]\nid=ib0\nuuid=2f1a2c7e-8d4b-4a0e-9a55-3c1d2e4f6a7b\ntype=infiniband\n"
                       "interface-name=ib0\n\n[infiniband]\nmtu=2044\ntransport-mode=datagram\n\n"
                       "[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=ignore\n";
    GError *err = nullptr;
    NMConnection *read = ibnm_keyfile_from_data(text, "/etc/NetworkManager/system-connections/ib0.nmconnection", &err);
    ASSERT_NE(read, nullptr) << err->message;
    NMConnection *copy = nm_simple_connection_new_clone(read); // no mark: libnm is asked
    std::string marked = findingsOf(read);
    EXPECT_EQ(marked, findingsOf(copy));
    EXPECT_EQ(marked.find("error"), std::string::npos) << marked;

    // An MTU above 65520: verify() refuses it. Changed in place, after the
    // read: the mark must not hide the error.
    g_object_set(nm_connection_get_setting_infiniband(read), NM_SETTING_INFINIBAND_MTU, 65521u, nullptr);
    g_object_set(nm_connection_get_setting_infiniband(copy), NM_SETTING_INFINIBAND_MTU, 65521u, nullptr);
    std::string changed = findingsOf(read);
    EXPECT_EQ(changed, findingsOf(copy));
    EXPECT_NE(
        changed.find(std::to_string(IBNM_SEVERITY_ERROR) + " infiniband.mtu: infiniband.mtu: "), std::string::npos)
        << changed;

    // A setting added or taken away changes the profile too.
    NMConnection *again = ibnm_keyfile_from_data(text, "/etc/NetworkManager/system-connections/ib0.nmconnection", &err);
    ASSERT_NE(again, nullptr) << err->message;
    nm_connection_remove_setting(again, NM_TYPE_SETTING_INFINIBAND);
    NMConnection *againCopy = nm_simple_connection_new_clone(again);
    std::string removed = findingsOf(again);
    EXPECT_EQ(removed, findingsOf(againCopy));
    EXPECT_NE(removed.find(std::to_string(IBNM_SEVERITY_ERROR) + " "), std::string::npos) << removed;

    g_object_unref(againCopy);
    g_object_unref(again);
    g_object_unref(copy);
    g_object_unref(read);
}

TEST(KeyfileCodec, SyntaxErrorNamesTheFile)
{
    GError *err = nullptr;
    EXPECT_EQ(ibnm_keyfile_from_data("[connection\nid=x\n", "/tmp/broken.nmconnection", &err), nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(std::string(err->message).rfind("/tmp/broken.nmconnection: ", 0), 0u) << err->message;
    g_error_free(err);
}

struct FilenameCase {
    const char *id;
    const char *file;
};

// NetworkManager's nm_keyfile_utils_create_filename(id, TRUE).
const FilenameCase kFilenames[] = {
    {"ib0", "ib0.nmconnection"},
    {"Work InfiniBand", "Work InfiniBand.nmconnection"},
    {"a/b/c", "a_b_c.nmconnection"},
    {".hidden", "_hidden.nmconnection"},
    {"backup~", "backup_.nmconnection"},
    {"ib0.8002", "ib0.8002.nmconnection"},
    {"name.abc123", "name.abc123_.nmconnection"}, // looks like a mkstemp() file
    {"client.pem", "client.pem_.nmconnection"},
    {"KEY.DER", "KEY.DER_.nmconnection"},
    {"x.pemx", "x.pemx.nmconnection"},
};

TEST(KeyfileCodec, FileNamesAreNetworkManagers)
{
    for (const auto &tc : kFilenames) {
        char *f = ibnm_keyfile_create_filename(tc.id);
        EXPECT_STREQ(f, tc.file) << tc.id;
        EXPECT_FALSE(ibnm::settings::ignoreFilename(f)) << f;
        g_free(f);
    }
}

TEST(KeyfileCodec, IgnoresWhatNetworkManagerIgnores)
{
    for (const char *name : {".ib0.nmconnection.Ab12Cd", "ib0.nmconnection~", "x.nmmeta", "ca.pem", "ib0.tmp123"})
        EXPECT_TRUE(ibnm::settings::ignoreFilename(name)) << name;
    for (const char *name : {"ib0.nmconnection", "legacy-ib0", "ib0.8002.nmconnection"})
        EXPECT_FALSE(ibnm::settings::ignoreFilename(name)) << name;
}
