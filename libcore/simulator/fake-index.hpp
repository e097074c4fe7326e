// SPDX-License-Identifier: LGPL-2.1-or-later
// Lookups by name in the simulated host's state while operations change it
// (issue 17: each operation's cost independent of the host's size). Unlike
// model::HostIndex, which indexes a snapshot that does not change, this one
// follows the state it describes:
// - objects appended to the host's vectors (push_back) are indexed at the
//   next lookup (the entries past those already seen);
// - an erase, or a new state assigned, must call invalidate(): the next
//   lookup indexes the whole host again (a shrunk vector does too);
// - a netdev's master changed in place must call masterChanged().
// It holds positions, not pointers, and checks each position it answers
// (the name at it): a stale one makes it index the host again. Where names
// are equal, it answers the first, as model::Host's find* scans.
#pragma once

#include "libcore/model/host.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibnm::platform::fake {

class StateIndex {
public:
    static constexpr size_t npos = static_cast<size_t>(-1);

    void invalidate() { valid_ = false; }

    size_t netdev(const model::Host &h, const std::string &name) { return find(h, h.netdevs, netdevs_, name); }
    size_t ipoib(const model::Host &h, const std::string &name) { return find(h, h.ipoib, ipoib_, name); }
    size_t bond(const model::Host &h, const std::string &name) { return find(h, h.bonds, bonds_, name); }
    size_t device(const model::Host &h, const std::string &name) { return find(h, h.devices, devices_, name); }
    size_t softLink(const model::Host &h, const std::string &name) { return find(h, h.softLinks, softLinks_, name); }

    // The first IPoIB child of `parent` whose P_Key is `pkey` (as stored:
    // the full-membership bit set), npos if none.
    size_t child(const model::Host &h, const std::string &parent, uint16_t pkey)
    {
        for (int pass = 0; pass < 2; pass++) {
            sync(h);
            auto it = children_.find(childKey(parent, pkey));
            if (it == children_.end())
                return npos;
            size_t i = it->second;
            if (i < h.ipoib.size() && h.ipoib[i].parent == parent && h.ipoib[i].pkey == pkey)
                return i;
            valid_ = false;
        }
        return npos;
    }

    // How many IPoIB netdevs have `parent` as their parent.
    unsigned childCount(const model::Host &h, const std::string &parent)
    {
        sync(h);
        auto it = childCount_.find(parent);
        return it == childCount_.end() ? 0 : it->second;
    }

    // The first of the soft links of `type` on `netdev`, npos if none.
    size_t softLinkOn(const model::Host &h, const std::string &netdev, model::SoftLinkType type)
    {
        for (int pass = 0; pass < 2; pass++) {
            sync(h);
            auto it = softLinksOn_.find(softLinkKey(netdev, type));
            if (it == softLinksOn_.end())
                return npos;
            size_t i = it->second;
            if (i < h.softLinks.size() && h.softLinks[i].netdev == netdev && h.softLinks[i].type == type)
                return i;
            valid_ = false;
        }
        return npos;
    }

    // The largest ifindex + 1 (at least 1): the ifindex of a new netdev.
    unsigned nextIfindex(const model::Host &h)
    {
        sync(h);
        return maxIfindex_ + 1;
    }

    // The positions in h.netdevs of the ports of `bond` (the netdevs whose
    // master it is), in h.netdevs' order.
    const std::vector<size_t> &ports(const model::Host &h, const std::string &bond)
    {
        static const std::vector<size_t> none;
        for (int pass = 0; pass < 2; pass++) {
            sync(h);
            auto it = ports_.find(bond);
            if (it == ports_.end())
                return none;
            bool fresh = std::all_of(it->second.begin(), it->second.end(), [&](size_t i) {
                return i < h.netdevs.size() && h.netdevs[i].master == bond;
            });
            if (fresh)
                return it->second;
            valid_ = false;
        }
        return none;
    }

    // h.netdevs[i]'s master was `before` and is now h.netdevs[i].master.
    void masterChanged(const model::Host &h, size_t i, const std::string &before)
    {
        // Not indexed yet: the next lookup reads its master as it is now.
        if (!valid_ || i >= netdevs_.seen)
            return;
        if (!before.empty()) {
            auto &v = ports_[before];
            v.erase(std::remove(v.begin(), v.end(), i), v.end());
        }
        if (!h.netdevs[i].master.empty()) {
            auto &v = ports_[h.netdevs[i].master];
            auto at = std::lower_bound(v.begin(), v.end(), i);
            if (at == v.end() || *at != i)
                v.insert(at, i);
        }
    }

private:
    struct Names {
        std::unordered_map<std::string, size_t> at;
        size_t seen = 0;
    };

    static std::string childKey(const std::string &parent, uint16_t pkey)
    {
        return parent + '\n' + std::to_string(pkey);
    }
    static std::string softLinkKey(const std::string &netdev, model::SoftLinkType type)
    {
        return netdev + '\n' + std::to_string(static_cast<int>(type));
    }

    template <typename T>
    size_t find(const model::Host &h, const std::vector<T> &v, Names &names, const std::string &name)
    {
        for (int pass = 0; pass < 2; pass++) {
            sync(h);
            auto it = names.at.find(name);
            if (it == names.at.end())
                return npos;
            if (it->second < v.size() && v[it->second].name == name)
                return it->second;
            valid_ = false; // stale: index the host again
        }
        return npos;
    }

    // Indexes what was appended since the last lookup; everything again
    // when invalidated or when a vector shrank.
    void sync(const model::Host &h)
    {
        if (valid_ && (h.netdevs.size() < netdevs_.seen || h.ipoib.size() < ipoib_.seen ||
                       h.bonds.size() < bonds_.seen || h.devices.size() < devices_.seen ||
                       h.softLinks.size() < softLinks_.seen))
            valid_ = false;
        if (!valid_) {
            for (Names *n : {&netdevs_, &ipoib_, &bonds_, &devices_, &softLinks_}) {
                n->at.clear();
                n->seen = 0;
            }
            children_.clear();
            childCount_.clear();
            softLinksOn_.clear();
            ports_.clear();
            maxIfindex_ = 0;
            valid_ = true;
        }
        for (size_t &i = netdevs_.seen; i < h.netdevs.size(); i++) {
            const model::Netdev &n = h.netdevs[i];
            netdevs_.at.emplace(n.name, i);
            maxIfindex_ = std::max(maxIfindex_, n.ifindex);
            if (!n.master.empty())
                ports_[n.master].push_back(i);
        }
        for (size_t &i = ipoib_.seen; i < h.ipoib.size(); i++) {
            const model::IpoibNetdev &ib = h.ipoib[i];
            ipoib_.at.emplace(ib.name, i);
            childCount_[ib.parent]++;
            children_.emplace(childKey(ib.parent, ib.pkey), i);
        }
        for (size_t &i = bonds_.seen; i < h.bonds.size(); i++)
            bonds_.at.emplace(h.bonds[i].name, i);
        for (size_t &i = devices_.seen; i < h.devices.size(); i++)
            devices_.at.emplace(h.devices[i].name, i);
        for (size_t &i = softLinks_.seen; i < h.softLinks.size(); i++) {
            softLinks_.at.emplace(h.softLinks[i].name, i);
            softLinksOn_.emplace(softLinkKey(h.softLinks[i].netdev, h.softLinks[i].type), i);
        }
    }

    Names netdevs_, ipoib_, bonds_, devices_, softLinks_;
    std::unordered_map<std::string, size_t> children_;
    std::unordered_map<std::string, unsigned> childCount_;
    std::unordered_map<std::string, size_t> softLinksOn_;
    std::unordered_map<std::string, std::vector<size_t>> ports_;
    unsigned maxIfindex_ = 0;
    bool valid_ = false;
};

} // namespace ibnm::platform::fake
