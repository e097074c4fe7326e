// SPDX-License-Identifier: LGPL-2.1-or-later
// completion/ibnm: bash completes objects, commands, values and the names of
// stored connections (asked from ibnm itself).
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

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
    std::map<std::string, std::string> env;
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
    EXPECT_EQ(complete("ibnm "), "connection device rdma check apply show-state udev-rules version help");
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

} // namespace
