// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile store's index (issue 34 item 1): add, modify and delete give
// the same output, exit statuses and files with it as without it
// (IBNM_KEYFILE_INDEX=0), and an index that no longer describes the files
// (edited, renamed, removed or replaced behind its back; damaged; another
// directory's) is not believed.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include "settings/keyfile-index.hpp"

#include <glib/gstdio.h>

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

namespace ibnm::test {
namespace {

std::string uuidFor(int n)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "6d1a5e2c-0000-4000-8000-%012d", n);
    return buf;
}

// A keyfile written as an administrator or another tool would: not through ibnm.
void writeKeyfile(const std::string &dir, const std::string &name, const std::string &text)
{
    std::string path = dir + "/" + name;
    ASSERT_TRUE(g_file_set_contents(path.c_str(), text.c_str(), -1, nullptr));
    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
}

std::string child(const std::string &id, int n, const std::string &parent, int pkey)
{
    char pk[16];
    std::snprintf(pk, sizeof pk, "0x%04x", pkey);
    return "[connection]\nid=" + id + "\nuuid=" + uuidFor(n) + "\ntype=infiniband\n\n[infiniband]\nparent=" + parent +
           "\np-key=" + pk + "\ntransport-mode=datagram\n\n[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=disabled\n";
}

std::string port(const std::string &id, int n, const std::string &ifname, const std::string &master)
{
    return "[connection]\nid=" + id + "\nuuid=" + uuidFor(n) + "\ntype=infiniband\ninterface-name=" + ifname +
           "\nmaster=" + master + "\nslave-type=bond\n\n[infiniband]\ntransport-mode=datagram\n";
}

std::string bond(const std::string &id, int n, const std::string &ifname, const std::string &mode)
{
    return "[connection]\nid=" + id + "\nuuid=" + uuidFor(n) + "\ntype=bond\ninterface-name=" + ifname +
           "\n\n[bond]\nmode=" + mode + "\n\n[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=disabled\n";
}

// A store of `count` P_Key children over 8 ports, their parents' profiles,
// bonds of IPoIB ports, a file NetworkManager would refuse, and two files
// with one UUID (their warnings are part of every command's output).
void fillStore(const std::string &dir, int count)
{
    for (int p = 0; p < 8; p++)
        writeKeyfile(dir, "ib" + std::to_string(p) + ".nmconnection",
                     "[connection]\nid=ib" + std::to_string(p) + "\nuuid=" + uuidFor(900000 + p) +
                         "\ntype=infiniband\ninterface-name=ib" + std::to_string(p) +
                         "\n\n[infiniband]\ntransport-mode=datagram\n\n[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=disabled\n");
    for (int i = 0; i < count; i++)
        writeKeyfile(dir, "child" + std::to_string(i) + ".nmconnection",
                     child("child" + std::to_string(i), i, "ib" + std::to_string(i % 8), 0x8100 + i));
    for (int b = 0; b < 4; b++) {
        std::string n = std::to_string(b);
        writeKeyfile(dir, "bond" + n + ".nmconnection", bond("bond" + n, 800000 + b, "bond" + n, "active-backup"));
        writeKeyfile(dir, "bond" + n + "-port.nmconnection", port("bond" + n + "-port", 810000 + b, "ibp" + n, "bond" + n));
    }
    writeKeyfile(dir, "broken.nmconnection", "[connection]\nid=broken\ntype=infiniband\np-key=zzz\n");
    writeKeyfile(dir, "twin-a.nmconnection", child("twin-a", 700000, "ib1", 0x7001));
    writeKeyfile(dir, "twin-b.nmconnection", child("twin-b", 700000, "ib1", 0x7002));
}

std::string replaceAll(std::string s, const std::string &from, const std::string &to)
{
    for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
        s.replace(at, from.size(), to);
    return s;
}

// One command on two stores, with and without the index: the same status,
// output (store paths aside) and files.
class Twin {
public:
    Twin(int count)
    {
        fillStore(with_.keyfileDir(), count);
        fillStore(without_.keyfileDir(), count);
    }
    void same(const std::vector<std::string> &args, int status)
    {
        Result a = with_.run(args, {}, {{"IBNM_CACHE_DIR", cache()}});
        Result b = without_.run(args, {}, {{"IBNM_KEYFILE_INDEX", "0"}});
        std::string cmd;
        for (const auto &w : args)
            cmd += w + " ";
        EXPECT_EQ(a.status, status) << cmd << a.err;
        EXPECT_EQ(a.status, b.status) << cmd;
        EXPECT_EQ(a.out, b.out) << cmd;
        EXPECT_EQ(replaceAll(a.err, with_.keyfileDir(), "DIR"), replaceAll(b.err, without_.keyfileDir(), "DIR")) << cmd;
        EXPECT_TRUE(sorted(with_) == sorted(without_)) << cmd << ": the stores differ";
    }
    std::string cache() const { return with_.tmp() / "cache"; }
    // Each file's name and content, in name order.
    static std::map<std::string, std::string> sorted(const Cli &c)
    {
        std::map<std::string, std::string> files;
        for (const auto &n : c.keyfiles()) {
            char *text = nullptr;
            g_file_get_contents((c.keyfileDir() + "/" + n).c_str(), &text, nullptr, nullptr);
            files[n] = text ? text : "";
            g_free(text);
        }
        return files;
    }
    const Cli &with() const { return with_; }
    // Changes both stores' files alike, behind ibnm's back.
    void each(const std::function<void(const std::string &dir)> &change) const
    {
        change(with_.keyfileDir());
        change(without_.keyfileDir());
    }

private:
    Cli with_, without_;
};

TEST(KeyfileIndex, SameOutputAndFilesAsWithout)
{
    Twin t(120);
    t.same({"connection", "add", "type", "infiniband", "parent", "ib3", "p-key", "0x9001", "con-name", "new1",
            "connection.uuid", uuidFor(1001), "ipv4.method", "disabled"},
           0);
    // The index was written and is used from now on.
    GDir *d = g_dir_open(t.cache().c_str(), 0, nullptr);
    ASSERT_NE(d, nullptr) << "no index written";
    g_dir_close(d);
    t.same({"connection", "add", "type", "infiniband", "parent", "ib3", "p-key", "0x1001", "con-name", "new2"}, 1);
    t.same({"connection", "add", "type", "infiniband", "parent", "ib4", "p-key", "0x8104", "con-name", "dup"}, 1);
    t.same({"connection", "add", "type", "infiniband", "con-name", "child7", "parent", "ib0", "p-key", "0x9999"}, 1);
    t.same({"connection", "modify", "new1", "infiniband.mtu", "2044"}, 0);
    t.same({"connection", "modify", "child5", "infiniband.p-key", "0x810d"}, 1);
    t.same({"connection", "modify", "filename", "child9.nmconnection", "connection.id", "renamed9"}, 0);
    t.same({"connection", "modify", "uuid", uuidFor(12), "infiniband.mtu", "1500"}, 0);
    t.same({"connection", "add", "type", "infiniband", "ifname", "ibp9", "master", "nobond", "slave-type", "bond",
            "con-name", "orphan"},
           1);
    t.same({"connection", "add", "type", "ethernet", "ifname", "eth9", "master", "bond2", "slave-type", "bond",
            "con-name", "ethport"},
           1);
    t.same({"connection", "add", "type", "infiniband", "ifname", "ibp7", "master", "bond1", "slave-type", "bond",
            "con-name", "second-port", "connection.uuid", uuidFor(1002)},
           0);
    t.same({"connection", "modify", "bond1", "bond.options", "mode=balance-rr"}, 1);
    t.same({"connection", "delete", "new1", "child3", "nosuch"}, 10);
    t.same({"connection", "delete", "uuid", uuidFor(4)}, 0);
    t.same({"connection", "add", "type", "infiniband", "parent", "ib3", "p-key", "0x9001", "con-name", "new1",
            "connection.uuid", uuidFor(1001)},
           0);
}

// A store big enough that its files are stat()ed by several threads, changed
// behind ibnm's back in more places than one command changes (the index's
// entries are merged into new ones), then in a few (changed in place).
TEST(KeyfileIndex, ManyChangesAtOnceAndAFewInPlace)
{
    Twin t(1100);
    t.same({"connection", "modify", "child7", "infiniband.mtu", "2044"}, 0);
    // 40 files removed, 40 added (one a duplicate P_Key child of a removed
    // one's, one a new child of a P_Key still used), 3 renamed, one replaced.
    t.each([](const std::string &dir) {
        for (int i = 0; i < 40; i++)
            ASSERT_EQ(g_unlink((dir + "/child" + std::to_string(100 + i * 25) + ".nmconnection").c_str()), 0);
        for (int i = 0; i < 40; i++)
            writeKeyfile(dir, "zz-new" + std::to_string(i) + ".nmconnection",
                         child("zz-new" + std::to_string(i), 500000 + i, "ib" + std::to_string(i % 8), 0x9a00 + i));
        for (int i : {3, 501, 1099})
            ASSERT_EQ(g_rename((dir + "/child" + std::to_string(i) + ".nmconnection").c_str(),
                               (dir + "/moved" + std::to_string(i) + ".nmconnection").c_str()),
                      0);
        writeKeyfile(dir, ".tmp-new", child("replaced1000", 1000, "ib0", 0x9b00));
        ASSERT_EQ(g_rename((dir + "/.tmp-new").c_str(), (dir + "/child1000.nmconnection").c_str()), 0);
    });
    t.same({"connection", "add", "type", "infiniband", "parent", "ib5", "p-key", "0x9a05", "con-name", "dup-new"}, 1);
    t.same({"connection", "add", "type", "infiniband", "parent", "ib4", "p-key", "0x%x", "con-name", "freed"}, 2);
    // child150 (ib6, 0x8196) was removed: its P_Key child is free again.
    t.same({"connection", "add", "type", "infiniband", "parent", "ib6", "p-key", "0x8196", "con-name", "freed",
            "connection.uuid", uuidFor(777777), "ipv4.method", "disabled"},
           0);
    t.same({"connection", "modify", "filename", "moved501.nmconnection", "infiniband.mtu", "2044"}, 0);
    t.same({"connection", "add", "type", "infiniband", "parent", "ib0", "p-key", "0x9b00", "con-name", "dup1000"}, 1);
    // A few: one removed, one added, one renamed.
    t.each([](const std::string &dir) {
        ASSERT_EQ(g_unlink((dir + "/child1098.nmconnection").c_str()), 0);
        writeKeyfile(dir, "aa-first.nmconnection", child("aa-first", 600000, "ib1", 0x9c01));
        ASSERT_EQ(g_rename((dir + "/child1001.nmconnection").c_str(), (dir + "/zzz-last.nmconnection").c_str()), 0);
    });
    t.same({"connection", "add", "type", "infiniband", "parent", "ib1", "p-key", "0x9c01", "con-name", "dup-first"}, 1);
    t.same({"connection", "modify", "filename", "zzz-last.nmconnection", "connection.id", "last"}, 0);
    // child1098's P_Key child (ib2, 0x854a) is free again.
    t.same({"connection", "add", "type", "infiniband", "parent", "ib2", "p-key", "0x854a", "con-name", "freed2",
            "connection.uuid", uuidFor(777778), "ipv4.method", "disabled"},
           0);
    t.same({"connection", "delete", "aa-first", "child1097"}, 0);
}

// A store whose index was just written (one command ran on it).
class Stale : public ::testing::Test {
protected:
    void SetUp() override
    {
        fillStore(cli_.keyfileDir(), 60);
        ASSERT_EQ(run({"connection", "delete", "child59"}).status, 0);
        index_ = indexPath();
        ASSERT_TRUE(g_file_test(index_.c_str(), G_FILE_TEST_EXISTS));
    }
    Result run(std::vector<std::string> args) const
    {
        return cli_.run(std::move(args), {}, {{"IBNM_CACHE_DIR", cli_.tmp() / "cache"}});
    }
    std::string indexPath() const
    {
        g_setenv("IBNM_CACHE_DIR", (cli_.tmp() / "cache").c_str(), TRUE);
        std::string p = settings::KeyfileIndex::pathFor(cli_.keyfileDir());
        g_unsetenv("IBNM_CACHE_DIR");
        return p;
    }
    std::string file(const std::string &name) const { return cli_.keyfileDir() + "/" + name; }
    // Rewrites a file in place (same inode, same size), as an editor that
    // does not rename does, within the clock tick of the index's write.
    void editInPlace(const std::string &name, const std::string &from, const std::string &to) const
    {
        ASSERT_EQ(from.size(), to.size());
        char *text = nullptr;
        ASSERT_TRUE(g_file_get_contents(file(name).c_str(), &text, nullptr, nullptr));
        std::string s = replaceAll(text, from, to);
        g_free(text);
        std::fstream f(file(name), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        f.write(s.data(), std::streamsize(s.size()));
    }
    Cli cli_;
    std::string index_;
};

TEST_F(Stale, EditedInPlaceUuid)
{
    editInPlace("child10.nmconnection", uuidFor(10), uuidFor(5555));
    Result r = run({"connection", "add", "type", "infiniband", "parent", "ib2", "p-key", "0x9002", "con-name", "x",
                    "connection.uuid", uuidFor(5555)});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.err.find(uuidFor(5555) + " exists already"), std::string::npos) << r.err;
    // And the UUID it had is free again.
    r = run({"connection", "add", "type", "infiniband", "parent", "ib2", "p-key", "0x9002", "con-name", "x",
             "connection.uuid", uuidFor(10), "ipv4.method", "disabled"});
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(Stale, EditedInPlaceId)
{
    editInPlace("child11.nmconnection", "id=child11", "id=newbie1");
    Result r = run({"connection", "add", "type", "infiniband", "parent", "ib2", "p-key", "0x9003", "con-name", "newbie1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("a profile named 'newbie1' exists already (UUID " + uuidFor(11) + ")"), std::string::npos)
        << r.err;
}

TEST_F(Stale, EditedInPlaceChildCollides)
{
    // child12 becomes the child of ib3 with P_Key 0x9004: a new one clashes.
    editInPlace("child12.nmconnection", "parent=ib4\np-key=0x810c", "parent=ib3\np-key=0x9004");
    Result r = run({"connection", "add", "type", "infiniband", "parent", "ib3", "p-key", "0x9004", "con-name", "y"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("profile 'child12' already defines the child of ib3 with P_Key 0x9004"), std::string::npos)
        << r.err;
}

TEST_F(Stale, RenamedRemovedReplaced)
{
    ASSERT_EQ(g_rename(file("child13.nmconnection").c_str(), file("moved13.nmconnection").c_str()), 0);
    Result r = run({"connection", "modify", "filename", "moved13.nmconnection", "infiniband.mtu", "2044"});
    EXPECT_EQ(r.status, 0) << r.err;
    r = run({"connection", "modify", "filename", "child13.nmconnection", "infiniband.mtu", "2044"});
    EXPECT_EQ(r.status, 10) << r.err;
    ASSERT_EQ(g_unlink(file("child14.nmconnection").c_str()), 0);
    r = run({"connection", "add", "type", "infiniband", "parent", "ib6", "p-key", "0x810e", "con-name", "child14",
             "ipv4.method", "disabled"});
    EXPECT_EQ(r.status, 0) << r.err;
    // Replaced by rename (another inode) with another profile.
    writeKeyfile(cli_.keyfileDir(), ".tmp-new", child("replaced15", 15, "ib5", 0x9005));
    ASSERT_EQ(g_rename(file(".tmp-new").c_str(), file("child15.nmconnection").c_str()), 0);
    r = run({"connection", "add", "type", "infiniband", "parent", "ib1", "p-key", "0x9006", "con-name", "replaced15"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("a profile named 'replaced15' exists already"), std::string::npos) << r.err;
    r = run({"connection", "add", "type", "infiniband", "parent", "ib5", "p-key", "0x9005", "con-name", "z"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("profile 'replaced15' already defines the child of ib5"), std::string::npos) << r.err;
}

// A damaged index, or another directory's, is read as none: the next
// command reads every file and finds what is there.
void expectDuplicateRefused(const std::function<Result(std::vector<std::string>)> &run)
{
    Result r = run({"connection", "add", "type", "infiniband", "parent", "ib4", "p-key", "0x8114", "con-name", "dup20"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("profile 'child20' already defines the child of ib4 with P_Key 0x8114"), std::string::npos)
        << r.err;
}

TEST_F(Stale, DamagedIndex)
{
    auto runner = [this](std::vector<std::string> a) { return run(std::move(a)); };
    // child20's facts in the index say another P_Key, and the file is
    // changed so that its stamp would match the damaged entry only by luck.
    std::string data;
    {
        std::ifstream in(index_, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        data = ss.str();
    }
    // The entry's P_Key (an int32 before the length of its UUID) made
    // another: believed, the new child would not be found a duplicate.
    size_t at = data.find(uuidFor(20));
    ASSERT_NE(at, std::string::npos);
    std::string flipped = data;
    int32_t pkey = 0;
    std::memcpy(&pkey, &flipped[at - 8], 4);
    ASSERT_EQ(pkey, 0x8114);
    pkey = 0x9114;
    std::memcpy(&flipped[at - 8], &pkey, 4);
    ASSERT_TRUE(g_file_set_contents(index_.c_str(), flipped.data(), gssize(flipped.size()), nullptr));
    ::chmod(index_.c_str(), 0600);
    expectDuplicateRefused(runner);
    // Truncated.
    ASSERT_TRUE(g_file_set_contents(index_.c_str(), data.data(), gssize(data.size() / 2), nullptr));
    ::chmod(index_.c_str(), 0600);
    expectDuplicateRefused(runner);
    // Empty.
    ASSERT_TRUE(g_file_set_contents(index_.c_str(), "", 0, nullptr));
    expectDuplicateRefused(runner);
}

TEST_F(Stale, AnotherDirectorysIndex)
{
    // A store where child20 does not exist: its index, put where this one's is.
    Cli other;
    fillStore(other.keyfileDir(), 10);
    ASSERT_EQ(other.run({"connection", "delete", "child9"}, {}, {{"IBNM_CACHE_DIR", cli_.tmp() / "other-cache"}}).status, 0);
    g_setenv("IBNM_CACHE_DIR", (cli_.tmp() / "other-cache").c_str(), TRUE);
    std::string otherIndex = settings::KeyfileIndex::pathFor(other.keyfileDir());
    g_unsetenv("IBNM_CACHE_DIR");
    char *text = nullptr;
    gsize length = 0;
    ASSERT_TRUE(g_file_get_contents(otherIndex.c_str(), &text, &length, nullptr));
    ASSERT_TRUE(g_file_set_contents(index_.c_str(), text, gssize(length), nullptr));
    g_free(text);
    ::chmod(index_.c_str(), 0600);
    expectDuplicateRefused([this](std::vector<std::string> a) { return run(std::move(a)); });
}

} // namespace
} // namespace ibnm::test
