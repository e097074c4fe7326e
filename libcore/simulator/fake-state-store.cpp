// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated host's persistence (fake-platform.hpp): open() and its state
// directory, the snapshot (<dir>/state) and the journal (<dir>/journal,
// fake-journal.hpp) read and written under <dir>/lock, the undo of a refused
// operation (restore()), reset(), and replay(): a journal record done again.
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-host-file-private.hpp"
#include "libcore/support/file-lock.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"

#include <glib/gstdio.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <utility>

namespace ibnm::platform {

using model::IpoibMode;
using model::RoceMode;
using model::SoftLinkType;

using namespace fake;

FakePlatform::FakePlatform(FakeState state) : state_(std::move(state)), base_(state_) {}

FakePlatform::~FakePlatform() = default;

std::string FakePlatform::defaultStateDir(const std::string &hostFile)
{
    return hostFile + ".state";
}

Result<std::unique_ptr<FakePlatform>> FakePlatform::open(const std::string &hostFile, const std::string &stateDir)
{
    auto st = loadHostDescription(hostFile);
    if (!st.ok())
        return std::move(st).error();
    auto fake = std::make_unique<FakePlatform>(std::move(st).value());
    fake->hostFile_ = hostFile;
    fake->stateDir_ = stateDir;
    if (!stateDir.empty()) {
        if (g_mkdir_with_parents(stateDir.c_str(), 0755) != 0)
            return Error::fromErrno(errno, stateDir);
        auto loaded = fake->transact(false, [] { return Status(); });
        if (!loaded.ok())
            return std::move(loaded).error();
    }
    if (const char *env = g_getenv("IBNM_FAKE_FAIL")) {
        auto rules = parseFaultRules(env);
        if (!rules.ok())
            return std::move(rules).error();
        fake->addFaults(std::move(rules).value());
    }
    return fake;
}

Status FakePlatform::loadState()
{
    std::string statePath = stateDir_ + "/state";
    std::string journalPath = stateDir_ + "/journal";
    auto id = journal::snapshotId(statePath);
    if (!id.ok())
        return std::move(id).error();
    if (!id->has_value()) {
        // No snapshot: the host as described. Its bytes are compared with
        // those this instance parsed (only until the first operation
        // writes a snapshot).
        auto text = readHostDescriptionText(hostFile_);
        if (!text.ok())
            return std::move(text).error();
        if (loadedValid_ && loadedId_.empty() && *text == loadedText_)
            return {};
        auto st = parseHostDescription(*text, hostFile_);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        rebase();
        loadedText_ = std::move(text).value();
        loadedId_.clear();
        journalEnd_ = 0;
        journalOk_ = false;
        loadedValid_ = true;
        return {};
    }
    if (!loadedValid_ || **id != loadedId_ || loadedId_.empty()) {
        // Another instance wrote a new snapshot (or this one has none yet).
        // A file without an id (older ibnm) is a snapshot without journal.
        auto text = readHostDescriptionText(statePath);
        if (!text.ok())
            return std::move(text).error();
        auto st = parseHostDescription(*text, statePath);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        rebase();
        loadedText_.clear();
        loadedId_ = **id;
        journalEnd_ = 0;
        journalOk_ = false;
        loadedValid_ = true;
        if (loadedId_.empty())
            return {};
    }
    // The operations other instances did since this one last looked.
    auto tail = journal::readFrom(journalPath, loadedId_, journalEnd_);
    if (!tail.ok()) {
        loadedValid_ = false;
        return std::move(tail).error();
    }
    journalOk_ = tail->sameId;
    for (const auto &r : tail->records) {
        if (auto st = replay(r); !st.ok()) {
            loadedValid_ = false;
            return std::move(st).withContext(journalPath + ": " + r.op);
        }
        if (r.ok)
            records_.push_back(r);
    }
    journalEnd_ = tail->end;
    return {};
}


Status FakePlatform::saveState()
{
    std::string path = stateDir_ + "/state";
    std::string id = journal::newId();
    std::string text = "# The simulated host's state (ibnm). Delete this directory to reset it.\n" +
                       journal::snapshotLine(id) + formatHostDescription(state_);
    // A temporary file renamed over the old one: readers see the old or the
    // new state, never half of one (not durable: see kSimulatorFile).
    if (Status s = atomicWriteFile(path, text, journal::kSimulatorFile); !s.ok())
        return s;
    rebase();
    loadedText_.clear();
    loadedId_ = std::move(id);
    loadedValid_ = true;
    // The snapshot holds everything: if the new journal cannot be started,
    // the old one (another id) is ignored, and the next operation writes a
    // snapshot again.
    auto end = journal::create(stateDir_ + "/journal", loadedId_);
    journalOk_ = end.ok();
    journalEnd_ = end.ok() ? *end : 0;
    return {};
}

Status FakePlatform::saveRecord(const journal::Record &r)
{
    if (loadedId_.empty() || !journalOk_ || records_.size() >= compactAfter())
        return saveState();
    std::string line = journal::encode(r);
    if (auto st = journal::append(stateDir_ + "/journal", journalEnd_, line); !st.ok())
        return st;
    journalEnd_ += line.size();
    return {};
}

size_t FakePlatform::compactAfter() const
{
    const auto &h = state_.host;
    return std::max<size_t>(256, h.netdevs.size() + h.ipoib.size() + h.devices.size() + h.bonds.size() +
                                     h.softLinks.size());
}

void FakePlatform::rebase()
{
    base_ = state_;
    records_.clear();
}

Status FakePlatform::restore()
{
    state_ = base_;
    for (const auto &r : records_)
        if (auto st = replay(r); !st.ok())
            return st;
    return {};
}

namespace fake {

void removeStaleTempFiles(const std::string &dir)
{
    GDirPtr d(g_dir_open(dir.c_str(), 0, nullptr));
    if (!d)
        return;
    while (const char *name = g_dir_read_name(d.get())) {
        std::string n = name;
        for (const char *prefix : {"state.", "journal."}) {
            size_t len = std::char_traits<char>::length(prefix);
            if (n.size() != len + 6 || n.compare(0, len, prefix) != 0)
                continue;
            if (std::all_of(n.begin() + len, n.end(), [](char c) { return g_ascii_isalnum(c); }))
                g_unlink((dir + "/" + n).c_str());
        }
    }
}


} // namespace fake

uint64_t FakePlatform::operationCount()
{
    (void)transact(false, [] { return Status(); });
    return state_.operations;
}

Status FakePlatform::reset()
{
    if (hostFile_.empty())
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("this simulated host has no host file to reset to"));
    return transact(true, [&]() -> Status {
        auto st = loadHostDescription(hostFile_);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        // With a state directory transact() deletes the state files; in
        // memory the host as loaded is the new base.
        discardState_ = !stateDir_.empty();
        return {};
    });
}

Result<UniqueFd> FakePlatform::lockActivations(int64_t waitUntil)
{
    if (stateDir_.empty())
        return UniqueFd();
    return lockFileExclusive(stateDir_ + "/activations.lock", waitUntil, _("the activation lock"));
}

// --- the journal's records, done again ----------------------------------------

namespace {

unsigned long long toNum(const std::string &s)
{
    return g_ascii_strtoull(s.c_str(), nullptr, 10);
}

template <typename T>
std::optional<T> toOptNum(const std::string &s)
{
    if (s.empty())
        return std::nullopt;
    return static_cast<T>(toNum(s.substr(1)));
}

std::optional<std::string> toOptText(const std::string &s)
{
    if (s.empty())
        return std::nullopt;
    return s.substr(1);
}

} // namespace

Status FakePlatform::replay(const journal::Record &r)
{
    if (!r.ok) {
        state_.operations++; // refused: it only counted
        return {};
    }
    using Args = std::vector<std::string>;
    struct Op {
        size_t args;
        Status (*run)(FakePlatform &p, const Args &a);
    };
    static const std::map<std::string, Op> ops = {
        {"createIpoibChild", {4, [](FakePlatform &p, const Args &a) -> Status {
             IpoibChildSpec spec{a[0], static_cast<uint16_t>(toNum(a[1])), std::nullopt, std::nullopt};
             if (auto m = toOptNum<unsigned>(a[2]))
                 spec.mode = static_cast<IpoibMode>(*m);
             if (auto u = toOptNum<unsigned>(a[3]))
                 spec.umcast = *u != 0;
             auto created = p.createIpoibChild(spec);
             return created.ok() ? Status() : Status(std::move(created).error());
         }}},
        {"deleteIpoibChild", {2, [](FakePlatform &p, const Args &a) {
             return p.deleteIpoibChild(a[0], static_cast<uint16_t>(toNum(a[1])));
         }}},
        {"setIpoibMode", {2, [](FakePlatform &p, const Args &a) {
             return p.setIpoibMode(a[0], static_cast<IpoibMode>(toNum(a[1])));
         }}},
        {"setIpoibUmcast", {2, [](FakePlatform &p, const Args &a) { return p.setIpoibUmcast(a[0], toNum(a[1]) != 0); }}},
        {"setMtu", {2, [](FakePlatform &p, const Args &a) { return p.setMtu(a[0], static_cast<unsigned>(toNum(a[1]))); }}},
        {"setUp", {2, [](FakePlatform &p, const Args &a) { return p.setUp(a[0], toNum(a[1]) != 0); }}},
        {"createBond", {5, [](FakePlatform &p, const Args &a) {
             return p.createBond(BondSpec{a[0], a[1], toOptNum<unsigned>(a[2]), a[3], a[4]});
         }}},
        {"setBondOptions", {3, [](FakePlatform &p, const Args &a) {
             return p.setBondOptions(a[0], toOptNum<unsigned>(a[1]), toOptText(a[2]));
         }}},
        {"enslave", {2, [](FakePlatform &p, const Args &a) { return p.enslave(a[0], a[1]); }}},
        {"release", {1, [](FakePlatform &p, const Args &a) { return p.release(a[0]); }}},
        {"deleteLink", {1, [](FakePlatform &p, const Args &a) { return p.deleteLink(a[0]); }}},
        {"addAddress", {2, [](FakePlatform &p, const Args &a) { return p.addAddress(a[0], a[1]); }}},
        {"removeAddress", {2, [](FakePlatform &p, const Args &a) { return p.removeAddress(a[0], a[1]); }}},
        {"addRoute", {4, [](FakePlatform &p, const Args &a) {
             return p.addRoute(a[0], model::Route{a[1], a[2], static_cast<unsigned>(toNum(a[3]))});
         }}},
        {"removeRoute", {4, [](FakePlatform &p, const Args &a) {
             return p.removeRoute(a[0], model::Route{a[1], a[2], static_cast<unsigned>(toNum(a[3]))});
         }}},
        {"addSoftLink", {3, [](FakePlatform &p, const Args &a) {
             return p.addSoftLink(a[0], static_cast<SoftLinkType>(toNum(a[1])), a[2]);
         }}},
        {"deleteSoftLink", {1, [](FakePlatform &p, const Args &a) { return p.deleteSoftLink(a[0]); }}},
        {"setDefaultRoceMode", {3, [](FakePlatform &p, const Args &a) {
             return p.setDefaultRoceMode(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<RoceMode>(toNum(a[2])));
         }}},
        {"setDefaultRoceTos", {3, [](FakePlatform &p, const Args &a) {
             return p.setDefaultRoceTos(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<unsigned>(toNum(a[2])));
         }}},
        {"setTrafficClass", {3, [](FakePlatform &p, const Args &a) {
             return p.setTrafficClass(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<unsigned>(toNum(a[2])));
         }}},
        {"removeRoceDefaults", {1, [](FakePlatform &p, const Args &a) { return p.removeRoceDefaults(a[0]); }}},
        {"clearTrafficClass", {2, [](FakePlatform &p, const Args &a) {
             return p.clearTrafficClass(a[0], static_cast<unsigned>(toNum(a[1])));
         }}},
        {"setTtl", {3, [](FakePlatform &p, const Args &a) {
             return p.setTtl(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<unsigned>(toNum(a[2])));
         }}},
        {"setTrafficClassRule", {5, [](FakePlatform &p, const Args &a) {
             return p.setTrafficClassRule(a[0], static_cast<unsigned>(toNum(a[1])),
                                          model::TcRule{static_cast<int>(g_ascii_strtoll(a[2].c_str(), nullptr, 10)), a[3], a[4]});
         }}},
        {"setRoceEnabled", {2, [](FakePlatform &p, const Args &a) { return p.setRoceEnabled(a[0], toNum(a[1]) != 0); }}},
        {"setLinkDns", {3, [](FakePlatform &p, const Args &a) {
             return p.setLinkDns(a[0], model::LinkDns{hostfile::splitList(a[1]), hostfile::splitList(a[2])});
         }}},
        {"revertLinkDns", {1, [](FakePlatform &p, const Args &a) { return p.revertLinkDns(a[0]); }}},
    };
    auto it = ops.find(r.op);
    if (it == ops.end() || it->second.args != r.args.size())
        return Error(IBNM_ERROR_PARSE, _("not a journal record"));
    bool was = replaying_;
    replaying_ = true;
    Status s = it->second.run(*this, r.args);
    replaying_ = was;
    return s;
}

} // namespace ibnm::platform
