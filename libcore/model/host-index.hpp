// SPDX-License-Identifier: LGPL-2.1-or-later
// Lookups by name in a model::Host that does not change while they are
// made (a snapshot the planner or verification reads): one hash table per
// kind, built once, so that looking up every object of a large host is
// linear, not quadratic as model::Host's find* scans would make it.
// The index holds pointers into the host: it is valid while the host is
// neither changed nor destroyed.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/model/ipoib.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibnm::model {

class HostIndex {
public:
    explicit HostIndex(const Host &host) : childNaming(host.childNaming), host_(&host)
    {
        // The first of equal names, as Host's find* return.
        for (const auto &d : host.devices)
            devices_.emplace(d.name, &d);
        for (const auto &n : host.netdevs)
            netdevs_.emplace(n.name, &n);
        for (const auto &b : host.bonds)
            bonds_.emplace(b.name, &b);
        for (const auto &i : host.ipoib) {
            ipoib_.emplace(i.name, &i);
            if (!i.parent.empty()) {
                children_.emplace(childKey(i.parent, i.pkey), &i);
                childrenOf_[i.parent].push_back(&i);
            }
        }
    }

    // The names of model::Host's own lookups, so that the lookups of model/
    // (deviceOf, portOf) take either.
    const Device *findDevice(const std::string &name) const { return device(name); }
    const Netdev *findNetdev(const std::string &name) const { return netdev(name); }
    const IpoibNetdev *findIpoib(const std::string &name) const { return ipoib(name); }
    const Bond *findBond(const std::string &name) const { return bond(name); }

    const Device *device(const std::string &name) const { return get(devices_, name); }
    const Netdev *netdev(const std::string &name) const { return get(netdevs_, name); }
    const Bond *bond(const std::string &name) const { return get(bonds_, name); }
    const IpoibNetdev *ipoib(const std::string &name) const { return get(ipoib_, name); }
    // The child of parent with the P_Key, whatever its full-membership bit.
    const IpoibNetdev *child(const std::string &parent, uint16_t pkey) const
    {
        return get(children_, childKey(parent, pkey));
    }
    // model::findChild() of the host: the hashed lookup above for a parent's
    // child (an interface without a parent is not in it: asked for one, the
    // host's scan answers, as before).
    const IpoibNetdev *findChild(const std::string &parent, uint16_t pkey) const
    {
        return parent.empty() ? model::findChild(*host_, parent, pkey) : child(parent, pkey);
    }

    // Every P_Key child of `parent`, in the host's order.
    const std::vector<const IpoibNetdev *> &childrenOf(const std::string &parent) const
    {
        static const std::vector<const IpoibNetdev *> none;
        auto it = childrenOf_.find(parent);
        return it == childrenOf_.end() ? none : it->second;
    }

    // The host's, for the model's rules that take either.
    const ChildNaming childNaming;

private:
    static std::string childKey(const std::string &parent, uint16_t pkey)
    {
        return parent + '\n' + std::to_string(fullMembership(pkey));
    }
    template <typename T>
    static const T *get(const std::unordered_map<std::string, const T *> &m, const std::string &name)
    {
        auto it = m.find(name);
        return it == m.end() ? nullptr : it->second;
    }

    std::unordered_map<std::string, const Device *> devices_;
    std::unordered_map<std::string, const Netdev *> netdevs_;
    std::unordered_map<std::string, const Bond *> bonds_;
    std::unordered_map<std::string, const IpoibNetdev *> ipoib_;
    std::unordered_map<std::string, const IpoibNetdev *> children_;
    std::unordered_map<std::string, std::vector<const IpoibNetdev *>> childrenOf_;
    const Host *host_;
};

} // namespace ibnm::model
