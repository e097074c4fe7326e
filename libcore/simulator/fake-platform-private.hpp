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

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>
#include <tuple>
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

// Lookups in the state by name (the first of equal names, as model::Host's
// find*); nullptr when absent.
inline model::Netdev *findNetdev(model::Host &h, const std::string &name) { return model::findByName(h.netdevs, name); }
inline model::IpoibNetdev *findIpoib(model::Host &h, const std::string &name) { return model::findByName(h.ipoib, name); }
inline model::Bond *findBond(model::Host &h, const std::string &name) { return model::findByName(h.bonds, name); }
inline model::Device *findDevice(model::Host &h, const std::string &name) { return model::findByName(h.devices, name); }
inline const model::SoftLink *findSoftLink(const model::Host &h, const std::string &name)
{
    return model::findByName(h.softLinks, name);
}

// The first IPoIB child of `parent` whose P_Key is `pkey` (as stored: the
// full-membership bit set), nullptr if none.
inline const model::IpoibNetdev *childOf(const model::Host &h, const std::string &parent, uint16_t pkey)
{
    for (const auto &ib : h.ipoib)
        if (ib.parent == parent && ib.pkey == pkey)
            return &ib;
    return nullptr;
}

// How many IPoIB netdevs have `parent` as their parent.
inline unsigned childCount(const model::Host &h, const std::string &parent)
{
    return static_cast<unsigned>(
        std::count_if(h.ipoib.begin(), h.ipoib.end(), [&](const auto &ib) { return ib.parent == parent; }));
}

// The positions in h.netdevs of the ports of `bond` (the netdevs whose
// master it is), in h.netdevs' order.
inline std::vector<size_t> portsOf(const model::Host &h, const std::string &bond)
{
    std::vector<size_t> out;
    for (size_t i = 0; i < h.netdevs.size(); i++)
        if (h.netdevs[i].master == bond)
            out.push_back(i);
    return out;
}

// The largest ifindex + 1 (at least 1): the ifindex of a new netdev.
inline unsigned nextIfindex(const model::Host &h)
{
    unsigned max = 0;
    for (const auto &n : h.netdevs)
        max = std::max(max, n.ifindex);
    return max + 1;
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

// The RoCE LAGs of the stored state (fake-driver.cpp).
std::vector<Lag> lagsOf(const model::Host &h);

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
        auto key = [this] {
            std::set<std::tuple<std::string, std::string, std::string>> k;
            for (const auto &l : fake::lagsOf(state_.host))
                k.emplace(l.name, l.primary, l.secondary);
            return k;
        };
        auto before = key();
        Status s = fn();
        auto after = key();
        if (!s.ok() || after == before)
            return s;
        std::set<std::string> changed;
        for (const auto *lags : {&before, &after})
            for (const auto &[name, primary, secondary] : *lags)
                changed.insert({primary, secondary});
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
