// SPDX-License-Identifier: LGPL-2.1-or-later
// The /etc policy files (memlock limits, udev rules), written by settings
// under a root directory: "/" on this machine, the state directory's root/
// on a simulated host (never the real /etc), none for a sysfs tree.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"

#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/profiles/host-files.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/support/file-lock.hpp"
#include "libcore/support/raii.hpp"
#include "settings/host-files.hpp"
#include "tests/test-util.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

using namespace ibnm;
using ibnm::settings::HostFiles;

namespace {

constexpr IbnmHostFiles kBoth = IbnmHostFiles(IBNM_HOST_FILES_MEMLOCK_POLICY | IBNM_HOST_FILES_UDEV_RULES);

GObjectPtr<NMConnection> ipoibPort(const char *ifname, const char *mac)
{
    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    NMSetting *s = nm_setting_connection_new();
    g_object_set(s, NM_SETTING_CONNECTION_ID, ifname, NM_SETTING_CONNECTION_UUID,
                 "1d1c4f0e-7b2a-4c55-9a43-8f2b0f6f0a01", NM_SETTING_CONNECTION_TYPE,
                 NM_SETTING_INFINIBAND_SETTING_NAME, NM_SETTING_CONNECTION_INTERFACE_NAME, ifname, nullptr);
    nm_connection_add_setting(c.get(), s);
    NMSetting *ib = nm_setting_infiniband_new();
    g_object_set(ib, NM_SETTING_INFINIBAND_MAC_ADDRESS, mac, nullptr);
    nm_connection_add_setting(c.get(), ib);
    return c;
}

const char *const kMac = "80:00:02:08:FE:80:00:00:00:00:00:00:00:02:C9:03:00:31:78:51";

std::string slurp(const std::string &path)
{
    GCharPtr text;
    if (!g_file_get_contents(path.c_str(), outPtr(text), nullptr, nullptr))
        return "(absent)";
    return text.get();
}

// The simulated host of ethernet-only.host with its state in `dir`/state.
GObjectPtr<IbnmHost> simulatedHost(const test::TempDir &dir)
{
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
        test::srcPath("examples/hosts/ethernet-only.host").c_str(), (dir / "state").c_str(), outPtr(err)));
    EXPECT_TRUE(host) << err->message;
    return host;
}

struct LockedRun {
    bool waited = false; // still running when the lock was released
    bool ok = false;
    std::string message; // its error's
};

// Runs `apply` (an ibnm_apply_*() call) in a thread while the test holds the
// activation lock of the simulated host in `dir` (as another ibnm process
// would), runs `whileHeld`, releases the lock and waits for `apply`: whether
// it was waiting for the lock, and its result. The lock is held 300 ms, or
// with `untilDone` until `apply` returns (up to 10 s: a call that does not
// need the lock finishes while it is held, however slow the machine).
LockedRun whileLocked(const test::TempDir &dir, const std::function<bool(GError **)> &apply,
                      const std::function<void()> &whileHeld = {}, bool untilDone = false)
{
    LockedRun run;
    auto held = lockFileExclusive(dir / "state/activations.lock", kLockWaitForever, "the activation lock");
    EXPECT_TRUE(held.ok()) << held.error().toString();
    if (!held.ok())
        return run;
    UniqueFd lock = std::move(held).value();
    std::atomic<bool> done{false};
    std::thread t([&] {
        GErrorPtr e;
        run.ok = apply(outPtr(e));
        if (e)
            run.message = e->message;
        done = true;
    });
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(untilDone ? 10000 : 300);
    do
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    while (untilDone && !done && std::chrono::steady_clock::now() < until);
    if (!untilDone)
        std::this_thread::sleep_until(until);
    run.waited = !done;
    if (whileHeld)
        whileHeld();
    lock = UniqueFd(); // released
    t.join();
    return run;
}

} // namespace

// Each file only when asked for (`udev-rules write` writes no memlock
// policy, `rdma memlock write` no udev rules).
TEST(HostFiles, EachFileOnlyWhenAskedFor)
{
    platform::FakePlatform fake{platform::FakeState{}};
    auto c = ipoibPort("mlx4_ib0", kMac);
    std::vector<NMConnection *> v{c.get()};
    for (IbnmHostFiles which : {IBNM_HOST_FILES_UDEV_RULES, IBNM_HOST_FILES_MEMLOCK_POLICY}) {
        test::TempDir root;
        activation::Report r = settings::writeHostFiles(fake, HostFiles(root.path(), true), which, v, {});
        ASSERT_TRUE(r.ok) << r.error;
        ASSERT_EQ(r.steps.size(), 1u);
        bool udev = which == IBNM_HOST_FILES_UDEV_RULES;
        EXPECT_EQ(r.steps[0].object, udev ? hostfiles::kUdevRulesPath : hostfiles::kMemlockPolicyPath);
        EXPECT_EQ(g_file_test((root / "etc/udev/rules.d/70-ibnm-persistent-ipoib.rules").c_str(), G_FILE_TEST_EXISTS),
                  udev);
        EXPECT_EQ(g_file_test((root / "etc/security/limits.d/90-ibnm-rdma-memlock.conf").c_str(), G_FILE_TEST_EXISTS),
                  !udev);
    }
}

// Written once (nothing the second time), and a failure writing the second
// file undoes the first: the files are as before.
TEST(HostFiles, WrittenOnceAndRolledBack)
{
    test::TempDir root;
    HostFiles files(root.path(), true);
    platform::FakePlatform fake{platform::FakeState{}};
    auto c = ipoibPort("mlx4_ib0", kMac);
    std::vector<NMConnection *> v{c.get()};
    activation::Report r = settings::writeHostFiles(fake, files, kBoth, v, activation::Options{});
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].object, hostfiles::kMemlockPolicyPath) << "the report names the path on the host";
    std::string memlock = slurp(root / "etc/security/limits.d/90-ibnm-rdma-memlock.conf");
    EXPECT_NE(memlock.find("@rdma    hard    memlock    unlimited"), std::string::npos) << memlock;
    std::string rules = slurp(root / "etc/udev/rules.d/70-ibnm-persistent-ipoib.rules");
    EXPECT_NE(rules.find("ATTR{type}==\"32\", ATTR{address}==\"?*00:02:c9:03:00:31:78:51\", NAME=\"mlx4_ib0\""),
              std::string::npos)
        << rules;
    EXPECT_EQ(settings::writeHostFiles(fake, files, kBoth, v, activation::Options{}).operations, 0u);

    // The udev rules' directory cannot be made (etc/udev is a file): the
    // memlock policy written before it is removed again.
    test::TempDir broken;
    broken.write("etc/udev", "not a directory\n");
    HostFiles bad(broken.path(), true);
    activation::Report f = settings::writeHostFiles(fake, bad, kBoth, v, activation::Options{});
    EXPECT_FALSE(f.ok);
    EXPECT_TRUE(f.rolledBack) << f.error;
    EXPECT_NE(f.error.find("etc/udev"), std::string::npos) << f.error;
    EXPECT_FALSE(g_file_test((broken / "etc/security/limits.d/90-ibnm-rdma-memlock.conf").c_str(), G_FILE_TEST_EXISTS));

    // A dry run plans and writes nothing.
    test::TempDir fresh;
    activation::Options dry;
    dry.dryRun = true;
    activation::Report d = settings::writeHostFiles(fake, HostFiles(fresh.path(), true), kBoth, v, dry);
    EXPECT_EQ(d.steps.size(), 2u);
    EXPECT_EQ(d.operations, 0u);
    EXPECT_FALSE(g_file_test((fresh / "etc").c_str(), G_FILE_TEST_EXISTS));
}

// On this machine ("/" as root, here a directory standing for it) a file is
// replaced atomically with its mode, no temporary file is left, removing an
// absent file is done already, and a missing directory is reported, not made.
TEST(HostFiles, ReplacedAtomicallyWithTheirMode)
{
    test::TempDir root;
    HostFiles files(root.path(), false);
    EXPECT_EQ(files.locate("/etc/x"), root / "etc/x");
    EXPECT_EQ(HostFiles("/", false).locate("/etc/x"), "/etc/x");

    auto none = files.read("/rdma.conf");
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());

    root.write("rdma.conf", "old\n");
    auto st = files.write("/rdma.conf", "@rdma soft memlock unlimited\n", 0640);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    auto back = files.read("/rdma.conf");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->value_or(""), "@rdma soft memlock unlimited\n");
    struct stat sb;
    ASSERT_EQ(stat((root / "rdma.conf").c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 07777, 0640u);
    GDir *d = g_dir_open(root.path().c_str(), 0, nullptr);
    ASSERT_NE(d, nullptr);
    int entries = 0;
    while (g_dir_read_name(d))
        entries++;
    g_dir_close(d);
    EXPECT_EQ(entries, 1);

    ASSERT_TRUE(files.remove("/rdma.conf").ok());
    EXPECT_FALSE(g_file_test((root / "rdma.conf").c_str(), G_FILE_TEST_EXISTS));
    EXPECT_TRUE(files.remove("/rdma.conf").ok()) << "removing an absent file is done already";

    auto missingDir = files.write("/no/such/dir/file", "x", 0644);
    ASSERT_FALSE(missingDir.ok());
    EXPECT_NE(missingDir.error().toString().find("no/such/dir/file"), std::string::npos);
}

// A simulated host keeps its /etc files in its state directory, under
// root/; reset removes them with the rest of its state.
TEST(HostFiles, SimulatedHostWritesUnderItsStateDirectory)
{
    test::TempDir dir;
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
        test::srcPath("examples/hosts/ethernet-only.host").c_str(), (dir / "state").c_str(), outPtr(err)));
    ASSERT_TRUE(host) << err->message;
    auto files = HostFiles::forHost(host.get());
    ASSERT_TRUE(files.ok()) << files.error().toString();
    EXPECT_EQ(files->locate("/etc/x"), dir / "state/root/etc/x");

    auto c = ipoibPort("ib0", kMac);
    GPtrArrayPtr profiles(g_ptr_array_new());
    g_ptr_array_add(profiles.get(), c.get());
    IbnmApplyReport *raw = nullptr;
    gboolean ok = ibnm::test::applied(ibnm_apply_host_files(host.get(), kBoth, profiles.get(), IBNM_APPLY_FLAGS_NONE), &raw, outPtr(err));
    auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    ASSERT_TRUE(ok) << err->message;
    std::string rules = slurp(dir / "state/root/etc/udev/rules.d/70-ibnm-persistent-ipoib.rules");
    EXPECT_NE(rules.find("NAME=\"ib0\""), std::string::npos) << rules;

    ASSERT_TRUE(ibnm_simulator_reset(host.get(), outPtr(err))) << err->message;
    EXPECT_FALSE(g_file_test((dir / "state/root").c_str(), G_FILE_TEST_EXISTS));
    EXPECT_TRUE(g_file_test((dir / "state").c_str(), G_FILE_TEST_IS_DIR));
}

// Writing the files takes the host's activation lock, as an activation does:
// while another ibnm process holds it (here the lock file held by the test),
// nothing is read or written; once it is released the files are written.
TEST(HostFiles, WrittenUnderTheActivationLock)
{
    test::TempDir dir;
    auto host = simulatedHost(dir);
    ASSERT_TRUE(host);
    auto c = ipoibPort("ib0", kMac);
    const std::string rules = dir / "state/root/etc/udev/rules.d/70-ibnm-persistent-ipoib.rules";
    auto run = whileLocked(
        dir,
        [&](GError **e) {
            GPtrArrayPtr profiles(g_ptr_array_new());
            g_ptr_array_add(profiles.get(), c.get());
            return ibnm::test::applied(ibnm_apply_host_files(host.get(), kBoth, profiles.get(), IBNM_APPLY_FLAGS_NONE), nullptr, e);
        },
        [&] { EXPECT_FALSE(g_file_test(rules.c_str(), G_FILE_TEST_EXISTS)); });
    EXPECT_TRUE(run.waited) << "the files were written while another activation held the lock";
    EXPECT_TRUE(run.ok) << run.message;
    EXPECT_NE(slurp(rules).find("NAME=\"ib0\""), std::string::npos);
}

// Every apply shares that lock (ibnm::apply::underActivationLock()): with
// it held, ibnm_apply_up() waits as ibnm_apply_host_files() does, while a dry
// run of either, which changes nothing, answers at once.
TEST(HostFiles, DryRunsDoNotWaitForTheActivationLock)
{
    test::TempDir dir;
    auto host = simulatedHost(dir);
    ASSERT_TRUE(host);
    auto c = ipoibPort("ib0", kMac);
    GPtrArrayPtr profiles(g_ptr_array_new());
    g_ptr_array_add(profiles.get(), c.get());
    GPtrArrayPtr none(g_ptr_array_new());
    const std::string rules = dir / "state/root/etc/udev/rules.d/70-ibnm-persistent-ipoib.rules";

    auto files = whileLocked(dir, [&](GError **e) {
        IbnmApplyReport *raw = nullptr;
        bool ok = ibnm::test::applied(ibnm_apply_host_files(host.get(), kBoth, profiles.get(), IBNM_APPLY_FLAGS_DRY_RUN), &raw, e);
        auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
        return ok && report && ibnm_apply_report_get_success(report.get());
    }, {}, true);
    EXPECT_FALSE(files.waited) << "a dry run of ibnm_apply_host_files() waited for the activation lock";
    EXPECT_TRUE(files.ok) << files.message;
    EXPECT_FALSE(g_file_test(rules.c_str(), G_FILE_TEST_EXISTS)) << "a dry run wrote";

    auto dryUp = whileLocked(dir, [&](GError **e) {
        return ibnm::test::applied(ibnm_apply_up(host.get(), none.get(), none.get(), IBNM_APPLY_FLAGS_DRY_RUN), nullptr, e);
    }, {}, true);
    EXPECT_FALSE(dryUp.waited) << "a dry run of ibnm_apply_up() waited for the activation lock";
    EXPECT_TRUE(dryUp.ok) << dryUp.message;

    auto up = whileLocked(dir, [&](GError **e) {
        return ibnm::test::applied(ibnm_apply_up(host.get(), none.get(), none.get(), IBNM_APPLY_FLAGS_NONE), nullptr, e);
    });
    EXPECT_TRUE(up.waited) << "ibnm_apply_up() ran while another activation held the lock";
    EXPECT_TRUE(up.ok) << up.message;
}

// A sysfs tree read from files has no /etc to change: reading finds nothing,
// writing is refused naming the tree, and nothing is written anywhere.
TEST(HostFiles, SysfsTreeIsReadOnly)
{
    test::TempDir sys;
    sys.mkdir("class/net");
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(
        static_cast<IbnmHost *>(g_initable_new(IBNM_TYPE_HOST, nullptr, outPtr(err), IBNM_HOST_SYSFS_ROOT,
                                               sys.path().c_str(), nullptr)));
    ASSERT_TRUE(host) << err->message;
    auto files = HostFiles::forHost(host.get());
    ASSERT_TRUE(files.ok());
    auto read = files->read(hostfiles::kMemlockPolicyPath);
    ASSERT_TRUE(read.ok());
    EXPECT_FALSE(read->has_value());
    for (auto st : {files->write("/etc/x", "x\n", 0644), files->remove("/etc/x")}) {
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_SUPPORTED);
        EXPECT_NE(st.error().toString().find(sys.path()), std::string::npos) << st.error().toString();
    }
    // The API says so for a dry run as for a run, keeping the code: the
    // files cannot be written there.
    for (IbnmApplyFlags flags : {IBNM_APPLY_FLAGS_DRY_RUN, IBNM_APPLY_FLAGS_NONE}) {
        IbnmApplyReport *raw = nullptr;
        GErrorPtr e;
        EXPECT_FALSE(ibnm::test::applied(ibnm_apply_host_files(host.get(), kBoth, nullptr, flags), &raw, outPtr(e)));
        auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
        ASSERT_TRUE(e);
        EXPECT_TRUE(g_error_matches(e.get(), IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED)) << e->message;
        ASSERT_TRUE(report);
        EXPECT_FALSE(ibnm_apply_report_get_success(report.get()));
        EXPECT_EQ(ibnm_apply_report_get_operations(report.get()), 0u);
    }
}
