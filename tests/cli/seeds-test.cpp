// SPDX-License-Identifier: LGPL-2.1-or-later
// Every nmcli command of the seeds (../shared/seeds/*.txt) runs verbatim with
// ibnm in place of nmcli, on a keyfile store and the simulated mlx4 host, in
// the order the seeds give them. Where a seed lost its values (`ipv4.addresses`
// with nothing after it) or asks for what NetworkManager refuses (a P_Key on a
// profile without a parent), ibnm must fail as nmcli does: nmcli --offline is
// run on the same keyfile as the oracle of success and exit code.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"
#include "tests/nmcli-oracle.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <regex>

using ibnm::test::Cli;
using ibnm::test::Result;

namespace {

std::string sharedDir()
{
    const char *env = g_getenv("IBNM_SHARED_DIR");
    return env ? env : IBNM_SHARED_DIR_DEFAULT;
}

struct SeedCommand {
    std::string file;
    std::vector<std::string> words; // after "nmcli"
};

std::vector<SeedCommand> seedCommands()
{
    std::vector<SeedCommand> out;
    std::string dir = sharedDir() + "/seeds";
    GDir *d = g_dir_open(dir.c_str(), 0, nullptr);
    if (!d)
        return out;
    std::vector<std::string> names;
    while (const char *n = g_dir_read_name(d))
        if (g_str_has_suffix(n, ".txt"))
            names.emplace_back(n);
    g_dir_close(d);
    std::sort(names.begin(), names.end());
    std::regex cmd(R"(^\s*#\s*nmcli\s+(.*\S)\s*$)");
    for (const auto &n : names) {
        std::ifstream in(dir + "/" + n);
        std::string line;
        while (std::getline(in, line)) {
            std::smatch m;
            if (!std::regex_match(line, m, cmd))
                continue;
            std::string rest = m[1];
            if (rest.find('<') != std::string::npos) // placeholders: <setting> <value>
                continue;
            char **argv = nullptr;
            if (!g_shell_parse_argv(rest.c_str(), nullptr, &argv, nullptr))
                continue;
            SeedCommand c{n, {}};
            for (char **a = argv; *a; a++)
                c.words.emplace_back(*a);
            g_strfreev(argv);
            out.push_back(std::move(c));
        }
    }
    return out;
}

TEST(CliSeeds, EveryNmcliCommandRunsAsNmcliWould)
{
    auto commands = seedCommands();
    if (commands.empty())
        IBNM_LAB_SKIP("no seeds at " + sharedDir() + "/seeds (set IBNM_SHARED_DIR)");
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);

    // Each seed file is one procedure on a fresh host and store.
    std::string current;
    std::unique_ptr<Cli> cli;
    std::string keyfile; // the oracle's copy of the profile
    int ran = 0, up = 0, failedAsNmcli = 0;
    for (const auto &c : commands) {
        if (c.file != current) {
            current = c.file;
            cli = std::make_unique<Cli>("mlx4-dual-port.host");
            keyfile.clear();
        }
        std::string text;
        for (const auto &w : c.words)
            text += " " + w;
        SCOPED_TRACE(c.file + ":" + text);
        ASSERT_GE(c.words.size(), 2u);
        Result got = cli->run(c.words);
        ran++;
        const std::string &verb = c.words[1];
        if (c.words[0] == "connection" && (verb == "add" || verb == "modify")) {
            // The oracle: nmcli --offline on the same profile.
            std::vector<std::string> n = {nmcli, "--offline", "connection", verb};
            size_t from = verb == "add" ? 2 : 3;
            n.insert(n.end(), c.words.begin() + from, c.words.end());
            Result expected = ibnm::test::spawn(n, {}, keyfile);
            EXPECT_EQ(got.status, expected.status) << "ibnm: " << got.err << "nmcli: " << expected.err;
            if (expected.status == 0)
                keyfile = expected.out;
            else
                failedAsNmcli++;
        } else if (c.words[0] == "connection" && verb == "up") {
            // An IPoIB profile left on DHCP (the seeds' address lines lost
            // their values): standalone ibnm has no DHCP client and says so
            // rather than bringing the interface up without an address.
            bool dhcp = keyfile.find("type=infiniband") != std::string::npos &&
                        keyfile.find("[ipv4]\nmethod=auto\n") != std::string::npos;
            if (dhcp) {
                EXPECT_EQ(got.status, 4) << got.out << got.err; // nmcli's failed activation
                EXPECT_NE(got.err.find("ipv4.method"), std::string::npos) << got.err;
                EXPECT_NE(got.err.find("NetworkManager"), std::string::npos) << got.err;
                EXPECT_EQ(got.out.find("activated"), std::string::npos) << got.out;
            } else {
                EXPECT_EQ(got.status, 0) << got.out << got.err;
            }
            up++;
        } else {
            ADD_FAILURE() << "a seed command the test does not know how to judge";
        }
    }
    EXPECT_GT(ran, 10);
    EXPECT_GT(up, 0);
    RecordProperty("commands", ran);
    RecordProperty("failed_as_nmcli", failedAsNmcli);
}

} // namespace
