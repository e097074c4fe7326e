// SPDX-License-Identifier: LGPL-2.1-or-later
// Usage as nmcli gives it: a bad word is one line ending in "Try passing
// --help instead." (exit 2), with "Did you mean" where one word is close;
// --help lists every command of every group.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using ibnm::test::Cli;
using ibnm::test::Result;

TEST(CliUsage, ErrorsAreOneLineAsNmcliWithTheWordMeant)
{
    Cli cli;
    // A property word that names nothing: nmcli's line, no usage (nmcli 1.42
    // prints "Error: invalid <setting>.<property> 'frobnicate'." alone).
    Result r = cli.run({"connection", "add", "type", "infiniband", "frobnicate", "1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: invalid <setting>.<property> 'frobnicate'.\n");
    // A word that names no command: nmcli's "Try passing --help instead.".
    r = cli.run({"connection", "frob"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: argument 'frob' not understood. Try passing --help instead.\n");
    r = cli.run({"frob"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: argument 'frob' not understood. Try passing --help instead.\n");
    // One word close to a command: said so, on the same line.
    r = cli.run({"conection", "show"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: argument 'conection' not understood. Did you mean 'connection'? Try passing --help "
                     "instead.\n");
    r = cli.run({"rdma", "gdi", "show"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: argument 'gdi' not understood. Did you mean 'gid'? Try passing --help instead.\n");
    r = cli.run({"connection", "modfiy", "x", "mtu", "2044"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("Did you mean 'modify'?"), std::string::npos) << r.err;
    // An unknown global option: nmcli's text, with the option meant.
    r = cli.run({"--bogus", "connection"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: Option '--bogus' is unknown, try 'ibnm --help'.\n");
    r = cli.run({"--dry-rn", "connection"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: Option '--dry-rn' is unknown. Did you mean '--dry-run'? Try 'ibnm --help'.\n");
    // Other usage errors: one line too.
    r = cli.run({"connection", "modify"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("Try passing --help instead."), std::string::npos) << r.err;
    r = cli.run({"connection", "add"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Error: 'type' argument is required.\n"); // nmcli's line
    // --help still prints the usage, on stdout.
    r = cli.run({"connection", "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Usage: ibnm connection"), std::string::npos) << r.out;
}

TEST(CliUsage, HelpListsEveryCommandOfEveryGroup)
{
    Cli cli;
    Result top = cli.run({"--help"});
    ASSERT_EQ(top.status, 0) << top.err;
    // Each group's own help names its commands (COMMAND := { a | b | ... });
    // the top help lists each as "GROUP ... WORD".
    for (const char *group : {"connection", "device", "rdma"}) {
        Result r = cli.run({group, "help"});
        ASSERT_EQ(r.status, 0) << group;
        auto at = r.out.find("COMMAND := {");
        ASSERT_NE(at, std::string::npos) << r.out;
        std::string list = r.out.substr(at + 12, r.out.find('}', at) - at - 12);
        std::istringstream words(list);
        std::string w;
        int n = 0;
        while (words >> w) {
            if (w == "|")
                continue;
            n++;
            bool listed = false;
            for (size_t p = top.out.find(std::string("  ") + group + " "); p != std::string::npos && !listed;
                 p = top.out.find(std::string("  ") + group + " ", p + 1)) {
                // The line's words, split at blanks, '|' and brackets.
                std::string line = top.out.substr(p, top.out.find('\n', p) - p);
                for (char &c : line)
                    if (c == '|' || c == '[' || c == ']')
                        c = ' ';
                std::istringstream lineWords(line);
                std::string lw;
                while (!listed && lineWords >> lw)
                    listed = lw == w;
            }
            EXPECT_TRUE(listed) << group << " " << w << " is not in ibnm --help:\n" << top.out;
        }
        EXPECT_GT(n, 2) << group;
    }
    // What the issue found missing, each with its argument.
    for (const char *s : {"rdma traffic-class", "rdma roce-enable", "rdma ttl", "device dhcp-reservations",
                          "check [--opensm]", "udev-rules [write]", "rdma memlock [write]", "show-state", "apply"})
        EXPECT_NE(top.out.find(s), std::string::npos) << s;
}

// "Try passing --help instead." is a promise: each command without
// subcommands answers --help, -h and help with its own lines of
// `ibnm --help` on stdout, exit 0, and does nothing else (`apply --help`
// once tried to open a file named --help).
TEST(CliUsage, EveryCommandAnswersHelp)
{
    Cli cli;
    for (const std::string command : {"check", "apply", "show-state", "udev-rules", "version"})
        for (const std::string word : {"--help", "-h", "help"}) {
            Result r = cli.run({command, word});
            EXPECT_EQ(r.status, 0) << command << " " << word << ": " << r.err;
            EXPECT_EQ(r.err, "") << command << " " << word;
            EXPECT_EQ(r.out.rfind("Usage:\n  ibnm " + command, 0), 0u) << command << " " << word << ": " << r.out;
        }
    Result r = cli.run({"apply", "--help"});
    EXPECT_NE(r.out.find("ibnm apply FILE|-"), std::string::npos) << r.out;
}
