// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers shared by the settings tests.
#pragma once

#include "tests/test-util.hpp"

#include <NetworkManager.h>
#include <gio/gio.h>
#include <glib.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace ibnm::test {

// ../shared (conformance data, labs): $IBNM_SHARED_DIR, else the default
// passed in by Makefile.am. nullopt when it does not exist.
inline std::optional<std::string> sharedDir()
{
    const char *env = g_getenv("IBNM_SHARED_DIR");
    std::string dir = env && *env ? env : IBNM_SHARED_DIR_DEFAULT;
    if (!g_file_test(dir.c_str(), G_FILE_TEST_IS_DIR))
        return std::nullopt;
    return dir;
}

inline std::string readFile(const std::string &path)
{
    char *contents = nullptr;
    gsize len = 0;
    if (!g_file_get_contents(path.c_str(), &contents, &len, nullptr))
        return {};
    std::string s(contents, len);
    g_free(contents);
    return s;
}

struct RunResult {
    int status = -1; // exit status, -1 if it could not run
    std::string out;
    std::string err;
};

// Runs argv (searching PATH), feeding `input` on stdin.
inline RunResult run(const std::vector<std::string> &argv, const std::string &input = {})
{
    std::vector<const char *> args;
    for (const auto &a : argv)
        args.push_back(a.c_str());
    args.push_back(nullptr);
    RunResult r;
    GError *err = nullptr;
    GSubprocess *p = g_subprocess_newv(
        args.data(),
        GSubprocessFlags(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                         G_SUBPROCESS_FLAGS_STDERR_PIPE),
        &err);
    if (p == nullptr) {
        r.err = err->message;
        g_error_free(err);
        return r;
    }
    GBytes *in = g_bytes_new(input.data(), input.size());
    GBytes *out = nullptr, *errb = nullptr;
    if (g_subprocess_communicate(p, in, nullptr, &out, &errb, &err)) {
        gsize n = 0;
        const char *d = static_cast<const char *>(g_bytes_get_data(out, &n));
        r.out.assign(d ? d : "", n);
        d = static_cast<const char *>(g_bytes_get_data(errb, &n));
        r.err.assign(d ? d : "", n);
        r.status = g_subprocess_get_if_exited(p) ? g_subprocess_get_exit_status(p) : -1;
    } else {
        r.err = err->message;
        g_error_free(err);
    }
    if (out)
        g_bytes_unref(out);
    if (errb)
        g_bytes_unref(errb);
    g_bytes_unref(in);
    g_object_unref(p);
    return r;
}

inline bool haveProgram(const char *name)
{
    return !ibnm::test::findProgram(name).empty();
}

// A new connection with a [connection] setting.
inline NMConnection *newConnection(const char *id, const char *uuid, const char *type, const char *ifname)
{
    NMConnection *c = nm_simple_connection_new();
    NMSetting *s_con = nm_setting_connection_new();
    g_object_set(s_con, NM_SETTING_CONNECTION_ID, id, NM_SETTING_CONNECTION_UUID, uuid, NM_SETTING_CONNECTION_TYPE,
                 type, NM_SETTING_CONNECTION_INTERFACE_NAME, ifname, nullptr);
    nm_connection_add_setting(c, s_con);
    return c;
}

inline NMSettingInfiniband *addInfiniband(NMConnection *c, const char *mode)
{
    NMSetting *s = nm_setting_infiniband_new();
    g_object_set(s, NM_SETTING_INFINIBAND_TRANSPORT_MODE, mode, nullptr);
    nm_connection_add_setting(c, s);
    return NM_SETTING_INFINIBAND(s);
}

inline void setUserData(NMConnection *c, const char *key, const char *value)
{
    auto *s = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    if (s == nullptr) {
        s = NM_SETTING_USER(nm_setting_user_new());
        nm_connection_add_setting(c, NM_SETTING(s));
    }
    GError *err = nullptr;
    EXPECT_TRUE(nm_setting_user_set_data(s, key, value, &err)) << (err ? err->message : "");
    g_clear_error(&err);
}

inline const char *userData(NMConnection *c, const char *key)
{
    auto *s = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    return s ? nm_setting_user_get_data(s, key) : nullptr;
}

} // namespace ibnm::test
