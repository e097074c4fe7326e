// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/activation/host-diff.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/model/ipoib.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ibnm::activation {

namespace {

using model::Host;

std::string yesNo(bool b)
{
    return b ? "yes" : "no";
}

std::string optionalText(const std::optional<unsigned> &v)
{
    return v ? std::to_string(*v) : std::string("-");
}

std::string joined(std::vector<std::string> v)
{
    std::sort(v.begin(), v.end());
    std::string out;
    for (const auto &s : v)
        out += (out.empty() ? "" : ",") + s;
    return out.empty() ? "-" : out;
}

// Collects "object: what X, was Y" lines.
class Differences {
public:
    void value(const std::string &object, const char *what, const std::string &now, const std::string &was)
    {
        if (now != was)
            lines_.push_back(strprintf(_("%s: %s %s, was %s"), object.c_str(), what, now.c_str(), was.c_str()));
    }
    // Objects of one kind, by name: present in one reading only, or
    // compared property by property with `compare`.
    template <typename T, typename Compare>
    void objects(const std::vector<T> &before, const std::vector<T> &after, Compare compare)
    {
        std::map<std::string, const T *> was, now;
        for (const auto &x : before)
            was.emplace(x.name, &x);
        for (const auto &x : after)
            now.emplace(x.name, &x);
        for (const auto &[name, x] : was) {
            auto it = now.find(name);
            if (it == now.end())
                lines_.push_back(strprintf(_("%s: absent, was present"), name.c_str()));
            else
                compare(name, *x, *it->second);
        }
        for (const auto &[name, x] : now)
            if (!was.count(name))
                lines_.push_back(strprintf(_("%s: present, was absent"), name.c_str()));
    }
    // Each line once (a soft RDMA link is a link and a device).
    std::vector<std::string> take()
    {
        std::vector<std::string> out;
        std::set<std::string> seen;
        for (auto &l : lines_)
            if (seen.insert(l).second)
                out.push_back(std::move(l));
        return out;
    }

private:
    std::vector<std::string> lines_;
};

std::string routes(const std::vector<model::Route> &rs)
{
    std::vector<std::string> v;
    for (const auto &r : rs)
        v.push_back(model::formatRoute(r));
    return joined(v);
}

std::string tcRules(const std::vector<model::TcRule> &rs)
{
    std::vector<std::string> v;
    for (const auto &r : rs)
        v.push_back(strprintf("tclass=%d,src_ip=%s,dst_ip=%s", r.tclass, r.srcIp.c_str(), r.dstIp.c_str()));
    return joined(v);
}

void comparePorts(Differences &d, const model::Device &was, const model::Device &now)
{
    for (const auto &p : was.ports) {
        const model::Port *q = nullptr;
        for (const auto &x : now.ports)
            if (x.number == p.number)
                q = &x;
        if (q == nullptr)
            continue; // a device's ports come and go with the device
        std::string object = strprintf("%s/%u", was.name.c_str(), p.number);
        auto mode = [](const std::optional<model::RoceMode> &m) {
            return !m ? std::string("-") : *m == model::RoceMode::V1 ? std::string("v1") : std::string("v2");
        };
        d.value(object, _("default RoCE mode"), mode(q->defaultRoceMode), mode(p.defaultRoceMode));
        d.value(object, _("default RoCE ToS"), optionalText(q->defaultRoceTos), optionalText(p.defaultRoceTos));
        d.value(object, _("traffic class"), optionalText(q->trafficClass), optionalText(p.trafficClass));
        d.value(object, _("traffic class rules"), tcRules(q->tcRules), tcRules(p.tcRules));
        d.value(object, _("TTL"), optionalText(q->ttl), optionalText(p.ttl));
    }
}

} // namespace

Host restrictedTo(const Host &host, const std::vector<std::string> &objects)
{
    std::set<std::string> names(objects.begin(), objects.end());
    auto named = [&](const std::string &n) { return names.count(n) > 0; };
    Host out;
    for (const auto &x : host.netdevs)
        if (named(x.name))
            out.netdevs.push_back(x);
    for (const auto &x : host.ipoib)
        if (named(x.name))
            out.ipoib.push_back(x);
    for (const auto &x : host.bonds)
        if (named(x.name))
            out.bonds.push_back(x);
    for (const auto &x : host.softLinks)
        if (named(x.name))
            out.softLinks.push_back(x);
    for (const auto &d : host.devices) {
        bool port = std::any_of(d.ports.begin(), d.ports.end(), [&](const model::Port &p) {
            return named(strprintf("%s/%u", d.name.c_str(), p.number));
        });
        if (named(d.name) || port)
            out.devices.push_back(d);
    }
    return out;
}

std::vector<std::string> hostDifferences(const Host &before, const Host &after)
{
    Differences d;
    d.objects(before.netdevs, after.netdevs, [&d](const std::string &n, const model::Netdev &was,
                                                  const model::Netdev &now) {
        d.value(n, _("MTU"), std::to_string(now.mtu), std::to_string(was.mtu));
        d.value(n, _("up"), yesNo(now.up), yesNo(was.up));
        d.value(n, _("controller"), now.master.empty() ? "-" : now.master, was.master.empty() ? "-" : was.master);
        d.value(n, _("addresses"), joined(now.addresses), joined(was.addresses));
        d.value(n, _("routes"), routes(now.routes), routes(was.routes));
    });
    d.objects(before.ipoib, after.ipoib, [&d](const std::string &n, const model::IpoibNetdev &was,
                                              const model::IpoibNetdev &now) {
        d.value(n, _("mode"), model::modeName(now.mode), model::modeName(was.mode));
        d.value(n, _("P_Key"), strprintf("0x%04x", now.pkey), strprintf("0x%04x", was.pkey));
        d.value(n, _("parent"), now.parent.empty() ? "-" : now.parent, was.parent.empty() ? "-" : was.parent);
        d.value(n, _("umcast"), yesNo(now.umcast), yesNo(was.umcast));
    });
    d.objects(before.bonds, after.bonds, [&d](const std::string &n, const model::Bond &was, const model::Bond &now) {
        d.value(n, _("bond mode"), now.mode, was.mode);
        d.value(n, _("ports"), joined(now.ports), joined(was.ports));
        d.value(n, _("primary"), now.primary.empty() ? "-" : now.primary, was.primary.empty() ? "-" : was.primary);
        d.value(n, _("miimon"), std::to_string(now.miimon), std::to_string(was.miimon));
        d.value(n, _("fail_over_mac"), now.failOverMac, was.failOverMac);
    });
    d.objects(before.softLinks, after.softLinks, [&d](const std::string &n, const model::SoftLink &was,
                                                      const model::SoftLink &now) {
        d.value(n, _("link type"), model::softLinkTypeName(now.type), model::softLinkTypeName(was.type));
        d.value(n, _("netdev"), now.netdev, was.netdev);
    });
    d.objects(before.devices, after.devices, [&d](const std::string &n, const model::Device &was,
                                                  const model::Device &now) {
        auto enabled = [](const std::optional<bool> &b) { return !b ? std::string("-") : yesNo(*b); };
        d.value(n, _("roce_enable"), enabled(now.roceEnabled), enabled(was.roceEnabled));
        comparePorts(d, was, now);
    });
    return d.take();
}

} // namespace ibnm::activation
