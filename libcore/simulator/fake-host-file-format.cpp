// SPDX-License-Identifier: LGPL-2.1-or-later
// The host description writer (fake-host-file.hpp): formatHostDescription(),
// the text of a state snapshot, written by GKeyFile.
#include "config.h"

#include "libcore/simulator/fake-host-file.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <glib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibnm::platform {

using model::IpoibMode;

namespace {

// The state as a GKeyFile: groups in the order they are opened, keys in the
// order they are set.
class KeyFileWriter {
public:
    void group(const std::string &name) { group_ = name; }
    void string(const char *key, const std::string &v) { g_key_file_set_string(kf_.get(), group_.c_str(), key, v.c_str()); }
    // A string key written only when the value is not empty.
    void nonEmpty(const char *key, const std::string &v)
    {
        if (!v.empty())
            string(key, v);
    }
    void number(const char *key, uint64_t v) { g_key_file_set_uint64(kf_.get(), group_.c_str(), key, v); }
    void optional(const char *key, const std::optional<unsigned> &v)
    {
        if (v)
            number(key, *v);
    }
    void boolean(const char *key, bool v) { g_key_file_set_boolean(kf_.get(), group_.c_str(), key, v); }
    std::string take()
    {
        gsize len = 0;
        GCharPtr text(g_key_file_to_data(kf_.get(), &len, nullptr));
        return std::string(text.get(), len);
    }

private:
    GKeyFilePtr kf_{g_key_file_new()};
    std::string group_;
};

// The items of `v` as `format` writes each, each followed by ';'.
template <typename Container, typename Format>
std::string joinList(const Container &v, Format format)
{
    std::string out;
    for (const auto &x : v) {
        out += format(x);
        out += ';';
    }
    return out;
}

std::string joinList(const std::vector<std::string> &v)
{
    return joinList(v, [](const std::string &s) -> const std::string & { return s; });
}

} // namespace

std::string formatHostDescription(const FakeState &st)
{
    KeyFileWriter w;
    const auto &h = st.host;
    w.group("host");
    w.string("kernel-release", h.kernelRelease);
    w.string("child-naming", h.childNaming == model::ChildNaming::Upstream ? "upstream" : "ofed");
    if (st.resolver.running)
        w.boolean("resolved", true);
    if (!h.rdmaNetlink.value_or(true))
        w.boolean("rdma-netlink", false);
    w.group("simulation");
    w.number("operations", st.operations);
    for (const auto &d : h.devices) {
        w.group("device " + d.name);
        w.nonEmpty("driver", d.driver);
        w.nonEmpty("node-type", d.nodeType);
        w.nonEmpty("node-guid", d.nodeGuid);
        w.nonEmpty("fw-ver", d.fwVersion);
        w.nonEmpty("hca-type", d.hcaType);
        w.nonEmpty("board-id", d.boardId);
        w.nonEmpty("pci-address", d.pciAddress);
        w.boolean("enhanced-ipoib", d.enhancedIpoib);
        w.boolean("connected-mode", d.connectedModeSupported);
        if (d.roceEnabled)
            w.boolean("roce-enable", *d.roceEnabled);
        for (const auto &p : d.ports) {
            std::string id = d.name + "/" + std::to_string(p.number);
            w.group("port " + id);
            w.string("link-layer", linkLayerName(p.linkLayer));
            w.nonEmpty("state", p.state);
            w.nonEmpty("phys-state", p.physState);
            w.nonEmpty("rate", p.rate);
            w.optional("lid", p.lid);
            w.optional("sm-lid", p.smLid);
            w.optional("active-mtu", p.activeMtu);
            w.optional("max-mtu", p.maxMtu);
            w.optional("broadcast-mtu", p.broadcastMtu);
            w.nonEmpty("pkeys", joinList(p.pkeys, [](uint16_t pk) { return strprintf("0x%04x", pk); }));
            auto guid = st.portGuids.find(id);
            if (guid != st.portGuids.end())
                w.nonEmpty("port-guid", guid->second);
            if (p.defaultRoceMode)
                w.string("default-roce-mode", ibnm::platform::roceModeName(*p.defaultRoceMode));
            w.optional("default-roce-tos", p.defaultRoceTos);
            w.optional("traffic-class", p.trafficClass);
            w.nonEmpty("traffic-class-rules",
                       joinList(p.tcRules, [](const model::TcRule &r) { return model::formatTcRule(r); }));
            w.optional("ttl", p.ttl);
        }
    }
    // IPoIB attributes by netdev name (h.findIpoib() in the loop would make
    // a host of hundreds of children quadratic).
    std::unordered_map<std::string_view, const model::IpoibNetdev *> ipoib;
    for (const auto &ib : h.ipoib)
        ipoib.emplace(ib.name, &ib);
    for (const auto &n : h.netdevs) {
        w.group("netdev " + n.name);
        w.number("ifindex", n.ifindex);
        w.number("type", n.type);
        w.nonEmpty("kind", n.kind);
        w.nonEmpty("address", n.address);
        w.number("mtu", n.mtu);
        auto mm = st.maxMtu.find(n.name);
        if (mm != st.maxMtu.end())
            w.number("max-mtu", mm->second);
        if (auto om = st.originalMtu.find(n.name); om != st.originalMtu.end())
            w.number("original-mtu", om->second);
        w.boolean("up", n.up);
        w.nonEmpty("addresses", joinList(n.addresses));
        w.nonEmpty("routes", joinList(n.routes, [](const model::Route &r) { return model::formatRoute(r); }));
        if (!n.rdmaDevice.empty())
            w.nonEmpty("rdma-port", n.rdmaDevice + "/" + std::to_string(n.rdmaPort));
        w.nonEmpty("link", n.link);
        w.nonEmpty("master", n.master);
        w.nonEmpty("egress-qos-map", joinList(n.egressQosMap, [](const std::pair<const unsigned, unsigned> &e) {
                       return std::to_string(e.first) + ":" + std::to_string(e.second);
                   }));
        if (n.pfcEnabled) {
            std::vector<std::string> prios;
            for (unsigned p = 0; p <= model::kMaxPriority; p++)
                if (model::pfcLossless(*n.pfcEnabled, p))
                    prios.push_back(std::to_string(p));
            w.string("pfc", prios.empty() ? "none" : joinList(prios));
        }
        if (auto dns = st.resolver.links.find(n.name); dns != st.resolver.links.end()) {
            w.nonEmpty("dns", joinList(dns->second.servers));
            w.nonEmpty("dns-search", joinList(dns->second.domains));
        }
        if (auto it = ipoib.find(n.name); it != ipoib.end()) {
            const model::IpoibNetdev *ib = it->second;
            w.nonEmpty("parent", ib->parent);
            w.string("pkey", strprintf("0x%04x", ib->pkey));
            w.string("mode", ib->mode == IpoibMode::Connected ? "connected" : "datagram");
            w.boolean("umcast", ib->umcast);
        }
    }
    for (const auto &b : h.bonds) {
        w.group("bond " + b.name);
        w.string("mode", b.mode);
        w.number("miimon", b.miimon);
        w.nonEmpty("primary", b.primary);
        w.nonEmpty("active-port", b.activePort);
        w.nonEmpty("fail-over-mac", b.failOverMac);
    }
    for (const auto &l : h.softLinks) {
        w.group("soft-link " + l.name);
        w.string("type", ibnm::platform::softLinkTypeName(l.type));
        w.string("netdev", l.netdev);
    }
    return w.take();
}

} // namespace ibnm::platform
