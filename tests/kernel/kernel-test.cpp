// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform against a real kernel: runs INSIDE the kernel lab's
// guest (Debian's 6.1 kernel under qemu; `make check-kernel`), where rxe,
// siw, configfs rdma_cm, bonding, 8021q and dummy/veth are real. The typed
// platform contract runs here for everything this kernel can do; IPoIB needs
// InfiniBand hardware, so only the kernel's refusal is checked.
//
// Outside the guest every test skips: the binary would otherwise change the
// host's network.
#include "config.h"

#include "libcore/model/rdma.hpp"
#include "libcore/platform/linux/linux-platform.hpp"
#include "tests/platform/contract.hpp"

#include <gtest/gtest.h>
#include <libkmod.h>

#include <cerrno>
#include <memory>
#include <set>
#include <tuple>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace ibnm::platform;
using ibnm::model::GidType;
using ibnm::model::SoftLinkType;

bool inLab()
{
    // The lab's init runs the job as /klab/run.
    return g_file_test("/klab/run", G_FILE_TEST_EXISTS);
}

// Runs a shell command in the guest; true when it exits 0. The guest's /bin/sh
// is busybox, whose own `ip` applet knows no veth peers: name iproute2's.
bool sh(const std::string &command)
{
    const char *argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    gint status = 0;
    GError *err = nullptr;
    if (!g_spawn_sync(nullptr, const_cast<char **>(argv), nullptr, G_SPAWN_DEFAULT, nullptr, nullptr, nullptr,
                      nullptr, &status, &err)) {
        g_error_free(err);
        return false;
    }
    return g_spawn_check_wait_status(status, nullptr);
}

// Outside the guest only the skipping test runs. GoogleTest's flags are
// initialised statically too, in an unspecified order relative to this: set
// both the flag and the environment variable it is initialised from.
const bool kOnlyOutsideTheLab = [] {
    if (!inLab()) {
        g_setenv("GTEST_FILTER", "KernelLab.SkipsOutsideTheGuest", TRUE);
        ::testing::GTEST_FLAG(filter) = "KernelLab.SkipsOutsideTheGuest";
    }
    return true;
}();

class LabEnvironment : public ::testing::Environment {
public:
    void SetUp() override
    {
        if (!inLab())
            return;
        for (const char *m : {"configfs", "dummy", "veth", "bonding", "8021q", "ib_core", "ib_uverbs", "rdma_ucm",
                              "rdma_rxe", "siw", "ib_ipoib"})
            sh(std::string("modprobe ") + m);
        // keep_addr_on_down stays at the kernel's default (0): a link that
        // goes down loses its IPv6 addresses, which the platform contract
        // (MtuUpAndAddresses) and the simulated host both state.
        g_mkdir_with_parents("/sys/kernel/config", 0755);
        if (::mount("none", "/sys/kernel/config", "configfs", 0, nullptr) != 0 && errno != EBUSY)
            ADD_FAILURE() << "mount configfs: " << g_strerror(errno);
    }
};

const auto *const kEnvironment = ::testing::AddGlobalTestEnvironment(new LabEnvironment);

struct LinuxLabFactory {
    static std::unique_ptr<Platform> make() { return createLinuxPlatform(LinuxOptions{}); }
    static std::string makeEthernet(Platform &, const std::string &name)
    {
        return sh("/usr/sbin/ip link add " + name + " type dummy") ? name : std::string();
    }
    static bool canIpoib() { return false; }
    static std::string ipoibParent() { return {}; }
    static std::string enhancedIpoibParent() { return {}; }
};

} // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Linux, PlatformContract, ::testing::Types<LinuxLabFactory>);

namespace {

TEST(KernelLab, SkipsOutsideTheGuest)
{
    if (!inLab())
        GTEST_SKIP() << "not inside the kernel lab guest: run `make check-kernel`";
    SUCCEED();
}

// Deletes what a test created, in reverse.
class LabTest : public ::testing::Test {
protected:
    void TearDown() override
    {
        for (auto it = softLinks_.rbegin(); it != softLinks_.rend(); ++it)
            (void)p_->deleteSoftLink(*it);
        for (auto it = links_.rbegin(); it != links_.rend(); ++it)
            (void)p_->deleteLink(*it);
    }
    std::string dummy(const std::string &name, const std::string &cidr = "")
    {
        EXPECT_TRUE(sh("/usr/sbin/ip link add " + name + " type dummy")) << name;
        links_.push_back(name);
        EXPECT_TRUE(p_->setUp(name, true).ok());
        if (!cidr.empty()) {
            auto st = p_->addAddress(name, cidr);
            EXPECT_TRUE(st.ok()) << st.error().toString();
        }
        return name;
    }
    std::unique_ptr<Platform> p_ = createLinuxPlatform(LinuxOptions{});
    std::vector<std::string> softLinks_;
    std::vector<std::string> links_;
};

using KernelLabLinux = LabTest;

// rxe over a dummy with a VLAN child: readHost sees the device, its port and
// the RoCE v2 GIDs of both netdevs, the same through verbs
// (ibv_query_gid_table) as through sysfs, and the netdev <-> port map.
TEST_F(KernelLabLinux, RxeOverAVlanGidsFromVerbsMatchSysfs)
{
    namespace c = ibnm::test::contract;
    dummy("kdum0", "192.0.2.20/24");
    ASSERT_TRUE(sh("/usr/sbin/ip link add link kdum0 name kdum0.5 type vlan id 5"));
    links_.push_back("kdum0.5");
    ASSERT_TRUE(p_->setUp("kdum0.5", true).ok());
    auto st = p_->addSoftLink("krxe0", SoftLinkType::Rxe, "kdum0");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    softLinks_.push_back("krxe0");
    auto v = p_->addAddress("kdum0.5", "198.51.100.20/24");
    ASSERT_TRUE(v.ok()) << v.error().toString();

    auto verbs = p_->readHost();
    ASSERT_TRUE(verbs.ok()) << verbs.error().toString();
    LinuxOptions noVerbs;
    noVerbs.useVerbs = false;
    auto viaSysfs = createLinuxPlatform(noVerbs)->readHost();
    ASSERT_TRUE(viaSysfs.ok()) << viaSysfs.error().toString();

    const auto *dv = verbs->findDevice("krxe0");
    const auto *ds = viaSysfs->findDevice("krxe0");
    ASSERT_NE(dv, nullptr);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(dv->driver, "rdma_rxe");
    EXPECT_EQ(dv->nodeType, "1: CA");
    ASSERT_EQ(dv->ports.size(), 1u);
    const auto &pv = dv->ports[0];
    // rxe: active MTU from the netdev's 1500 is 1024; max 4096.
    EXPECT_EQ(pv.activeMtu, std::optional<unsigned>(1024));
    EXPECT_EQ(pv.maxMtu, std::optional<unsigned>(4096));
    EXPECT_FALSE(ds->ports[0].activeMtu.has_value()) << "sysfs has no MTU";

    auto key = [](const ibnm::model::Port &p) {
        std::set<std::tuple<unsigned, std::string, int, std::string>> s;
        for (const auto &g : p.gids)
            s.emplace(g.index, g.gid, static_cast<int>(g.type), g.netdev);
        return s;
    };
    EXPECT_EQ(key(pv), key(ds->ports[0]));
    const auto *nd = verbs->findNetdev("kdum0");
    ASSERT_NE(nd, nullptr);
    EXPECT_NE(c::findGid(pv, c::linkLocalGid(nd->address), GidType::RoceV2), nullptr);
    const auto *g4 = c::findGid(pv, c::ipv4MappedGid("192.0.2.20"), GidType::RoceV2);
    ASSERT_NE(g4, nullptr);
    EXPECT_EQ(g4->netdev, "kdum0");
    const auto *g5 = c::findGid(pv, c::ipv4MappedGid("198.51.100.20"), GidType::RoceV2);
    ASSERT_NE(g5, nullptr);
    EXPECT_EQ(g5->netdev, "kdum0.5");

    EXPECT_EQ(nd->rdmaDevice, "krxe0");
    EXPECT_EQ(nd->rdmaPort, 1u);
    const auto *vlan = verbs->findNetdev("kdum0.5");
    ASSERT_NE(vlan, nullptr);
    EXPECT_EQ(vlan->kind, "vlan");
    EXPECT_EQ(vlan->rdmaDevice, "krxe0");
    EXPECT_TRUE(ibnm::contains(vlan->addresses, "198.51.100.20/24"));

    // GID-index advice on Debian's kernel: the RoCE v2 entry of the
    // netdev's IPv4 address, and of the VLAN's when asked for it.
    EXPECT_EQ(ibnm::model::gidIndexFor(pv, GidType::RoceV2, false, ""), std::optional<unsigned>(g4->index));
    EXPECT_EQ(ibnm::model::gidIndexFor(pv, GidType::RoceV2, false, "kdum0.5"), std::optional<unsigned>(g5->index));
    EXPECT_FALSE(ibnm::model::gidIndexFor(pv, GidType::IbRoceV1, false, ""));
}

// siw over one end of a veth pair, created and deleted over RDMA netlink;
// readHost names the netdev from RDMA_NLDEV_CMD_PORT_GET (siw has no
// "parent" file and no GID ndevs).
TEST_F(KernelLabLinux, SiwOverVethCreatedAndDeleted)
{
    ASSERT_TRUE(sh("/usr/sbin/ip link add kveth0 type veth peer name kveth1"));
    links_.push_back("kveth0");
    for (const char *end : {"kveth0", "kveth1"}) {
        auto up = p_->setUp(end, true);
        ASSERT_TRUE(up.ok()) << up.error().toString();
    }
    auto st = p_->addSoftLink("ksiw0", SoftLinkType::Siw, "kveth0");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    const auto *link = h->findSoftLink("ksiw0");
    ASSERT_NE(link, nullptr);
    EXPECT_EQ(link->type, SoftLinkType::Siw);
    EXPECT_EQ(link->netdev, "kveth0");
    const auto *dev = h->findDevice("ksiw0");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->driver, "siw");
    EXPECT_EQ(h->findNetdev("kveth0")->rdmaDevice, "ksiw0");
    EXPECT_EQ(h->findNetdev("kveth0")->kind, "veth");

    auto del = p_->deleteSoftLink("ksiw0");
    ASSERT_TRUE(del.ok()) << del.error().toString();
    h = p_->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->findDevice("ksiw0"), nullptr);
    auto again = p_->deleteSoftLink("ksiw0");
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code(), IBNM_ERROR_NOT_FOUND);
}

// The RoCE mode RDMA-CM uses before anyone wrote configfs (what
// `cma_roce_mode -d DEV -p 1` prints: it makes the directory and reads it):
// model::kernelDefaultRoceMode against Debian's kernel, for rxe (RoCE v2)
// and siw (iWARP: "IB/RoCE v1"). readHost reports no configfs value before
// the directory exists, so the inventory shows the model's answer then.
TEST_F(KernelLabLinux, KernelDefaultRoceModeIsWhatConfigfsShows)
{
    dummy("kdum7", "192.0.2.70/24");
    ASSERT_TRUE(sh("/usr/sbin/ip link add kveth7 type veth peer name kveth8"));
    links_.push_back("kveth7");
    for (const char *end : {"kveth7", "kveth8"})
        ASSERT_TRUE(p_->setUp(end, true).ok());
    struct Case {
        const char *name;
        SoftLinkType type;
        const char *netdev;
    } cases[] = {{"krxe7", SoftLinkType::Rxe, "kdum7"}, {"ksiw7", SoftLinkType::Siw, "kveth7"}};
    for (const auto &c : cases) {
        auto st = p_->addSoftLink(c.name, c.type, c.netdev);
        ASSERT_TRUE(st.ok()) << st.error().toString();
        softLinks_.push_back(c.name);
        auto h = p_->readHost();
        ASSERT_TRUE(h.ok()) << h.error().toString();
        const auto *dev = h->findDevice(c.name);
        ASSERT_NE(dev, nullptr);
        ASSERT_FALSE(dev->ports.empty());
        EXPECT_FALSE(dev->ports[0].defaultRoceMode.has_value()) << c.name << ": no configfs directory yet";
        std::string dir = std::string("/sys/kernel/config/rdma_cm/") + c.name;
        ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0) << dir << ": " << g_strerror(errno);
        char *text = nullptr;
        bool read = g_file_get_contents((dir + "/ports/1/default_roce_mode").c_str(), &text, nullptr, nullptr);
        std::string kernel = read ? g_strstrip(text) : "";
        g_free(text);
        ::rmdir(dir.c_str());
        ASSERT_TRUE(read) << dir;
        auto model = ibnm::model::kernelDefaultRoceMode(c.type, dev->ports[0].linkLayer);
        EXPECT_EQ(kernel, ibnm::model::roceModeName(model)) << c.name;
        // The GID-only read (`rdma gid show --for`) knows the port's link
        // layer too, through sysfs alone as through verbs.
        LinuxOptions noVerbs;
        noVerbs.useVerbs = false;
        for (auto *opts : {&noVerbs, static_cast<LinuxOptions *>(nullptr)}) {
            auto gids = opts ? createLinuxPlatform(*opts)->readGidTables() : p_->readGidTables();
            ASSERT_TRUE(gids.ok()) << gids.error().toString();
            const auto *g = gids->findDevice(c.name);
            ASSERT_NE(g, nullptr);
            EXPECT_EQ(g->ports.at(0).linkLayer, ibnm::model::LinkLayer::Ethernet) << c.name;
        }
    }
}

// ib_ipoib is loaded, but a dummy is no InfiniBand netdev: the kernel
// answers RTM_NEWLINK type ipoib with ENODEV, and nothing is created.
TEST_F(KernelLabLinux, IpoibChildIsRefusedWithENODEV)
{
    dummy("kdum0");
    auto before = p_->readHost();
    ASSERT_TRUE(before.ok());
    IpoibChildSpec spec;
    spec.parent = "kdum0";
    spec.pkey = 0x8001;
    spec.mode = ibnm::model::IpoibMode::Datagram;
    spec.umcast = false;
    auto r = p_->createIpoibChild(spec);
    ASSERT_FALSE(r.ok()) << "created " << r.value();
    EXPECT_EQ(r.error().errnum(), ENODEV) << r.error().toString();
    EXPECT_NE(r.error().toString().find("No such device"), std::string::npos) << r.error().toString();
    EXPECT_NE(r.error().toString().find("kdum0"), std::string::npos) << r.error().toString();
    auto after = p_->readHost();
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->netdevs.size(), before->netdevs.size());
    EXPECT_TRUE(after->ipoib.empty());
}

TEST_F(KernelLabLinux, BondFailOverMacAndActivePort)
{
    dummy("kdum1");
    dummy("kdum2");
    BondSpec spec;
    spec.name = "kbond0";
    spec.miimon = 50;
    spec.primary = "kdum2";
    spec.failOverMac = "active";
    auto st = p_->createBond(spec);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    links_.push_back("kbond0");
    for (const char *port : {"kdum1", "kdum2"}) {
        auto en = p_->enslave(port, "kbond0");
        ASSERT_TRUE(en.ok()) << en.error().toString();
    }
    ASSERT_TRUE(p_->setUp("kbond0", true).ok());
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    const auto *b = h->findBond("kbond0");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->mode, "active-backup");
    EXPECT_EQ(b->miimon, 50u);
    EXPECT_EQ(b->failOverMac, "active");
    EXPECT_EQ(b->primary, "kdum2");
    EXPECT_EQ(b->activePort, "kdum2");
    EXPECT_EQ(h->findNetdev("kdum1")->master, "kbond0");

    // A bond option the kernel refuses names the file.
    BondSpec bad;
    bad.name = "kbond1";
    bad.mode = "no-such-mode";
    auto refused = p_->createBond(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().toString().find("kbond1/bonding/mode"), std::string::npos)
        << refused.error().toString();
    auto after = p_->readHost();
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->findNetdev("kbond1"), nullptr) << "the half-made bond is removed";
}

TEST_F(KernelLabLinux, ReadingAThousandGidSlotsIsFast)
{
    dummy("kdum0", "192.0.2.30/24");
    auto st = p_->addSoftLink("krxe1", SoftLinkType::Rxe, "kdum0");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    softLinks_.push_back("krxe1");
    LinuxOptions sysfsOnly;
    sysfsOnly.useVerbs = false;
    sysfsOnly.useNetlink = false;
    auto p = createLinuxPlatform(sysfsOnly);
    gint64 start = g_get_monotonic_time();
    auto h = p->readHost();
    gint64 us = g_get_monotonic_time() - start;
    ASSERT_TRUE(h.ok()) << h.error().toString();
    ASSERT_NE(h->findDevice("krxe1"), nullptr);
    EXPECT_GE(h->findDevice("krxe1")->ports[0].gids.size(), 2u);
    std::printf("readHost (sysfs only, rxe with 1024 GID slots, TCG guest): %lld us\n", static_cast<long long>(us));
    start = g_get_monotonic_time();
    auto hv = p_->readHost();
    us = g_get_monotonic_time() - start;
    ASSERT_TRUE(hv.ok());
    std::printf("readHost (sysfs + rtnetlink + RDMA netlink + verbs): %lld us\n", static_cast<long long>(us));
    // Under TCG one file read costs tens of microseconds; 1024 slots once
    // took ~15 s with a process per file.
    EXPECT_LT(us, 5000000);
}

} // namespace

namespace {

bool moduleLoaded(const char *name)
{
    return g_file_test((std::string("/sys/module/") + name).c_str(), G_FILE_TEST_IS_DIR);
}

} // namespace

// prepare() loads through libkmod what `rdma link add` and configfs rdma_cm
// need, on a kernel where nothing loaded them, and mounts configfs.
TEST_F(KernelLabLinux, PrepareLoadsModulesAndMountsConfigfs)
{
    // Unloaded first (the lab's environment modprobed everything). rdma_cm
    // stays: the configfs groups earlier tests made hold it; the end-to-end
    // test (tests/kernel/nm-e2e-guest.sh) boots with nothing loaded.
    ASSERT_TRUE(sh("umount /sys/kernel/config && rmmod siw"));
    ASSERT_FALSE(moduleLoaded("siw"));
    ASSERT_FALSE(g_file_test("/sys/kernel/config/rdma_cm", G_FILE_TEST_IS_DIR));

    // The library opens libkmod (libkmod2, on every Debian system) when it
    // loads a module; this binary links it so that the lab, which copies a
    // binary's ldd closure into the guest, has it too.
    std::unique_ptr<kmod_ctx, kmod_ctx *(*)(kmod_ctx *)> kmod(kmod_new(nullptr, nullptr), kmod_unref);
    ASSERT_TRUE(kmod);

    Prerequisites needs;
    needs.softLinkDrivers = {SoftLinkType::Siw};
    needs.rdmaCmConfigfs = true;
    auto st = p_->prepare(needs);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    EXPECT_TRUE(moduleLoaded("siw"));
    EXPECT_TRUE(moduleLoaded("rdma_cm"));
    EXPECT_TRUE(moduleLoaded("rdma_ucm"));
    EXPECT_TRUE(g_file_test("/sys/kernel/config/rdma_cm", G_FILE_TEST_IS_DIR));
    // Done already: nothing to do, no error.
    st = p_->prepare(needs);
    EXPECT_TRUE(st.ok()) << st.error().toString();
}

namespace {

// Marks a point in an strace log (`strace -e trace=openat,access`): the
// sysfs files one operation opens are those between its two marks.
void mark(const std::string &what)
{
    (void)::access(("/ibnm-mark/" + what).c_str(), F_OK);
}

} // namespace

// One change costs the same on a host with many netdevs as on a small one:
// run under strace (tests/kernel/count-sysfs-opens.sh) to count the sysfs
// files each operation opens. Without strace it checks the operations work.
TEST_F(KernelLabLinux, OneChangeOnAHostWithManyNetdevs)
{
    ASSERT_TRUE(sh("for i in $(seq 0 199); do /usr/sbin/ip link add kmany$i type dummy || exit 1; done"));
    dummy("kdum0", "192.0.2.40/24");
    auto st = p_->addSoftLink("krxe2", SoftLinkType::Rxe, "kdum0");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    softLinks_.push_back("krxe2");

    mark("setMtu-begin");
    st = p_->setMtu("kdum0", 1400);
    mark("setMtu-end");
    EXPECT_TRUE(st.ok()) << st.error().toString();

    IpoibChildSpec spec;
    spec.parent = "kdum0";
    spec.pkey = 0x8001;
    mark("createIpoibChild-begin");
    auto r = p_->createIpoibChild(spec);
    mark("createIpoibChild-end");
    EXPECT_FALSE(r.ok()) << "a dummy is no IPoIB parent";

    mark("addAddress-begin");
    st = p_->addAddress("kdum0", "192.0.2.41/24");
    mark("addAddress-end");
    EXPECT_TRUE(st.ok()) << st.error().toString();
    auto gids = p_->readGidTables();
    ASSERT_TRUE(gids.ok());
    bool seen = false;
    for (const auto &g : gids->findDevice("krxe2")->ports.at(0).gids)
        seen = seen || g.gid == "0000:0000:0000:0000:0000:ffff:c000:0229";
    EXPECT_TRUE(seen) << "the RoCE GID of the new address is there when addAddress returns";

    mark("removeAddress-begin");
    st = p_->removeAddress("kdum0", "192.0.2.41/24");
    mark("removeAddress-end");
    EXPECT_TRUE(st.ok()) << st.error().toString();
    gids = p_->readGidTables();
    ASSERT_TRUE(gids.ok());
    for (const auto &g : gids->findDevice("krxe2")->ports.at(0).gids)
        EXPECT_NE(g.gid, "0000:0000:0000:0000:0000:ffff:c000:0229") << "gone when removeAddress returns";
    EXPECT_TRUE(sh("for i in $(seq 0 199); do /usr/sbin/ip link del kmany$i; done"));
}
