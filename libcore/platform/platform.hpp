// SPDX-License-Identifier: LGPL-2.1-or-later
// The platform: everything libibnm does to or reads from the kernel goes
// through this interface (NetworkManager's NMPlatform is the model). Two
// implementations: Linux (sysfs, rtnetlink and RDMA netlink on libnl-3,
// libibverbs) and Fake (the simulated host: in memory, loaded from a host
// description, with the kernel's semantics and fault injection).
//
// Every operation is one kernel-visible step; activation composes them, counts
// them and undoes them in reverse on failure. Errors carry errno and name the
// object ("ib0.8002: ...").
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/platform/rdma-test.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/result.hpp"
#include "libcore/support/raii.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace ibnm::platform {

struct IpoibChildSpec {
    std::string parent;    // "ib0"
    uint16_t pkey = 0;     // as configured (0x0001-0xffff, not 0x8000)
    std::optional<model::IpoibMode> mode;
    std::optional<bool> umcast;
    // The name to ask for where the kernel takes one (rtnetlink), chosen by
    // the planner (model::childName); empty: the upstream name
    // (model::childName, ChildNaming::Upstream). sysfs create_child takes none: the kernel names
    // the child, and createIpoibChild returns what it made.
    std::string name;
};

struct BondSpec {
    std::string name;
    std::string mode = "active-backup";
    std::optional<unsigned> miimon;
    std::string primary;      // empty: none
    std::string failOverMac;  // empty: kernel default
};

// What an apply needs the kernel to offer before its first step: on a host
// set up by hand, modprobe and systemd's sys-kernel-config.mount did it
// (FACTS.md: nothing loads rdma_cm for a host that has only rdma_rxe).
struct Prerequisites {
    std::set<model::SoftLinkType> softLinkDrivers; // rdma_rxe, siw
    bool rdmaCmConfigfs = false; // configfs mounted, rdma_cm loaded (rdma_ucm)
    bool empty() const { return softLinkDrivers.empty() && !rdmaCmConfigfs; }
};

// What changed on a host, as a watch reports it (bits; IbnmHostChangeFlags
// has the same values).
enum Change : unsigned {
    kChangeLinks = 1u << 0,       // a netdev created, removed, renamed, set up or down
    kChangeAddresses = 1u << 1,   // an IP address added or removed (RoCE GIDs follow them)
    kChangeRdmaDevices = 1u << 2, // an RDMA device registered or removed, a netdev attached
    kChangePorts = 1u << 3,       // an RDMA port's state
    kChangeGidTables = 1u << 4,   // a GID table (a second look after one of the first three)
    kChangeAll = 0x1fu,
};

// A watch on a host's changes, from Platform::watchChanges(): its sources
// are attached to a GMainContext until it is destroyed.
class ChangeWatch {
public:
    virtual ~ChangeWatch() = default;
    // The changes the kernel announces (events), and those the watch finds
    // by reading again every pollMs milliseconds (what nobody announces).
    virtual unsigned notified() const = 0;
    virtual unsigned polled() const = 0;
    virtual unsigned pollMs() const = 0;
};
// Called on the watch's context with the Change bits seen since the last call.
using ChangeCallback = std::function<void(unsigned changes)>;

class Platform {
public:
    virtual ~Platform() = default;

    // "linux" or "fake".
    virtual const char *kind() const = 0;

    // Serialises activations on this host: an up or down holds the returned
    // lock from reading the host through planning, applying and verifying
    // (or undoing), so that a parallel run never plans on, or rolls back,
    // another run's half-done work. While another process holds it, waits
    // until `waitUntil` (support/file-lock.hpp: a deadline, kLockNoWait or
    // kLockWaitForever), then fails with IBNM_ERROR_TIMED_OUT naming that
    // process. Taken after the profile store's lock, never before it.
    // An empty fd: there is nothing to serialise (a read-only platform).
    virtual Result<UniqueFd> lockActivations(int64_t waitUntil)
    {
        (void)waitUntil;
        return UniqueFd();
    }

    // A consistent snapshot of the host.
    virtual Result<model::Host> readHost() = 0;

    // readHost() without the GID tables: every port's gids empty, and a
    // netdev that only a GID entry names (a VLAN on a RoCE port, an rxe's
    // netdev on some kernels, a RoCE LAG bond) without its RDMA device and
    // port. What the profile rules need when none of those netdevs is one
    // they ask about (rules::needsGidTables()); on a large host the GID
    // files are most of what readHost() reads. By default readHost().
    virtual Result<model::Host> readHostWithoutGidTables() { return readHost(); }

    // The RDMA devices with their port numbers and GID tables (index, GID,
    // type, netdev) and nothing else: what `ibnm rdma gid show` needs,
    // without reading every netdev and attribute of a large host. The
    // GIDs are those readHost() shows, with each port's link layer and the
    // device's roce_enable (GID-index advice needs them); other fields may
    // be left unset.
    virtual Result<model::Host> readGidTables() = 0;

    // IPoIB. createIpoibChild returns the name the kernel gave the child
    // (never guessed: read back).
    virtual Result<std::string> createIpoibChild(const IpoibChildSpec &spec) = 0;
    virtual Status deleteIpoibChild(const std::string &parent, uint16_t pkey) = 0;
    virtual Status setIpoibMode(const std::string &ifname, model::IpoibMode mode) = 0;
    virtual Status setIpoibUmcast(const std::string &ifname, bool umcast) = 0;

    // Links.
    virtual Status setMtu(const std::string &ifname, unsigned mtu) = 0;
    virtual Status setUp(const std::string &ifname, bool up) = 0;
    virtual Status createBond(const BondSpec &spec) = 0;
    // Changes a bond's options that the kernel changes under its ports:
    // miimon, and primary (empty: none). What is nullopt stays.
    virtual Status setBondOptions(const std::string &bond, std::optional<unsigned> miimon,
                                  std::optional<std::string> primary) = 0;
    virtual Status enslave(const std::string &port, const std::string &bond) = 0;
    virtual Status release(const std::string &port) = 0;
    virtual Status deleteLink(const std::string &ifname) = 0;
    virtual Status addAddress(const std::string &ifname, const std::string &cidr) = 0;
    virtual Status removeAddress(const std::string &ifname, const std::string &cidr) = 0;
    virtual Status addRoute(const std::string &ifname, const model::Route &route) = 0;
    virtual Status removeRoute(const std::string &ifname, const model::Route &route) = 0;

    // RDMA.
    // Loads the kernel modules and mounts the filesystems `needs` names,
    // doing nothing for what is there already. Not undone: a module or a
    // mount serves other users too (as modprobe's would).
    virtual Status prepare(const Prerequisites &needs) = 0;
    virtual Status addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev) = 0;
    virtual Status deleteSoftLink(const std::string &name) = 0;
    virtual Status setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode) = 0;
    virtual Status setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos) = 0;
    // Removes the device's configfs rdma_cm directory, so the kernel's
    // defaults apply again (nothing to do when it is not there).
    virtual Status removeRoceDefaults(const std::string &device) = 0;
    virtual Status setTrafficClass(const std::string &device, unsigned port, unsigned tclass) = 0;
    // Disables the global traffic class again ("-1"): what an unset one is.
    virtual Status clearTrafficClass(const std::string &device, unsigned port) = 0;
    virtual Status setTtl(const std::string &device, unsigned port, unsigned ttl) = 0;
    // Writes one rule to tc/<port>/traffic_class (tclass -1 removes the rule
    // with that match; model::formatTcRule spells it).
    virtual Status setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule) = 0;
    // Writes the PCI function's roce_enable (mlx5): disabling removes the
    // GID tables of every port of `device`, enabling brings them back.
    virtual Status setRoceEnabled(const std::string &device, bool enabled) = 0;
    // The host-wide policy files under /etc (memlock limits, udev rules) are
    // configuration, not kernel state: settings writes them
    // (settings/host-files.hpp).

    // DNS. systemd-resolved (org.freedesktop.resolve1 on the system bus)
    // holds each link's DNS servers and search domains; without
    // NetworkManager, ibnm gives a profile's to it as NetworkManager does
    // (model::resolvedLinkDns).
    // Whether it runs (never started for the asking) and what it holds per
    // link. That it does not run, or does not answer in time, is no error:
    // Resolver::running false, with the reason.
    virtual Result<model::Resolver> readResolver() = 0;
    // Gives `ifname`'s DNS servers and search domains to systemd-resolved
    // (SetLinkDNS, SetLinkDomains), replacing what it had.
    virtual Status setLinkDns(const std::string &ifname, const model::LinkDns &dns) = 0;
    // Gives the link back to systemd-resolved's own configuration
    // (RevertLink); nothing to do (success) where it has none, or where
    // systemd-resolved does not run.
    virtual Status revertLinkDns(const std::string &ifname) = 0;
    // Watches the host for changes, calling `onChange` on `context` after
    // each (never from inside this call). By default a platform announces
    // nothing: the watch reports every kind of change five times a second,
    // for its owner to read the host again (the simulated host: a test
    // tool; poll-watch.hpp). The Linux platform waits for the kernel's
    // events (linux-watch.cpp).
    virtual Result<std::unique_ptr<ChangeWatch>> watchChanges(GMainContext *context, ChangeCallback onChange);

    // Traffic: one RDMA-CM connection with a peer, as a listener or a
    // client (platform/rdma-test.hpp). Blocks until the exchange is over,
    // failed, timed out or cancelled. A platform without a data path (the
    // simulated host, a sysfs tree) refuses it with IBNM_ERROR_NOT_SUPPORTED.
    virtual Result<RdmaTestOutcome> runRdmaTest(const RdmaTestSpec &spec);
};

inline Result<RdmaTestOutcome> Platform::runRdmaTest(const RdmaTestSpec &)
{
    return Error(IBNM_ERROR_NOT_SUPPORTED, _("this host has no RDMA data path to test"));
}

} // namespace ibnm::platform

#include "libcore/platform/poll-watch.hpp" // Platform::watchChanges()
