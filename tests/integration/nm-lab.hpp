// SPDX-License-Identifier: LGPL-2.1-or-later
// One instance of the NM lab (../shared/labs/nm: the real NetworkManager
// 1.42 with its own D-Bus in a private network namespace) for a test suite,
// and running programs against it. A suite derives its fixture from
// NmLabSuite; every test skips (or, with IBNM_REQUIRE_LABS, fails) when the
// lab is absent or cannot start.
#pragma once

#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace ibnm::test {

struct Spawned {
    int status = -1;
    std::string out, err;
    bool ok() const { return status == 0; }
    // The exit status, or -1 when the program did not exit.
    int exitStatus() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

inline Spawned spawn(const std::vector<std::string> &args, const char *const *envp = nullptr)
{
    std::vector<char *> argv;
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    GCharPtr out, err;
    Spawned r;
    GErrorPtr e;
    if (!g_spawn_sync(nullptr, argv.data(), const_cast<char **>(envp), G_SPAWN_SEARCH_PATH, nullptr, nullptr,
                      outPtr(out), outPtr(err), &r.status, outPtr(e))) {
        r.err = e->message;
        return r;
    }
    r.out = out ? out.get() : "";
    r.err = err ? err.get() : "";
    return r;
}

inline std::string sharedDir()
{
    const char *env = g_getenv("IBNM_SHARED_DIR");
    return env ? env : std::string(IBNM_TOP_SRCDIR) + "/../shared";
}

class NmLabSuite : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        lab_ = sharedDir() + "/labs/nm/nm-lab";
        if (!g_file_test(lab_.c_str(), G_FILE_TEST_IS_EXECUTABLE)) {
            skip_ = "the NM lab is not here (" + lab_ + "); CI runs this test";
            return;
        }
        if (geteuid() != 0) {
            skip_ = "the NM lab needs root";
            return;
        }
        dir_ = new TempDir();
        Spawned s = spawn({lab_, "start", dir_->path()});
        if (!s.ok()) {
            skip_ = "the NM lab did not start: " + s.err;
            return;
        }
        // "export DBUS_SYSTEM_BUS_ADDRESS=unix:path=..."
        auto pos = s.out.find("DBUS_SYSTEM_BUS_ADDRESS=");
        if (pos == std::string::npos) {
            skip_ = "unexpected nm-lab output: " + s.out;
            return;
        }
        std::string addr = s.out.substr(pos + 24);
        addr = addr.substr(0, addr.find_first_of("\n"));
        if (!addr.empty() && (addr.front() == '\'' || addr.front() == '"'))
            addr = addr.substr(1, addr.size() - 2);
        g_setenv("DBUS_SYSTEM_BUS_ADDRESS", addr.c_str(), TRUE);
        started_ = true;
    }

    static void TearDownTestSuite()
    {
        if (started_)
            spawn({lab_, "stop", dir_->path()});
        g_unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        delete dir_;
        dir_ = nullptr;
        started_ = false;
    }

    void SetUp() override
    {
        if (!skip_.empty())
            IBNM_LAB_SKIP(skip_);
    }

    // A command inside the lab's network and mount namespaces.
    static Spawned labExec(std::vector<std::string> cmd)
    {
        cmd.insert(cmd.begin(), {lab_, "exec", dir_->path()});
        return spawn(cmd);
    }

    static inline std::string lab_;
    static inline std::string skip_;
    static inline TempDir *dir_ = nullptr;
    static inline bool started_ = false;
};

} // namespace ibnm::test
