// SPDX-License-Identifier: LGPL-2.1-or-later
// completion/ibnm: bash completes objects, commands, values and the names of
// stored connections (asked from ibnm itself).
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::Result;

namespace {

// The completions bash offers for `line` (the last word is completed).
std::string complete(const std::string &line, const std::string &path = {})
{
    std::string script = "source '" IBNM_TOP_SRCDIR "/completion/ibnm'\n"
                         "read -ra COMP_WORDS <<< \"$1\"\n"
                         "case $1 in *' ') COMP_WORDS+=('') ;; esac\n"
                         "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                         "_ibnm\n"
                         "echo \"${COMPREPLY[*]}\"\n";
    // A simulated host's state in a directory of its own, not next to the
    // example host file in the (perhaps read-only) source tree.
    ibnm::test::TempDir state;
    std::map<std::string, std::string> env = {{"IBNM_SIMULATE_STATE", state / "state"}};
    if (!path.empty())
        env["PATH"] = path + ":" + g_getenv("PATH");
    Result r = ibnm::test::spawn({"/bin/bash", "-c", script, "complete", line}, env);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
}

TEST(CliCompletion, ObjectsCommandsAndValues)
{
    if (!g_file_test("/bin/bash", G_FILE_TEST_IS_EXECUTABLE))
        GTEST_SKIP() << "no bash";
    EXPECT_EQ(complete("ibnm "), "connection device rdma check apply show-state udev-rules monitor version help");
    EXPECT_EQ(complete("ibnm con "), "show up down add modify delete reload import export help");
    EXPECT_EQ(complete("ibnm rdma link add rxe0 type "), "rxe siw");
    EXPECT_EQ(complete("ibnm rdma roce-mode mlx5_0 "), "v1 v2");
    EXPECT_EQ(complete("ibnm rdma roce-enable mlx5_0 "), "yes no");
    EXPECT_EQ(complete("ibnm rdma t"), "traffic-class test");
    EXPECT_EQ(complete("ibnm rdma test 192.0.2.2 --p"), "--port --profile --ping-size");
    EXPECT_EQ(complete("ibnm connection modify x rdma.traffic-class"),
              "rdma.traffic-class rdma.traffic-class-rules");
    EXPECT_EQ(complete("ibnm --col"), "--color");
    EXPECT_EQ(complete("ibnm connection add type "), "infiniband bond ethernet rdma");
    EXPECT_EQ(complete("ibnm connection add type rdma second"), "secondary-of");
    EXPECT_EQ(complete("ibnm connection modify x infiniband.p"), "infiniband.p-key infiniband.parent");
}

TEST(CliCompletion, StoredConnectionNames)
{
    std::string cli = ibnm::test::cliPath();
    if (!g_str_has_suffix(cli.c_str(), "/ibnm"))
        GTEST_SKIP() << "the binary under test is not named ibnm";
    Cli store;
    ASSERT_EQ(store.run({"connection", "add", "type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0"})
                  .status,
              0);
    char *dir = g_path_get_dirname(cli.c_str());
    std::string got = complete("ibnm --keyfile-dir " + store.keyfileDir() + " connection up ", dir);
    std::string show = complete("ibnm --keyfile-dir " + store.keyfileDir() + " connection show ", dir);
    g_free(dir);
    EXPECT_EQ(got, "--all mlx4_ib0"); // up and down also take --all
    EXPECT_EQ(show, "mlx4_ib0");
}

// Device and port names come from ibnm itself, on the host the command
// line names (--simulate here).
TEST(CliCompletion, DeviceAndPortNames)
{
    std::string cli = ibnm::test::cliPath();
    if (!g_str_has_suffix(cli.c_str(), "/ibnm"))
        GTEST_SKIP() << "the binary under test is not named ibnm";
    char *dir = g_path_get_dirname(cli.c_str());
    std::string host = "ibnm --simulate " + ibnm::test::hostFile("mlx5-roce.host") + " ";
    std::string roce = complete(host + "rdma roce-mode ", dir);
    std::string show = complete(host + "device show ", dir);
    std::string monitor = complete(host + "device monitor mlx5_0 ", dir);
    std::string gid = complete(host + "rdma gid show ", dir);
    std::string tc = complete(host + "rdma traffic-class mlx5_1", dir);
    std::string enable = complete(host + "rdma roce-enable mlx5_0", dir);
    std::string ib = complete("ibnm --simulate " + ibnm::test::hostFile("mlx4-dual-port.host") + " device show ", dir);
    g_free(dir);
    EXPECT_EQ(roce, "mlx5_0 mlx5_1");
    EXPECT_EQ(show, "mlx5_0 mlx5_1");
    EXPECT_EQ(monitor, "mlx5_0 mlx5_1"); // `device monitor` takes several
    EXPECT_EQ(gid, "mlx5_0 mlx5_1 --for");
    EXPECT_EQ(tc, "mlx5_1 mlx5_1/1");
    EXPECT_EQ(enable, "mlx5_0");
    // IPoIB interfaces are devices `device show` takes too.
    EXPECT_NE(ib.find("mlx4_0"), std::string::npos) << ib;
    EXPECT_NE(ib.find("mlx4_ib0"), std::string::npos) << ib;
}

// Every writable property libnm gives the settings ibnm's profiles carry is
// completed after `connection modify ID`, as nmcli completes them.
TEST(CliCompletion, EveryPropertyNmcliCompletes)
{
    if (!g_file_test("/bin/bash", G_FILE_TEST_IS_EXECUTABLE))
        GTEST_SKIP() << "no bash";
    std::string all = " " + complete("ibnm connection modify x ") + " ";
    for (const char *setting : {"connection", "infiniband", "802-3-ethernet", "bond", "bond-port", "vpn", "ipv4",
                                "ipv6"}) {
        GType type = nm_setting_lookup_type(setting);
        ASSERT_NE(type, G_TYPE_INVALID) << setting;
        auto *klass = static_cast<GObjectClass *>(g_type_class_ref(type));
        guint n = 0;
        GParamSpec **specs = g_object_class_list_properties(klass, &n);
        for (guint i = 0; i < n; i++) {
            if (std::string(specs[i]->name) == "name" || !(specs[i]->flags & G_PARAM_WRITABLE))
                continue;
            std::string property = std::string(setting) + "." + specs[i]->name;
            EXPECT_NE(all.find(" " + property + " "), std::string::npos) << property << " is not completed";
        }
        g_free(specs);
        g_type_class_unref(klass);
    }
    for (const char *key : {"rdma.roce-tos", "rdma.ttl", "ipoib.umcast"})
        EXPECT_NE(all.find(std::string(" ") + key + " "), std::string::npos) << key;
    EXPECT_EQ(complete("ibnm connection modify x ipv4.dhcp-c"), "ipv4.dhcp-client-id");
}

} // namespace
