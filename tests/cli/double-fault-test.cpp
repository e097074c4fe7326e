// SPDX-License-Identifier: LGPL-2.1-or-later
// Two faults in one `ibnm apply` (issue 28): at every position of a
// multi-profile apply (a profile deleted, one modified, one added: a down
// half and an up half), the operation there fails and so does the next one
// (mostly the first undo). Whatever then happened, the report is checked
// against the simulated host as read back here (not through ibnm's own
// comparison) and the store's files: it says rolled back only when both are
// as before, never calls a step done once it was undone, and otherwise
// names every object that differs. Prints what it counted.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include "libcore/simulator/fake-platform.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

using ibnm::test::Cli;
using ibnm::test::JsonValue;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

const char *const kHost = "mlx4-dual-port.host";

const char *const kSetup = R"(interfaces:
  - name: mlx4_ib0.8002
    type: infiniband
    infiniband: {base-iface: mlx4_ib0, pkey: '0x8002'}
    ipv4: {enabled: true, address: [{ip: 192.0.2.2, prefix-length: 24}]}
  - name: mlx4_ib0.8003
    type: infiniband
    mtu: 2044
    infiniband: {base-iface: mlx4_ib0, pkey: '0x8003'}
)";

const char *const kApply = R"(interfaces:
  - {name: mlx4_ib0.8002, state: absent}
  - name: mlx4_ib0.8003
    mtu: 1500
    ipv4: {enabled: true, address: [{ip: 192.0.2.3, prefix-length: 24}]}
  - name: mlx4_ib0.8004
    type: infiniband
    mtu: 2000
    infiniband: {base-iface: mlx4_ib0, pkey: '0x8004'}
    ipv4: {enabled: true, address: [{ip: 192.0.2.4, prefix-length: 24}]}
)";

std::string sorted(std::vector<std::string> v)
{
    std::sort(v.begin(), v.end());
    std::string s;
    for (const auto &x : v)
        s += x + ",";
    return s;
}

// The simulated host of `stateDir`, read as ibnm's simulator keeps it: one
// entry per object, with what an apply changes and undoes.
std::map<std::string, std::string> hostState(const std::string &stateDir)
{
    std::map<std::string, std::string> out;
    auto p = ibnm::platform::FakePlatform::open(ibnm::test::hostFile(kHost), stateDir);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().toString());
    if (!p.ok())
        return out;
    auto h = (*p)->readHost();
    EXPECT_TRUE(h.ok());
    if (!h.ok())
        return out;
    for (const auto &n : h->netdevs) {
        std::vector<std::string> routes;
        for (const auto &r : n.routes)
            routes.push_back(ibnm::model::formatRoute(r));
        out[n.name] += "mtu=" + std::to_string(n.mtu) + " up=" + std::to_string(n.up) + " master=" + n.master +
                       " addresses=" + sorted(n.addresses) + " routes=" + sorted(routes);
    }
    for (const auto &i : h->ipoib)
        out[i.name] += " mode=" + std::to_string(int(i.mode)) + " pkey=" + std::to_string(i.pkey) +
                       " parent=" + i.parent + " umcast=" + std::to_string(i.umcast);
    for (const auto &b : h->bonds)
        out[b.name] += " bond=" + b.mode + " ports=" + sorted(b.ports);
    for (const auto &l : h->softLinks)
        out[l.name] += " link=" + l.netdev;
    return out;
}

// The objects whose entries differ between two readings.
std::set<std::string> differing(const std::map<std::string, std::string> &a,
                                const std::map<std::string, std::string> &b)
{
    std::set<std::string> out;
    for (const auto &[name, v] : a)
        if (!b.count(name) || b.at(name) != v)
            out.insert(name);
    for (const auto &[name, v] : b)
        if (!a.count(name))
            out.insert(name);
    return out;
}

// Copies the files under `from` into `to` (directories made as needed).
void copyTree(const std::string &from, const std::string &to)
{
    g_mkdir_with_parents(to.c_str(), 0755);
    GDir *d = g_dir_open(from.c_str(), 0, nullptr);
    while (const char *n = d ? g_dir_read_name(d) : nullptr) {
        std::string src = from + "/" + n, dst = to + "/" + n;
        if (g_file_test(src.c_str(), G_FILE_TEST_IS_DIR)) {
            copyTree(src, dst);
            continue;
        }
        char *data = nullptr;
        gsize len = 0;
        if (g_file_get_contents(src.c_str(), &data, &len, nullptr))
            g_file_set_contents_full(dst.c_str(), data, gssize(len), G_FILE_SET_CONTENTS_NONE, 0600, nullptr);
        g_free(data);
    }
    if (d)
        g_dir_close(d);
}

struct Counts {
    unsigned positions = 0, failed = 0, rolledBack = 0, notRolledBack = 0;
    unsigned falseRollback = 0; // said rolled back, host or store not as before
    unsigned doneButUndone = 0; // a step "done" whose object is as before
    unsigned unlisted = 0;      // an object that differs, named nowhere
};

void checkOne(const Cli &cli, const Result &r, const std::map<std::string, std::string> &hostBefore,
              const std::string &storeBefore, unsigned k, Counts &c)
{
    JsonValue v = parseJson(r.out);
    const JsonValue *rolled = v.get("rolled-back");
    ASSERT_NE(rolled, nullptr) << r.out << r.err;
    auto hostAfter = hostState(cli.stateDir());
    auto changed = differing(hostBefore, hostAfter);
    bool storeSame = cli.snapshot() == storeBefore;
    std::set<std::string> named; // objects the report says are not as before
    if (const JsonValue *nr = v.get("not-restored"))
        for (const auto &line : nr->items)
            named.insert(line.s.substr(0, line.s.find(':')));
    for (const auto &s : v.get("steps")->items) {
        const JsonValue *state = s.get("state"), *object = s.get("object");
        std::string obj = object && object->kind == JsonValue::String ? object->s : "";
        if (state->s == "done" || state->s == "undo-failed")
            named.insert(obj);
        if (state->s == "done" && !changed.count(obj) && hostBefore.count(obj)) {
            c.doneButUndone++;
            ADD_FAILURE() << "position " << k << ": step " << s.get("action")->s << " " << obj
                          << " says done, and the object is as before";
        }
    }
    if (rolled->b) {
        c.rolledBack++;
        if (!changed.empty() || !storeSame) {
            c.falseRollback++;
            ADD_FAILURE() << "position " << k << ": said rolled back; differs: " << changed.size()
                          << " objects (first " << (changed.empty() ? "" : *changed.begin()) << "), store "
                          << (storeSame ? "same" : "changed") << "\n" << r.out;
        }
        return;
    }
    c.notRolledBack++;
    for (const auto &o : changed)
        if (!named.count(o)) {
            c.unlisted++;
            ADD_FAILURE() << "position " << k << ": " << o << " differs and the report names it nowhere\n" << r.out;
        }
}

TEST(DoubleFault, EveryStepAndItsUndoFailingIsReportedHonestly)
{
    // The state before the apply, made once and copied for each position.
    Cli setup(kHost);
    ASSERT_EQ(setup.run({"apply", "-"}, kSetup).status, 0);
    // How many operations a clean apply takes: the positions to fault.
    Cli clean(kHost);
    copyTree(setup.keyfileDir(), clean.keyfileDir());
    copyTree(setup.stateDir(), clean.stateDir());
    uint64_t before = (*ibnm::platform::FakePlatform::open(ibnm::test::hostFile(kHost), clean.stateDir()))
                          ->operationCount();
    Result ok = clean.run({"apply", "-"}, kApply);
    ASSERT_EQ(ok.status, 0) << ok.out << ok.err;
    uint64_t total = (*ibnm::platform::FakePlatform::open(ibnm::test::hostFile(kHost), clean.stateDir()))
                         ->operationCount() -
                     before;
    ASSERT_GT(total, 5u);
    Counts c;
    for (unsigned k = 1; k <= total; k++) {
        Cli cli(kHost);
        copyTree(setup.keyfileDir(), cli.keyfileDir());
        copyTree(setup.stateDir(), cli.stateDir());
        auto hostBefore = hostState(cli.stateDir());
        std::string storeBefore = cli.snapshot();
        std::string faults = "op=*,nth=" + std::to_string(k) + ",errno=EIO;op=*,nth=" + std::to_string(k + 1) +
                             ",errno=EIO";
        Result r = cli.run({"-j", "apply", "-"}, kApply, {{"IBNM_FAKE_FAIL", faults}});
        c.positions++;
        EXPECT_EQ(r.status, 1) << "position " << k << ": " << r.out << r.err;
        c.failed += r.status != 0;
        checkOne(cli, r, hostBefore, storeBefore, k, c);
    }
    std::printf("double faults over %u positions of a 3-profile apply (%u operations): %u failed; %u said rolled "
                "back (%u of them falsely), %u did not (%u objects that differ named nowhere); %u steps said done "
                "after they were undone\n",
                c.positions, unsigned(total), c.failed, c.rolledBack, c.falseRollback, c.notRolledBack, c.unlisted,
                c.doneButUndone);
}

} // namespace
