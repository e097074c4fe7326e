// SPDX-License-Identifier: LGPL-2.1-or-later
// What a set of profiles asks of the host: the kernel objects and values the
// profiles describe, resolved from NetworkManager connections (libnm is the
// model; nothing is re-stored) into plain structs the planner compares with
// a model::Host.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <NetworkManager.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <unordered_map>

namespace ibnm::activation {

// Who asked for an object: for reports and errors.
struct Origin {
    std::string id;
    std::string uuid;
};

// The addresses and routes a profile sets (standalone mode). A family whose
// method is manual or disabled is managed: the interface ends with exactly
// the profile's addresses of that family (others are removed, link-local
// IPv6 excepted); other methods leave the family's addresses alone.
struct DesiredIp {
    std::vector<std::string> addresses;
    std::vector<model::Route> routes; // static routes and the gateway
    bool manage4 = false;
    bool manage6 = false;
    // What systemd-resolved is to hold for the link (model::resolvedLinkDns).
    model::LinkDns dns;
    bool manages(const std::string &cidr) const;
};

// A DesiredIp held by value, in 16 bytes when it has no address, route or
// DNS (most IPoIB children and bond ports): the lists then live in one of
// four shared empty values, one per pair of managed families. A plan of
// 10,000 such profiles held 1 MB of empty lists. Read-only but for
// assigning a whole DesiredIp.
class CompactIp {
public:
    CompactIp() = default;
    CompactIp(DesiredIp ip) { *this = std::move(ip); }
    CompactIp(const CompactIp &o)
        : full_(o.full_ ? std::make_unique<DesiredIp>(*o.full_) : nullptr), manage4_(o.manage4_), manage6_(o.manage6_)
    {
    }
    CompactIp(CompactIp &&) noexcept = default;
    CompactIp &operator=(const CompactIp &o)
    {
        if (this != &o)
            *this = CompactIp(o);
        return *this;
    }
    CompactIp &operator=(CompactIp &&) noexcept = default;
    CompactIp &operator=(DesiredIp ip);

    // Of a CompactIp that outlives the reference (none of a temporary).
    const DesiredIp &get() const &;
    const DesiredIp &get() const && = delete;
    operator const DesiredIp &() const & { return get(); }
    operator const DesiredIp &() const && = delete;
    const DesiredIp *operator->() const { return &get(); }

private:
    std::unique_ptr<DesiredIp> full_; // null: no list has anything
    bool manage4_ = false;
    bool manage6_ = false;
};

struct DesiredIpoib {
    Origin origin;
    std::string ifname;             // base: the netdev; child: NM's <parent>.%04x
    std::string parent;             // children only
    std::optional<uint16_t> pkey;   // children only, as configured
    std::string macAddress;         // base without ifname: match by port GUID
    model::IpoibMode mode = model::IpoibMode::Datagram;
    unsigned mtu = 0;               // 0: leave as is
    std::optional<bool> umcast;
    std::string master;             // bond interface when a port
    CompactIp ip;
};

struct DesiredBond {
    Origin origin;
    std::string ifname;
    std::string mode = "active-backup";
    std::optional<unsigned> miimon;
    std::string primary;
    std::string failOverMac;
    unsigned mtu = 0;
    // The property that holds the bond's MTU: the bond profile's
    // [ethernet] or [infiniband] setting (NetworkManager has no bond.mtu).
    const char *mtuProperty = "802-3-ethernet.mtu";
    CompactIp ip;
};

// An Ethernet profile's interface (standalone mode): its MTU, bond and IP,
// as NetworkManager would configure them. The interface must exist.
struct DesiredEthernet {
    Origin origin;
    std::string ifname;
    unsigned mtu = 0;
    std::string master;
    CompactIp ip;
};

// What the planner's errors call each value of a DesiredRdma: a profile's
// keys, or the arguments of a typed call (ibnm-rdma-apply.h: "netdev",
// "mode"), so that an error names what the caller wrote, once. Names are
// static strings: a plan of every profile holds one per RDMA profile.
struct RdmaNames {
    const char *netdev = "connection.interface-name";
    const char *linkType = "rdma.link-type";
    const char *linkName = "rdma.link-name";
    const char *roceMode = "rdma.roce-mode";
    const char *roceTos = "rdma.roce-tos";
    const char *trafficClass = "rdma.traffic-class";
    const char *tcRules = "rdma.traffic-class-rules";
    const char *roceEnable = "rdma.roce-enable";
    const char *ttl = "rdma.ttl";
};

// The RDMA extras of any profile (ethernet, infiniband, bond), or of a typed
// call. The target: a new soft link (linkType), else `device` and `port`
// when a typed call names them, else the RDMA port behind `netdev`.
struct DesiredRdma {
    Origin origin;
    RdmaNames names;
    std::string netdev;                       // the profile's interface
    std::string device;                       // typed calls: the RDMA device
    unsigned port = 1;                        // and its port
    std::optional<model::SoftLinkType> linkType;
    std::string linkName;                     // resolved default when unset
    std::optional<model::RoceMode> roceMode;
    std::optional<unsigned> roceTos;
    std::optional<unsigned> trafficClass;
    bool clearTrafficClass = false;           // typed call: disable the global class (a negative value)
    std::vector<model::TcRule> tcRules;       // tclass -1: the rule must be absent
    std::optional<bool> roceEnable;           // mlx5 roce_enable of the port's function
    std::optional<unsigned> ttl;
    bool any() const
    {
        return linkType || roceMode || roceTos || trafficClass || clearTrafficClass || !tcRules.empty() || roceEnable ||
               ttl;
    }
};

struct Desired {
    std::vector<DesiredIpoib> ipoib;
    std::vector<DesiredBond> bonds;
    std::vector<DesiredEthernet> ethernet;
    std::vector<DesiredRdma> rdma;
};

// Resolves `selected` (the profiles to bring up). `all` is every known
// profile, used to find a port's bond by id, uuid or interface name.
// `withIp`: also the static addresses, routes and gateway (standalone mode; with NetworkManager
// running, NetworkManager does IP). Errors name the profile and property.
// `standalone`: ibnm itself sets the addresses (no NetworkManager activates
// the profiles), so an IPoIB profile whose IPv4 method is automatic (DHCP) is
// refused: ibnm runs no DHCP client, and the interface would come up without
// the address the profile asks for.
// `all` indexed for resolve(): a port's bond by id, uuid or interface name,
// and a bond's Ethernet ports, each in O(1) instead of a scan of `all` (which
// made checking N profiles one by one quadratic). `all` must outlive it and
// not change.
class ProfileIndex {
public:
    explicit ProfileIndex(const std::vector<NMConnection *> &all);
    // The first profile of `all` whose uuid, id or interface name is `ref`.
    NMConnection *findMaster(const std::string &ref) const;
    // The Ethernet bond ports of `all` whose master is `bond` (by interface
    // name, uuid or id), in the order of `all`.
    std::vector<NMConnection *> ethernetPorts(NMConnection *bond) const;

private:
    // The uuid (0), id (1) and interface name (2) of profile `slot / 3`
    // (`slot` from slots_, less one).
    const char *refOf(uint32_t slot) const;
    // An open-addressing table of the profiles' own strings (they do not
    // change), each slot 3 * position + which string, plus one (0: empty),
    // the first position kept: copies of three strings of every profile
    // were 1.1 MB of `ibnm check` at 10,000 profiles, and a node-based map
    // of views of them 1 MB; this is 4 bytes a slot, at most half full.
    std::vector<uint32_t> slots_;
    std::unordered_map<std::string_view, std::vector<size_t>> portsByMaster_;
    const std::vector<NMConnection *> &all_;
};

// Whether up of `d` gives systemd-resolved something (a profile with DNS):
// then the host it plans on needs model::Host::resolver
// (Platform::readResolver()).
bool needsResolver(const Desired &d);
// RDMA secondaries (VPN profiles of nm-ibnm-service, no interface of their
// own) on their bases' interfaces, as NetworkManager activates them: for
// each selected base, copies of its secondaries named after its interface;
// for each selected secondary, copies on each interface of the profiles of
// `all` listing it (none, in `standalone` mode: an error). The copies go to
// `expanded` and are held in `placed`. resolve() does this when it resolves
// IP too (ibnm activating the profiles itself, and `ibnm check`).
Status placeSecondaries(const std::vector<NMConnection *> &selected, const std::vector<NMConnection *> &all,
                        const ProfileIndex &index, bool standalone, std::vector<NMConnection *> &expanded,
                        std::vector<GObjectPtr<NMConnection>> &placed);

// `index` (optional): an index of `all`, when resolve() runs many times
// against the same profiles.
Result<Desired> resolve(const std::vector<NMConnection *> &selected, const std::vector<NMConnection *> &all,
                        bool withIp, bool standalone = false, const ProfileIndex *index = nullptr);

} // namespace ibnm::activation
