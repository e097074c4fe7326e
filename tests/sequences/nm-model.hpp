// SPDX-License-Identifier: LGPL-2.1-or-later
// A reference model of NetworkManager 1.42's activation rules, for the
// sequence test (sequence-test.cpp). It is a specification, written from
// NetworkManager's behaviour and the kernel's (FACTS.md "Active connections",
// issue 27, NetworkManager's src/core/nm-active-connection.c, nm-manager.c,
// nm-device.c and src/nmcli/connections.c, and what NetworkManager 1.42.4
// did in the NetworkManager lab: nm-model.cpp names each rule checked there),
// never from ibnm's code. Where ibnm differs from NetworkManager on purpose,
// the difference is one that docs/differences-from-nmcli.md or issue 27
// states, and the rule says so.
//
// It holds three things:
//   - profiles: what `connection add/modify/delete` stored;
//   - active connections: profile -> the device it is active on, the settings
//     it was activated with, and what the activation owns: the objects it
//     created and, for what it changed, the values to restore;
//   - the host: what the kernel shows afterwards (links, up/down, MTU, IPoIB
//     mode, addresses, bonds and ports, soft RDMA links, RoCE defaults,
//     traffic class), with the kernel's own side effects (FACTS.md).
// Each command returns the class of its exit status and, when it succeeds,
// leaves the model as the host and the store must be.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ibnm::model {
struct Host;
}

namespace ibnm::test::nm {

// --- the host -----------------------------------------------------------------

// A value the model predicts, or std::nullopt where NetworkManager's rules
// leave it to the kernel and the model does not say which it is (never
// compared).
template <typename T>
using Known = std::optional<T>;

struct Link {
    enum class Kind { Hardware, Child, Bond, Other };
    Kind kind = Kind::Hardware;
    bool ipoib = false;
    // Facts of the RDMA port behind an IPoIB link: the datagram maximum
    // (IPOIB_UD_MTU(max IB MTU) = max - 4), the ceiling the kernel clamps a
    // datagram MTU to (min(link, broadcast group) - 4), connected mode there.
    unsigned datagramMax = 0, datagramCeiling = 0;
    bool connectedOk = false;
    unsigned maxMtu = 65535; // Ethernet NICs
    std::string guid;        // IPoIB: the port GUID, last 8 bytes of the address
    std::string rdmaDevice;  // hardware RDMA function behind it ("mlx5_0")
    unsigned rdmaPort = 0;
    std::string parent;      // P_Key child: its parent
    unsigned pkey = 0xffff;  // IPoIB: as the kernel shows it (0x8000 set)
    // What changes.
    bool up = false;
    Known<unsigned> mtu;
    bool connected = false;
    bool umcast = false;
    std::string master;
    std::set<std::string> addresses; // link-local IPv6 left out
    Known<unsigned> mtuBeforeEnslave; // bond_enslave() keeps it; release gives it back
};

struct RoceDefaults {
    bool present = false;    // configfs rdma_cm/<dev> exists
    Known<std::string> mode; // "v1" | "v2"
    Known<unsigned> tos;
};

struct TrafficClass {
    Known<unsigned> tclass;
    Known<unsigned> ttl;
};

struct SoftLink {
    std::string type; // rxe | siw
    std::string netdev;
};

struct Host {
    bool ofedNaming = false;                      // child names with 0x8000 set (MLNX_OFED)
    std::map<std::string, Link> links;
    std::map<std::string, std::string> bondModes; // bond -> mode
    std::map<std::string, SoftLink> softLinks;    // RDMA device name -> link
    std::map<std::string, RoceDefaults> roce;     // "device/port"
    std::map<std::string, TrafficClass> tc;       // "device/port" (mlx5)
    // Hardware RDMA functions (as described, before RoCE LAG merges any).
    struct Function {
        std::string driver, pci;
        bool ethernet = false;
    };
    std::map<std::string, Function> functions;
    std::set<std::string> devices; // read back only: the RDMA devices the host shows

    // The RDMA devices the kernel shows: the functions, where two functions
    // of one mlx5 card are the only ports of one bond in active-backup,
    // balance-xor or 802.3ad mode one device mlx5_bond_N (RoCE LAG), and
    // the soft links.
    std::set<std::string> rdmaDevices() const;
    // The RDMA device serving `netdev` now ("" for none).
    std::string rdmaDeviceOf(const std::string &netdev) const;
};

// The host as the simulator reads it back, in the model's terms. `described`
// (the host file as parsed, before the driver derives anything) gives the
// static facts: which RDMA function is behind which netdev, port limits.
Host project(const model::Host &readBack, const model::Host &described);
// Where `model` and `actual` differ ("" when they agree), e.g.
// "ib0.8002: up: model yes, host no".
std::string difference(const Host &model, const Host &actual);

// --- profiles -----------------------------------------------------------------

struct Profile {
    enum class Type { Infiniband, Ethernet, Bond };
    std::string id;
    Type type = Type::Infiniband;
    std::string ifname;     // connection.interface-name
    std::string mac;        // infiniband.mac-address (a profile naming its port by MAC)
    std::string parent;     // infiniband.parent
    int pkey = -1;          // infiniband.p-key, as stored (-1: none)
    bool connected = false; // infiniband.transport-mode
    unsigned mtu = 0;       // 0: automatic
    std::string master;     // a bond port: connection.master (the bond's interface name)
    std::string bondMode;   // bonds
    std::vector<std::string> ipv4, ipv6; // manual addresses; none: the method is disabled
    std::optional<bool> umcast;
    std::string linkType, linkName; // rdma.link-type, rdma.link-name
    std::string roceMode;           // rdma.roce-mode
    int roceTos = -1, trafficClass = -1, ttl = -1;

    auto tie() const
    {
        return std::tie(id, type, ifname, mac, parent, pkey, connected, mtu, master, bondMode, ipv4, ipv6, umcast,
                        linkType, linkName, roceMode, roceTos, trafficClass, ttl);
    }
    bool operator==(const Profile &o) const { return tie() == o.tie(); }
    bool operator!=(const Profile &o) const { return !(*this == o); }
    bool isChild() const { return type == Type::Infiniband && pkey >= 0; }

    // `ibnm connection add` arguments.
    std::vector<std::string> addArgs() const;
    // `ibnm connection modify ID` arguments that turn this profile into `to`.
    std::vector<std::string> modifyArgs(const Profile &to) const;
};

// --- active connections ---------------------------------------------------------

struct Activation {
    Profile applied;    // the settings it was activated with
    std::string device; // the interface it is active on
    // What it owns: what it created, and for what it changed the values
    // before (`down` restores them): of each link, the fields an activation
    // of the profile changed (up, mtu, mode, umcast, master, addresses),
    // each with its value before the first change (a later `up` of the
    // profile records a field only where no earlier one did).
    std::set<std::string> createdLinks, createdSoftLinks;
    std::map<std::string, Link> linksBefore;
    std::map<std::string, std::set<std::string>> changedFields;
    std::map<std::string, RoceDefaults> roceBefore;
    std::map<std::string, TrafficClass> tcBefore;
};

// --- commands -------------------------------------------------------------------

enum class Status {
    Ok,
    Refused,   // refused before any change (an error of `ibnm check`): exit 1
    Failed,    // the kernel refused a step and everything was rolled back
    NotActive, // `down` of a profile that is not active: exit 10
    NotFound,  // no such profile: exit 10
};
const char *statusName(Status s);

struct Outcome {
    Status status = Status::Ok;
    std::string why;
    // Refused only because two profiles are for one interface: ibnm's rule
    // (NetworkManager activates either), which names one of the two as the
    // error; check, dry run and up must agree on which.
    bool conflictOnly = false;
};

// An entry of a declarative document (nmstate's schema,
// docs/declarative-state.md): the interface's profile with the values the
// entry gives (the mtu and the rdma keys only where set: others keep their
// stored values), and its state.
struct DocEntry {
    Profile profile;
    std::string state; // up | down | absent
};

class Model {
public:
    explicit Model(Host h) : host_(std::move(h)) {}

    // N10: `down` puts back the addresses the activation removed (issue 27,
    // "restores what it changed"); false: as NetworkManager 1.42, which
    // leaves them removed (lab). The test names the difference rule N10a.
    bool restoreRemovedAddresses = true;

    Outcome add(const Profile &p);
    Outcome modify(const std::string &id, const Profile &to);
    Outcome remove(const std::string &id);
    // `force`: as ibnm did when it took what the model refuses (to go on
    // after a broken rule).
    Outcome up(const std::vector<std::string> &ids, bool force = false);
    Outcome down(const std::vector<std::string> &ids);
    Outcome apply(const std::vector<DocEntry> &doc, bool force = false);

    const Host &host() const { return host_; }
    // After a broken rule, the test goes on from what ibnm did: the host as
    // read back (and what it holds counts as made by no one), a profile as
    // stored or gone.
    void resync(const Host &h);
    // `ip link set NAME down` by an administrator: the kernel's doing only;
    // the active connections stay (their next `up` brings the host back).
    void linkDownByHand(const std::string &name);
    void setProfile(const std::string &id, const std::optional<Profile> &p);
    const std::map<std::string, Profile> &profiles() const { return profiles_; }
    const Profile *profile(const std::string &id) const;
    const Activation *activation(const std::string &id) const;
    bool active(const std::string &id) const { return activation(id) != nullptr; }
    // What `ibnm check` must call an error in the stored profiles: profile
    // id -> why (a rule about several profiles names each of them).
    std::map<std::string, std::string> errors() const { return errorsOf(profiles_); }
    // Links and soft links an activation created at some time, and those the
    // active connections own now: the difference must be gone from the host.
    const std::set<std::string> &everCreated() const { return everCreated_; }
    std::set<std::string> owned() const;
    // The interface a profile is for, on the host as it is ("" when none).
    std::string deviceOf(const Profile &p) const;
    // The profile found for a document entry: by interface name, else by id.
    const Profile *documentProfile(const Profile &entry) const;
    // The profile a document entry makes of the stored one (or a new one).
    Profile merged(const Profile &entry) const;

private:
    std::map<std::string, std::string> errorsOf(const std::map<std::string, Profile> &store) const;
    std::optional<std::string> errorAlone(const Profile &p) const;
    const Profile *bondProfile(const std::map<std::string, Profile> &store, const std::string &ifname) const;

    void activate(const std::string &id);
    void deactivate(const std::string &id);
    void activateInfiniband(Activation &a, const Profile &p);
    void activateBond(Activation &a, const Profile &p);
    void activateEthernet(Activation &a, const Profile &p);
    void activateRdma(Activation &a, const Profile &p);
    void restore(const Activation &a);
    template <typename Fn>
    void keepChildren(Fn &&command);

    // The kernel's side of each change (FACTS.md).
    void record(Activation &a, const std::string &name, const Link &before);
    void setUp(const std::string &name, bool up);
    void setMode(const std::string &name, bool connected);
    void setMtu(const std::string &name, unsigned mtu);
    void enslave(const std::string &port, const std::string &bond);
    void release(const std::string &port);
    void deleteLink(const std::string &name);

    Host host_;
    std::map<std::string, Profile> profiles_;
    std::map<std::string, Activation> active_;
    std::set<std::string> everCreated_;
    std::set<std::string> commandDevices_; // devices (de)activated by the command running
};

// The name the kernel gives the child of `parent` with P_Key `pkey` (as
// written): upstream `<parent>.%04x` of the value, MLNX_OFED with 0x8000 set
// first; cut to 15 characters (FACTS.md).
std::string childName(const std::string &parent, int pkey, bool ofed);

} // namespace ibnm::test::nm
