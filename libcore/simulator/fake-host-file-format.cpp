// SPDX-License-Identifier: LGPL-2.1-or-later
// The host description writer (fake-host-file.hpp): formatHostDescription(),
// the text of a state snapshot, byte for byte what GKeyFile would write.
#include "config.h"

#include "libcore/simulator/fake-host-file.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/support/strings.hpp"

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

// Writes the key file text straight into a string, byte for byte what
// GKeyFile's setters and g_key_file_to_data() write: groups in the order they
// are opened, keys in the order they are set, a blank line between groups,
// values escaped as g_key_file_set_string() does. Building a GKeyFile of
// thousands of keys first cost a persisted operation 5 ms; this costs 0.4.
class KeyFileWriter {
public:
    // Every group gets at least one key (GKeyFile writes no empty group).
    void group(const std::string &name)
    {
        if (!out_.empty())
            out_ += '\n';
        out_ += '[';
        out_ += name;
        out_ += "]\n";
    }
    void string(const char *key, const std::string &v)
    {
        start(key);
        // g_key_file_parse_string_as_value(): leading blanks as \s and \t,
        // newline, carriage return and backslash everywhere. Most values
        // have none of them.
        if (v.find_first_of("\n\r\\") == std::string::npos && (v.empty() || (v[0] != ' ' && v[0] != '\t'))) {
            out_ += v;
            out_ += '\n';
            return;
        }
        bool leading = true;
        for (char c : v) {
            switch (c) {
            case ' ':
                out_ += leading ? "\\s" : " ";
                break;
            case '\t':
                out_ += leading ? "\\t" : "\t";
                break;
            case '\n':
                out_ += "\\n";
                break;
            case '\r':
                out_ += "\\r";
                break;
            case '\\':
                out_ += "\\\\";
                leading = false;
                break;
            default:
                out_ += c;
                leading = false;
                break;
            }
        }
        out_ += '\n';
    }
    // A string key written only when the value is not empty.
    void nonEmpty(const char *key, const std::string &v)
    {
        if (!v.empty())
            string(key, v);
    }
    void number(const char *key, uint64_t v)
    {
        start(key);
        out_ += std::to_string(v);
        out_ += '\n';
    }
    void optional(const char *key, const std::optional<unsigned> &v)
    {
        if (v)
            number(key, *v);
    }
    void boolean(const char *key, bool v)
    {
        start(key);
        out_ += v ? "true\n" : "false\n";
    }
    std::string take() { return std::move(out_); }

private:
    void start(const char *key)
    {
        out_ += key;
        out_ += '=';
    }
    std::string out_;
};

// The items of `v` as `format` writes each, each followed by ';'.
template <typename T, typename Format>
std::string joinList(const std::vector<T> &v, Format format)
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
