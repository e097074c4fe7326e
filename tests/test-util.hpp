// SPDX-License-Identifier: LGPL-2.1-or-later
// Small helpers shared by the tests.
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/stat.h>

#include "libcore/ibnm-apply.h"

namespace ibnm::test {

// An apply's report (ibnm_apply_up() and the others return it, transfer
// full, whatever happened) in the form of a call with a report and an error
// out: TRUE on success; *report (optional) when the apply started, *error
// its failure. For the tests of what an apply does; the report's own API
// is tested in tests/activation/apply-api-test.cpp.
inline gboolean applied(IbnmApplyReport *result, IbnmApplyReport **report, GError **error)
{
    gboolean ok = ibnm_apply_report_propagate_error(result, error);
    if (report && ibnm_apply_report_get_started(result))
        *report = result;
    else
        g_object_unref(result);
    return ok;
}

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
// The program's path in PATH, or "" (GLib's lookup, freed here).
inline std::string findProgram(const char *name)
{
    char *p = g_find_program_in_path(name);
    std::string s = p ? p : "";
    g_free(p);
    return s;
}

inline bool labsRequired()
{
    const char *v = g_getenv("IBNM_REQUIRE_LABS");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
}

} // namespace ibnm::test

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
