// SPDX-License-Identifier: LGPL-2.1-or-later
// The nmcli the differential tests compare ibnm with: nmcli 1.42, the
// version whose grammar ibnm follows (docs/differences-from-nmcli.md).
#pragma once

#include <glib.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace ibnm::test {

// The nmcli whose grammar ibnm follows (docs/differences-from-nmcli.md,
// ibnm(1)): the differential tests compare with this version only.
inline constexpr const char *kNmcliGrammarVersion = "1.42";

// The nmcli a test may use as its oracle: its path when `nmcli --version`
// is 1.42.x, else "" and `why` says why not (not installed, or another
// version, whose grammar and keyfiles differ). Asked once per process.
inline std::string nmcliOracle(std::string *why = nullptr)
{
    static const std::pair<std::string, std::string> found = []() -> std::pair<std::string, std::string> {
        char *p = g_find_program_in_path("nmcli");
        if (p == nullptr)
            return {"", std::string("nmcli is not installed (Debian: network-manager); this test compares with nmcli ") +
                            kNmcliGrammarVersion};
        std::string path = p;
        g_free(p);
        const char *argv[] = {path.c_str(), "--version", nullptr};
        char *out = nullptr;
        int status = -1;
        if (!g_spawn_sync(nullptr, const_cast<char **>(argv), nullptr, G_SPAWN_STDERR_TO_DEV_NULL, nullptr, nullptr,
                          &out, nullptr, &status, nullptr))
            return {"", path + " --version did not run"};
        // "nmcli tool, version 1.42.4"
        std::string text = out ? out : "";
        g_free(out);
        size_t at = text.rfind("version ");
        std::string version = at == std::string::npos ? "" : text.substr(at + 8);
        version = version.substr(0, version.find_first_of(" \n"));
        if (version.rfind(std::string(kNmcliGrammarVersion) + ".", 0) != 0)
            return {"", "nmcli " + (version.empty() ? std::string("of unknown version") : version) +
                            " is installed; ibnm follows the grammar of nmcli " + kNmcliGrammarVersion +
                            ", so this comparison needs nmcli " + kNmcliGrammarVersion + ".x"};
        return {path, ""};
    }();
    if (why)
        *why = found.second;
    return found.first;
}

} // namespace ibnm::test

// Declares `var`, the path of the nmcli 1.42 that serves as the oracle, or
// skips the test saying why there is none (ibnm::test::nmcliOracle()).
#define IBNM_NMCLI_ORACLE_OR_SKIP(var)                                                                                 \
    std::string var##Why_;                                                                                             \
    std::string var = ::ibnm::test::nmcliOracle(&var##Why_);                                                           \
    if (var.empty())                                                                                                   \
    GTEST_SKIP() << var##Why_
