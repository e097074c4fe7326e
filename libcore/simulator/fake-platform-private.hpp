// SPDX-License-Identifier: LGPL-2.1-or-later
// What the parts of FakePlatform share (libcore/simulator only, not
// installed): an error as the kernel reports it, a journal record's
// arguments, lookups in the host, RoCE LAG (defined in fake-driver.cpp), and
// the two templates every operation runs through: transact() (the lock and
// the state directory, fake-state-store.cpp) and mutate() (fault injection,
// the journal record, the RDMA devices re-created by a LAG change).
#pragma once

#include "libcore/simulator/fake-platform.hpp"

#include "libcore/support/raii.hpp"

#include <glib.h>
#include <glib/gstdio.h>

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ibnm::platform {

namespace fake {

// An error as the kernel reports it: errno, the object named first.
inline Error kernelError(int errnum, const std::string &object, IbnmError code = IBNM_ERROR_PLATFORM,
                         const std::string &detail = {})
{
    std::string msg = detail.empty() ? std::string(g_strerror(errnum)) : detail + " (" + g_strerror(errnum) + ")";
    return Error(code, std::move(msg), errnum).withContext(object);
}

// A journal record's arguments (fake-journal.hpp): numbers, enums and
// booleans in decimal; an optional is "" when absent, "=" and the value
// when set.
template <typename T>
std::string num(T v)
{
    return std::to_string(static_cast<unsigned long long>(v));
}

template <typename T>
std::string optNum(const std::optional<T> &v)
{
    return v ? "=" + num(*v) : std::string();
}

inline std::string optText(const std::optional<std::string> &v)
{
    return v ? "=" + *v : std::string();
}

inline Error noSuchNetdev(const std::string &name)
{
    return kernelError(ENODEV, name, IBNM_ERROR_NOT_FOUND);
}

// Lookups in the state (its index, fake-index.hpp: no scan of the host);
// nullptr when absent.
inline model::Netdev *findNetdev(StateIndex &ix, model::Host &h, const std::string &name)
{
    size_t i = ix.netdev(h, name);
    return i == StateIndex::npos ? nullptr : &h.netdevs[i];
}

inline model::IpoibNetdev *findIpoib(StateIndex &ix, model::Host &h, const std::string &name)
{
    size_t i = ix.ipoib(h, name);
    return i == StateIndex::npos ? nullptr : &h.ipoib[i];
}

inline model::Bond *findBond(StateIndex &ix, model::Host &h, const std::string &name)
{
    size_t i = ix.bond(h, name);
    return i == StateIndex::npos ? nullptr : &h.bonds[i];
}

inline model::Device *findDevice(StateIndex &ix, model::Host &h, const std::string &name)
{
    size_t i = ix.device(h, name);
    return i == StateIndex::npos ? nullptr : &h.devices[i];
}

inline const model::SoftLink *findSoftLink(StateIndex &ix, const model::Host &h, const std::string &name)
{
    size_t i = ix.softLink(h, name);
    return i == StateIndex::npos ? nullptr : &h.softLinks[i];
}

// RoCE LAG, as the mlx5 driver's lag code does it (NVIDIA's RoCE page): a
// bond in active-backup, balance-xor or 802.3ad whose only ports are the
// Ethernet netdevs of the two functions of one dual-port mlx5 card makes the
// card's two RDMA devices one, mlx5_bond_<n>, built on the first function
// and serving the bond; any other bond leaves the devices per port. Worked
// out from the stored state, where the per-port devices stay.
struct Lag {
    std::string name, primary, secondary, bond;
};

// The RoCE LAGs of the stored state (fake-driver.cpp); ix indexes h.
std::vector<Lag> lagsOf(const model::Host &h, StateIndex &ix);

// Removes "state.XXXXXX" and "journal.XXXXXX": the temporary files of a
// process killed while it wrote a snapshot. Called under the exclusive lock,
// which every writer holds while its temporary file exists.
void removeStaleTempFiles(const std::string &dir);

} // namespace fake

template <typename Fn>
Status FakePlatform::transact(bool write, Fn &&fn)
{
    if (replaying_)
        return fn();
    if (stateDir_.empty()) {
        Status result = fn();
        // A change no record describes (addNetdev, reset) is the new base.
        if (write && !pending_)
            rebase();
        else if (records_.size() >= compactAfter())
            rebase();
        pending_.reset();
        return result;
    }
    std::string lockPath = stateDir_ + "/lock";
    UniqueFd fd(::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd)
        return Error::fromErrno(errno, lockPath);
    while (flock(fd.get(), write ? LOCK_EX : LOCK_SH) != 0) {
        if (errno != EINTR)
            return Error::fromErrno(errno, lockPath);
    }
    // Once per process: under the lock (even a shared one) no writer is
    // between creating its temporary file and renaming it.
    if (!staleTempsRemoved_) {
        staleTempsRemoved_ = true;
        fake::removeStaleTempFiles(stateDir_);
    }
    if (auto s = loadState(); !s.ok())
        return s;
    if (!write)
        return fn();
    pending_.reset();
    Status result = fn();
    std::optional<journal::Record> record = std::move(pending_);
    pending_.reset();
    if (discardState_) {
        discardState_ = false;
        loadedValid_ = false; // the next operation reads the host file
        for (const char *name : {"/state", "/journal"}) {
            std::string path = stateDir_ + name;
            if (g_unlink(path.c_str()) != 0 && errno != ENOENT)
                return Error::fromErrno(errno, path);
        }
    } else if (auto s = record ? saveRecord(*record) : saveState(); !s.ok()) {
        // Nothing was written: the next operation reads the files again
        // instead of this instance's unsaved state.
        loadedValid_ = false;
        return s;
    }
    return result;
}

template <typename Fn>
Status FakePlatform::mutate(const char *op, const std::string &object, std::vector<std::string> args, Fn &&fn)
{
    // Entering or leaving RoCE LAG, the driver re-creates the card's RDMA
    // devices: their configfs directories and mlx5 tc/ settings are gone.
    auto withLag = [&]() -> Status {
        auto key = [this](const model::Host &h) {
            std::set<std::string> k;
            for (const auto &l : fake::lagsOf(h, index_))
                k.insert(l.name + "=" + l.primary + "+" + l.secondary);
            return k;
        };
        auto before = key(state_.host);
        Status s = fn();
        if (!s.ok() || key(state_.host) == before)
            return s;
        std::set<std::string> changed;
        std::set<std::string> all = before;
        for (const auto &k : key(state_.host))
            all.insert(k);
        for (const auto &k : all) {
            auto eq = k.find('='), plus = k.find('+');
            changed.insert(k.substr(eq + 1, plus - eq - 1));
            changed.insert(k.substr(plus + 1));
        }
        for (auto &d : state_.host.devices)
            if (changed.count(d.name))
                for (auto &p : d.ports) {
                    p.defaultRoceMode.reset();
                    p.defaultRoceTos.reset();
                    p.trafficClass.reset();
                    p.tcRules.clear();
                    p.ttl.reset();
                }
        return s;
    };
    return transact(true, [&]() -> Status {
        state_.operations++;
        if (replaying_)
            return withLag();
        pending_ = journal::Record{false, op, {}};
        if (Status f = injectFault(op, true, object); !f.ok())
            return f;
        Status s = withLag();
        if (!s.ok()) {
            // A refusal halfway changes nothing: back to the last base and
            // the operations since (no copy of the state on success).
            uint64_t ops = state_.operations;
            if (auto r = restore(); !r.ok())
                loadedValid_ = false;
            state_.operations = ops;
            return s;
        }
        pending_->ok = true;
        pending_->args = std::move(args);
        records_.push_back(*pending_);
        return s;
    });
}

} // namespace ibnm::platform
