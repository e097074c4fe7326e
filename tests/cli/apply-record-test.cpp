// SPDX-License-Identifier: LGPL-2.1-or-later
// The verified no-op record of `ibnm apply` (cli/apply-record.hpp): the
// host's canonical form (libcore/ibnm-host-digest.hpp, which the record's
// host digest is made of) sees every field, the store's identity every stat
// change, a corrupt or truncated record is refused, and each part of the key
// (and the racy rule) makes it decline.
#include "config.h"

#include "cli/apply-record.hpp"
#include "libcore/ibnm-host-digest.hpp"

#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace ibnm::cli::noop {
namespace {

model::Host sampleHost()
{
    model::Host h;
    h.kernelRelease = "6.1.0";
    model::Device d;
    d.name = "mlx4_0";
    d.nodeGuid = "0002:c903:0031:7850";
    d.nodeType = "1: CA";
    d.fwVersion = "2.42.5000";
    d.hcaType = "MT4099";
    d.driver = "mlx4_core";
    d.boardId = "MT_1090120019";
    d.pciAddress = "0000:03:00.0";
    model::Port p;
    p.number = 1;
    p.state = "4: ACTIVE";
    p.physState = "5: LinkUp";
    p.rate = "56 Gb/sec (4X FDR)";
    p.lid = 1;
    p.smLid = 1;
    p.linkLayer = model::LinkLayer::InfiniBand;
    p.activeMtu = 4096;
    p.maxMtu = 4096;
    p.broadcastMtu = 2048;
    p.pkeys = {0xffff, 0x8002};
    p.gids = {{0, "fe80:0000:0000:0000:0002:c903:0031:7851", model::GidType::IbRoceV1, "ib0"}};
    p.defaultRoceMode = model::RoceMode::V2;
    p.defaultRoceTos = 0;
    p.trafficClass = 0;
    p.tcRules = {{3, "192.0.2.1", "198.51.100.0/24"}};
    p.ttl = 64;
    d.ports.push_back(p);
    h.devices.push_back(d);
    model::Netdev n;
    n.name = "ib0";
    n.ifindex = 4;
    n.type = 32;
    n.address = "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51";
    n.mtu = 2044;
    n.maxMtu = 65520;
    n.up = true;
    n.kind = "ipoib";
    n.addresses = {"192.0.2.1/24"};
    n.routes = {{"198.51.100.0/24", "192.0.2.254", 10}};
    n.rdmaDevice = "mlx4_0";
    n.rdmaPort = 1;
    h.netdevs.push_back(n);
    model::IpoibNetdev i;
    i.name = "ib0";
    i.mtu = 2044;
    i.address = n.address;
    i.portGuid = "0002:c903:0031:7851";
    h.ipoib.push_back(i);
    model::Bond b;
    b.name = "bond0";
    b.mode = "active-backup";
    b.ports = {"ib0"};
    b.primary = "ib0";
    b.activePort = "ib0";
    b.miimon = 100;
    b.failOverMac = "active";
    h.bonds.push_back(b);
    h.softLinks.push_back({"rxe0", model::SoftLinkType::Rxe, "eth0"});
    return h;
}

TEST(ApplyRecordHost, EveryFieldChangesTheDigest)
{
    using H = model::Host;
    std::vector<std::pair<const char *, std::function<void(H &)>>> edits = {
        {"kernelRelease", [](H &h) { h.kernelRelease = "6.2"; }},
        {"childNaming", [](H &h) { h.childNaming = model::ChildNaming::FullMembershipBit; }},
        {"device.name", [](H &h) { h.devices[0].name = "mlx4_1"; }},
        {"device.nodeGuid", [](H &h) { h.devices[0].nodeGuid = "x"; }},
        {"device.nodeType", [](H &h) { h.devices[0].nodeType = "4: RNIC"; }},
        {"device.fwVersion", [](H &h) { h.devices[0].fwVersion = "1"; }},
        {"device.hcaType", [](H &h) { h.devices[0].hcaType = "MT4115"; }},
        {"device.driver", [](H &h) { h.devices[0].driver = "mlx5_core"; }},
        {"device.boardId", [](H &h) { h.devices[0].boardId = "y"; }},
        {"device.pciAddress", [](H &h) { h.devices[0].pciAddress = "0000:04:00.0"; }},
        {"device.enhancedIpoib", [](H &h) { h.devices[0].enhancedIpoib = true; }},
        {"device.connectedModeSupported", [](H &h) { h.devices[0].connectedModeSupported = false; }},
        {"device.roceEnabled", [](H &h) { h.devices[0].roceEnabled = true; }},
        {"port.number", [](H &h) { h.devices[0].ports[0].number = 2; }},
        {"port.state", [](H &h) { h.devices[0].ports[0].state = "1: DOWN"; }},
        {"port.physState", [](H &h) { h.devices[0].ports[0].physState = "3: Disabled"; }},
        {"port.rate", [](H &h) { h.devices[0].ports[0].rate = "10 Gb/sec"; }},
        {"port.lid", [](H &h) { h.devices[0].ports[0].lid = 2; }},
        {"port.lid unset", [](H &h) { h.devices[0].ports[0].lid.reset(); }},
        {"port.smLid", [](H &h) { h.devices[0].ports[0].smLid = 3; }},
        {"port.linkLayer", [](H &h) { h.devices[0].ports[0].linkLayer = model::LinkLayer::Ethernet; }},
        {"port.activeMtu", [](H &h) { h.devices[0].ports[0].activeMtu = 2048; }},
        {"port.maxMtu", [](H &h) { h.devices[0].ports[0].maxMtu = 2048; }},
        {"port.broadcastMtu", [](H &h) { h.devices[0].ports[0].broadcastMtu = 4096; }},
        {"port.pkeys", [](H &h) { h.devices[0].ports[0].pkeys.push_back(0x8003); }},
        {"gid.index", [](H &h) { h.devices[0].ports[0].gids[0].index = 1; }},
        {"gid.gid", [](H &h) { h.devices[0].ports[0].gids[0].gid = "fe80::"; }},
        {"gid.type", [](H &h) { h.devices[0].ports[0].gids[0].type = model::GidType::RoceV2; }},
        {"gid.netdev", [](H &h) { h.devices[0].ports[0].gids[0].netdev = ""; }},
        {"port.defaultRoceMode", [](H &h) { h.devices[0].ports[0].defaultRoceMode = model::RoceMode::V1; }},
        {"port.defaultRoceTos", [](H &h) { h.devices[0].ports[0].defaultRoceTos = 32; }},
        {"port.trafficClass", [](H &h) { h.devices[0].ports[0].trafficClass = 1; }},
        {"tc.tclass", [](H &h) { h.devices[0].ports[0].tcRules[0].tclass = -1; }},
        {"tc.srcIp", [](H &h) { h.devices[0].ports[0].tcRules[0].srcIp = ""; }},
        {"tc.dstIp", [](H &h) { h.devices[0].ports[0].tcRules[0].dstIp = ""; }},
        {"port.ttl", [](H &h) { h.devices[0].ports[0].ttl = 63; }},
        {"netdev.name", [](H &h) { h.netdevs[0].name = "ib1"; }},
        {"netdev.ifindex", [](H &h) { h.netdevs[0].ifindex = 5; }},
        {"netdev.type", [](H &h) { h.netdevs[0].type = 1; }},
        {"netdev.address", [](H &h) { h.netdevs[0].address = "z"; }},
        {"netdev.mtu", [](H &h) { h.netdevs[0].mtu = 1500; }},
        {"netdev.maxMtu", [](H &h) { h.netdevs[0].maxMtu.reset(); }},
        {"netdev.up", [](H &h) { h.netdevs[0].up = false; }},
        {"netdev.kind", [](H &h) { h.netdevs[0].kind = "bond"; }},
        {"netdev.master", [](H &h) { h.netdevs[0].master = "bond0"; }},
        {"netdev.link", [](H &h) { h.netdevs[0].link = "eth0"; }},
        {"netdev.addresses", [](H &h) { h.netdevs[0].addresses.push_back("192.0.2.2/24"); }},
        {"route.dest", [](H &h) { h.netdevs[0].routes[0].dest = "0.0.0.0/0"; }},
        {"route.gateway", [](H &h) { h.netdevs[0].routes[0].gateway = ""; }},
        {"route.metric", [](H &h) { h.netdevs[0].routes[0].metric = 0; }},
        {"netdev.rdmaDevice", [](H &h) { h.netdevs[0].rdmaDevice = ""; }},
        {"netdev.rdmaPort", [](H &h) { h.netdevs[0].rdmaPort = 2; }},
        {"ipoib.name", [](H &h) { h.ipoib[0].name = "ib1"; }},
        {"ipoib.parent", [](H &h) { h.ipoib[0].parent = "ib1"; }},
        {"ipoib.pkey", [](H &h) { h.ipoib[0].pkey = 0x8002; }},
        {"ipoib.mode", [](H &h) { h.ipoib[0].mode = model::IpoibMode::Connected; }},
        {"ipoib.umcast", [](H &h) { h.ipoib[0].umcast = true; }},
        {"ipoib.mtu", [](H &h) { h.ipoib[0].mtu = 65520; }},
        {"ipoib.address", [](H &h) { h.ipoib[0].address = "q"; }},
        {"ipoib.portGuid", [](H &h) { h.ipoib[0].portGuid = "q"; }},
        {"bond.name", [](H &h) { h.bonds[0].name = "bond1"; }},
        {"bond.mode", [](H &h) { h.bonds[0].mode = "balance-rr"; }},
        {"bond.ports", [](H &h) { h.bonds[0].ports.clear(); }},
        {"bond.primary", [](H &h) { h.bonds[0].primary = ""; }},
        {"bond.activePort", [](H &h) { h.bonds[0].activePort = ""; }},
        {"bond.miimon", [](H &h) { h.bonds[0].miimon = 0; }},
        {"bond.failOverMac", [](H &h) { h.bonds[0].failOverMac = "none"; }},
        {"softLink.name", [](H &h) { h.softLinks[0].name = "rxe1"; }},
        {"softLink.type", [](H &h) { h.softLinks[0].type = model::SoftLinkType::Siw; }},
        {"softLink.netdev", [](H &h) { h.softLinks[0].netdev = "eth1"; }},
        {"one netdev more", [](H &h) { h.netdevs.push_back(h.netdevs[0]); }},
        // Length prefixes: moving a character from one value to the next is
        // a change.
        {"value boundary",
            [](H &h) {
                h.devices[0].fwVersion += h.devices[0].hcaType[0];
                h.devices[0].hcaType.erase(0, 1);
            }},
    };
    const std::string base = hostCanonicalText(sampleHost());
    EXPECT_EQ(hostCanonicalText(sampleHost()), base);
    std::set<std::string> seen{base};
    for (const auto &e : edits) {
        H h = sampleHost();
        e.second(h);
        std::string d = hostCanonicalText(h);
        EXPECT_NE(d, base) << e.first;
        seen.insert(d);
    }
    EXPECT_EQ(seen.size(), edits.size() + 1);
}

Record sampleRecord()
{
    Record r;
    r.key = Key::of("interfaces: []\n", 0);
    r.store = std::string(64, 'a');
    r.statTakenNs = 1700000000123456789;
    r.host = std::string(64, 'b');
    r.outcome.changes = {{"mlx4_ib0.8002", "up", "mlx4_ib0.8002", true}, {"we;ird,name", "absent", "", false}};
    r.outcome.notes = {"a note; with a separator", "another"};
    r.racy = {{"mlx4_ib0.8002.nmconnection", std::string(64, 'e')}, {"we;ird name", std::string(64, 'f')}};
    return r;
}

TEST(ApplyRecordFormat, RoundTrips)
{
    Record r = sampleRecord();
    auto back = parseRecord(formatRecord(r));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->key.document, r.key.document);
    EXPECT_EQ(back->key.version, PACKAGE_VERSION);
    EXPECT_EQ(back->key.flags, r.key.flags);
    EXPECT_EQ(back->key.uid, r.key.uid);
    EXPECT_EQ(back->key.language, r.key.language);
    EXPECT_FALSE(r.key.language.empty());
    EXPECT_EQ(back->store, r.store);
    EXPECT_EQ(back->statTakenNs, r.statTakenNs);
    EXPECT_EQ(back->host, r.host);
    EXPECT_EQ(back->outcome.changes, r.outcome.changes);
    EXPECT_EQ(back->outcome.notes, r.outcome.notes);
    EXPECT_EQ(back->racy, r.racy);
    Record empty = sampleRecord();
    empty.outcome = {};
    empty.racy = {};
    auto e = parseRecord(formatRecord(empty));
    ASSERT_TRUE(e);
    EXPECT_TRUE(e->outcome.changes.empty());
    EXPECT_TRUE(e->outcome.notes.empty());
    EXPECT_TRUE(e->racy.empty());
}

TEST(ApplyRecordFormat, RefusesATruncatedOrCorruptRecord)
{
    const std::string text = formatRecord(sampleRecord());
    for (size_t n = 0; n < text.size(); n++)
        EXPECT_FALSE(parseRecord(text.substr(0, n))) << "truncated to " << n;
    for (size_t i = 0; i < text.size(); i += 7) {
        std::string bad = text;
        bad[i] = bad[i] == 'x' ? 'y' : 'x';
        EXPECT_FALSE(parseRecord(bad)) << "byte " << i;
    }
    EXPECT_FALSE(parseRecord(""));
    EXPECT_FALSE(parseRecord("garbage"));
}

TEST(ApplyRecordMatch, AnswersOnlyWhenEveryPartMatches)
{
    Record r = sampleRecord();
    StoreIdentity store{r.store, r.statTakenNs + 5, r.racy};
    std::string why;
    auto ok = match(r, r.key, store, r.host, &why);
    ASSERT_TRUE(ok) << why;
    EXPECT_EQ(ok->changes, r.outcome.changes);

    auto declines = [&](Key key, StoreIdentity s, std::string host, const char *reason) {
        std::string w;
        EXPECT_FALSE(match(r, key, s, host, &w)) << reason;
        EXPECT_EQ(w, reason);
    };
    Key other = r.key;
    other.document = Key::of("interfaces: [] \n", 0).document;
    declines(other, store, r.host, "another document");
    other = r.key;
    other.flags = 1;
    declines(other, store, r.host, "other flags");
    other = r.key;
    other.version = "0.0.1";
    declines(other, store, r.host, "another version of ibnm wrote the record");
    other = r.key;
    other.uid = r.key.uid + 1;
    declines(other, store, r.host, "another user");
    other = r.key;
    other.language = "de_DE.UTF-8:de:C:";
    declines(other, store, r.host, "another language");
    StoreIdentity changed = store;
    changed.digest = std::string(64, 'c');
    declines(r.key, changed, r.host, "the keyfile store changed");
    declines(r.key, store, std::string(64, 'd'), "the host changed");
    // The racy rule: an entry changed within a second of the record may
    // have changed again unseen by stat(): its bytes decide.
    StoreIdentity racy = store;
    racy.content[1].second = std::string(64, '0');
    declines(r.key, racy, r.host, "a keyfile changed within a second of the record (racy): its bytes differ");
    racy = store;
    racy.content.pop_back();
    declines(r.key, racy, r.host, "a keyfile changed within a second of the record (racy) and was not read");
    // More read than the record needs: still an answer.
    racy = store;
    racy.content.emplace_back("other", std::string(64, '1'));
    EXPECT_TRUE(match(r, r.key, racy, r.host, &why)) << why;
}

void setTimes(const std::string &path, time_t sec)
{
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), ts, 0), 0);
}

TEST(ApplyRecordStore, SeesEveryChangeOfTheDirectoryAndReadsWhatIsRacy)
{
    test::TempDir tmp;
    tmp.write("kf/a.nmconnection", "[connection]\nid=a\n");
    tmp.write("kf/b.nmconnection", "[connection]\nid=b\n");
    std::string dir = tmp / "kf";
    const int64_t never = G_MAXINT64;
    auto first = storeIdentity(dir, never);
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->content.empty());
    auto again = storeIdentity(dir, never);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->digest, first->digest);
    EXPECT_GE(again->takenNs, first->takenNs);

    // Same size, same mtime put back: the ctime still differs.
    struct stat before { };
    ASSERT_EQ(stat((tmp / "kf/a.nmconnection").c_str(), &before), 0);
    tmp.write("kf/a.nmconnection", "[connection]\nid=x\n");
    struct timespec ts[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(utimensat(AT_FDCWD, (tmp / "kf/a.nmconnection").c_str(), ts, 0), 0);
    auto edited = storeIdentity(dir, never);
    ASSERT_TRUE(edited);
    EXPECT_NE(edited->digest, first->digest);

    // A new file, then its removal.
    tmp.write("kf/c.nmconnection", "[connection]\nid=c\n");
    auto added = storeIdentity(dir, never);
    ASSERT_TRUE(added);
    EXPECT_NE(added->digest, edited->digest);
    ASSERT_EQ(g_unlink((tmp / "kf/c.nmconnection").c_str()), 0);
    auto removed = storeIdentity(dir, never);
    ASSERT_TRUE(removed);
    EXPECT_NE(removed->digest, added->digest);

    // The racily clean entries (changed since a time) are read: all of
    // them now, their bytes as fileDigest() has them.
    auto racy = storeIdentity(dir, removed->takenNs - kRacyWindowNs);
    ASSERT_TRUE(racy);
    EXPECT_EQ(racy->digest, removed->digest);
    ASSERT_EQ(racy->content.size(), 2u);
    EXPECT_EQ(racy->content[0].first, "a.nmconnection");
    EXPECT_EQ(racy->content[0].second, *fileDigest(tmp / "kf/a.nmconnection"));
    // Old mtimes do not make an entry old: its ctime (now) does not lie.
    setTimes(tmp / "kf/a.nmconnection", 1000000000);
    auto stillRacy = storeIdentity(dir, removed->takenNs - kRacyWindowNs);
    ASSERT_TRUE(stillRacy);
    EXPECT_EQ(stillRacy->content.size(), 2u);

    // What the record cannot vouch for is an error.
    tmp.mkdir("kf/sub");
    EXPECT_FALSE(storeIdentity(dir, never));
    EXPECT_FALSE(storeIdentity(tmp / "missing", never));
}

TEST(ApplyRecordFile, DigestsContentAndAbsence)
{
    test::TempDir tmp;
    EXPECT_EQ(fileDigest(tmp / "none"), std::optional<std::string>("absent"));
    tmp.write("f", "one\n");
    auto a = fileDigest(tmp / "f");
    tmp.write("f", "two\n");
    auto b = fileDigest(tmp / "f");
    ASSERT_TRUE(a && b);
    EXPECT_NE(*a, *b);
    EXPECT_NE(*a, "absent");
}

} // namespace
} // namespace ibnm::cli::noop
