// SPDX-License-Identifier: LGPL-2.1-or-later
// Active connections, as NetworkManager has them (STYLE.md "State over
// time"): a profile is active on one device or not, and its activation owns
// what it created (a P_Key child, a bond, a soft RDMA link, a configfs
// rdma_cm directory) and what it changed on objects that were there (MTU,
// transport mode, umcast, link state, bond membership, the addresses and
// routes it added, bond options, RDMA-CM defaults, traffic class and its
// rules, TTL, roce_enable), each with the value it had before, to restore.
//
// An ActiveRecord is that, for one activation: what `down` takes away and
// restores, and what `up` of a changed profile takes down first. It is kept
// as one JSON file per activation (docs/active-connections.md; the files
// themselves: ibnm-apply-active.cpp). Nothing here touches the host: the
// records are computed from the desired state and host snapshots, and the
// teardown is planned in planner-down.cpp.
#pragma once

#include "libcore/activation/desired.hpp"
#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ibnm::activation {

// An object the activation created; deleting it takes what was set on it.
struct CreatedObject {
    enum class Kind { IpoibChild, Bond, SoftLink, RdmaCm };
    Kind kind = Kind::IpoibChild;
    std::string name;         // the interface, soft link, or (RdmaCm) the RDMA device
    unsigned ifindex = 0;     // interfaces, once known (0: not yet)
    std::string parent;       // IpoibChild
    uint16_t pkey = 0;        // IpoibChild, as configured
    model::SoftLinkType linkType = model::SoftLinkType::Rxe; // SoftLink
    std::string netdev;       // SoftLink
    bool operator==(const CreatedObject &o) const;
};

// An interface that existed before the activation: the values it changed,
// as they were (nullopt: not changed), and what it added.
struct InterfaceChange {
    std::string name;
    unsigned ifindex = 0;
    std::optional<unsigned> mtu;
    std::optional<model::IpoibMode> mode;
    std::optional<bool> umcast;
    std::optional<bool> up;
    std::optional<std::string> master; // "" : it was in no bond
    std::vector<std::string> addedAddresses;
    std::vector<model::Route> addedRoutes;
    // What was there before and the activation removed (the profile sets
    // the family, or the interface became a port): `down` adds them again.
    std::vector<std::string> removedAddresses;
    bool empty() const;
};

struct BondChange {
    std::string name;
    std::optional<unsigned> miimon;
    std::optional<std::string> primary;
    bool empty() const { return !miimon && !primary; }
};

// One RDMA port's values as they were. A configfs value is only here when
// the device's rdma_cm directory existed (else CreatedObject::RdmaCm).
struct RdmaPortChange {
    std::string device;
    unsigned port = 1;
    std::optional<model::RoceMode> roceMode;
    std::optional<unsigned> roceTos;
    bool trafficClassChanged = false;
    std::optional<unsigned> trafficClass; // nullopt: disabled ("-1")
    bool ttlChanged = false;
    std::optional<unsigned> ttl;          // nullopt: the kernel did not show it
    // The rules with each match the profile set, as they were (tclass -1:
    // there was none).
    std::vector<model::TcRule> tcRules;
    bool empty() const;
};

struct RdmaDeviceChange {
    std::string device;
    std::optional<bool> roceEnabled;
};

// The DNS systemd-resolved held for a link before the activation gave it
// the profile's (planner.cpp's set-dns): `had` false, none (down gives the
// link back with RevertLink); otherwise `before`, set again by down.
struct DnsChange {
    std::string link;
    bool had = false;
    model::LinkDns before;
    bool operator==(const DnsChange &o) const { return link == o.link && had == o.had && before == o.before; }
};

struct ActiveRecord {
    // "activated": the activation completed and was verified. "activating":
    // written before the first step (what the activation may create or
    // change, with the values to restore), so that an ibnm killed midway
    // leaves a record of what it did; completed or pruned by the next
    // activation of the host.
    enum class State { Activating, Activated };
    std::string uuid;
    std::string id;
    std::string settings; // digest of the profile's settings it activated
    State state = State::Activating;
    std::string device;   // the interface it is active on ("" while activating)
    unsigned ifindex = 0;
    std::vector<CreatedObject> created;
    std::vector<InterfaceChange> interfaces;
    std::vector<BondChange> bonds;
    std::vector<RdmaPortChange> rdmaPorts;
    std::vector<RdmaDeviceChange> rdmaDevices;
    std::vector<DnsChange> dns;
    // Nothing created or changed.
    bool owns() const;
};

// The JSON text of a record (docs/active-connections.md), and back. A text
// that is not a record of this format fails, naming `what`.
std::string formatRecord(const ActiveRecord &record);
Result<ActiveRecord> parseRecord(const std::string &text, const std::string &what);

// A digest of a profile's settings, to tell an active profile whose stored
// settings changed (NetworkManager compares the applied connection with the
// profile the same way; connection.timestamp is not a setting).
std::string settingsDigest(NMConnection *profile);

// What activating the objects of `desired` that come from profile `uuid`
// may create or change on `before`, with the values `before` has: written
// before the first step. Complete for what the planner does.
ActiveRecord footprint(const Desired &desired, const std::string &uuid, const model::Host &before);

// `record` keeping only what `host` shows as still created or changed
// (compared with the values before); interfaces and children named as the
// host names them. What cannot be restored (a TTL the kernel did not show)
// counts as changed only when `keepUnrestorable`.
ActiveRecord prune(const ActiveRecord &record, const model::Host &host, bool keepUnrestorable = true);

// `record` with its objects' ifindexes as `host` has them, found by what
// names them (a child by parent and P_Key, others by name): after a
// rollback re-created what a failed step deleted, which the kernel gives a
// new ifindex.
ActiveRecord renew(ActiveRecord record, const model::Host &host);

// `record` with what `older` says was there before added: the values of
// `older` win (they are from before the first activation), its created
// objects are kept.
ActiveRecord merge(const ActiveRecord &older, ActiveRecord record);

// The interface the profile `uuid` of `desired` is active on in `host`
// (a P_Key child as the kernel named it, a port found by its GUID), with
// its ifindex; nullopt when it has none there.
std::optional<std::pair<std::string, unsigned>> deviceOf(const Desired &desired, const std::string &uuid,
                                                         const model::Host &host);

// Whether the activation of `record` is gone from `host`, as NetworkManager
// sees an active connection whose device disappeared: its device (name and
// ifindex) is no longer there.
bool gone(const ActiveRecord &record, const model::Host &host);

// The interfaces `record` owns or occupies on `host`: its device, the
// interfaces it created and those it changed.
std::vector<std::string> interfacesOf(const ActiveRecord &record);

} // namespace ibnm::activation
