// SPDX-License-Identifier: LGPL-2.1-or-later
// Small helpers shared by the tests.
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include <sys/stat.h>

namespace ibnm::test {

// A temporary directory removed (recursively) at the end of the test.
class TempDir {
public:
    TempDir()
    {
        GError *err = nullptr;
        char *p = g_dir_make_tmp("ibnm-test-XXXXXX", &err);
        if (p == nullptr) {
            ADD_FAILURE() << "g_dir_make_tmp: " << err->message;
            g_error_free(err);
            return;
        }
        path_ = p;
        g_free(p);
    }
    ~TempDir()
    {
        if (!path_.empty())
            removeTree(path_);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;

    const std::string &path() const { return path_; }
    std::string operator/(const std::string &rel) const { return path_ + "/" + rel; }

    // Writes `content` to path()/rel, creating parent directories.
    void write(const std::string &rel, const std::string &content) const
    {
        std::string full = *this / rel;
        char *dir = g_path_get_dirname(full.c_str());
        g_mkdir_with_parents(dir, 0755);
        g_free(dir);
        std::ofstream(full, std::ios::binary) << content;
    }
    void mkdir(const std::string &rel) const { g_mkdir_with_parents((*this / rel).c_str(), 0755); }

private:
    static void removeTree(const std::string &p)
    {
        if (g_file_test(p.c_str(), G_FILE_TEST_IS_DIR) && !g_file_test(p.c_str(), G_FILE_TEST_IS_SYMLINK)) {
            if (GDir *d = g_dir_open(p.c_str(), 0, nullptr)) {
                while (const char *name = g_dir_read_name(d))
                    removeTree(p + "/" + name);
                g_dir_close(d);
            }
            g_rmdir(p.c_str());
        } else {
            g_unlink(p.c_str());
        }
    }
    std::string path_;
};

inline std::string srcPath(const std::string &rel)
{
    return std::string(IBNM_TOP_SRCDIR) + "/" + rel;
}

// True when a missing lab must fail rather than skip: CI sets
// IBNM_REQUIRE_LABS=1 (.ci/run), where the labs are meant to run.
inline bool labsRequired()
{
    const char *v = g_getenv("IBNM_REQUIRE_LABS");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
}

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

// Skips the test for a missing lab, or fails it where labs are required.
#define IBNM_LAB_SKIP(reason)                                                                                          \
    do {                                                                                                               \
        if (::ibnm::test::labsRequired())                                                                              \
            FAIL() << "IBNM_REQUIRE_LABS is set, but: " << (reason);                                                   \
        GTEST_SKIP() << (reason);                                                                                      \
    } while (0)

// AddressSanitizer refuses dlopen() with RTLD_DEEPBIND and aborts the
// process; libnm loads libjansson that way the first time it parses JSON (a
// team or team-port config). Under --enable-sanitizers such a test is
// skipped, saying so; the plain build (make check, CI's main job) runs it.
#if defined(__SANITIZE_ADDRESS__)
#define IBNM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IBNM_TEST_ASAN 1
#endif
#endif
#ifndef IBNM_TEST_ASAN
#define IBNM_TEST_ASAN 0
#endif
#define IBNM_SKIP_IF_LIBNM_LOADS_JANSSON()                                                                           \
    do {                                                                                                               \
        if (IBNM_TEST_ASAN)                                                                                            \
            GTEST_SKIP() << "libnm would dlopen libjansson with RTLD_DEEPBIND, which AddressSanitizer refuses; "     \
                            "this test runs in the build without sanitizers";                                        \
    } while (0)
