// SPDX-License-Identifier: LGPL-2.1-or-later
// The host-wide policy files: the memlock limits for group rdma and the
// udev rules naming IPoIB ports, planned as steps (written atomically, only
// when they differ) and run by the executor, which undoes them on failure.
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm::activation {

using detail::execute;
using detail::finish;
using detail::planningFailed;
using detail::Planner;
using detail::Step;
using model::Host;
using platform::Platform;

std::string memlockPolicy()
{
    return "# Written by ibnm. Members of group rdma may pin unlimited memory for RDMA\n"
           "# (libibverbs warns when RLIMIT_MEMLOCK is 32 KiB or less).\n"
           "@rdma    soft    memlock    unlimited\n"
           "@rdma    hard    memlock    unlimited\n";
}

// `value` as one udev rules string (udev(7)): '%' and '$' start a
// substitution, so they are doubled; a '"' or '\\' makes it an e"..." string
// with C escapes (systemd 250 and later), so no value ends the string early
// and adds a key of its own (a name such as 'a",RUN+="x').
namespace {

std::string udevString(const std::string &value)
{
    std::string body;
    bool escaped = false;
    for (char c : value) {
        switch (c) {
        case '%': body += "%%"; break;
        case '$': body += "$$"; break;
        case '"': body += "\\\""; escaped = true; break;
        case '\\': body += "\\\\"; escaped = true; break;
        default: body += c;
        }
    }
    return (escaped ? "e\"" : "\"") + body + "\"";
}

} // namespace

std::string udevRules(const std::vector<NMConnection *> &profiles)
{
    std::string out = "# Written by ibnm: persistent names for IPoIB ports, matched by the last 8 bytes\n"
                      "# of the hardware address (the port GUID), as rdma-core's persistent-ipoib.rules.\n";
    std::vector<std::string> lines;
    for (NMConnection *c : profiles) {
        NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
        const char *ifname = nm_connection_get_interface_name(c);
        if (ib == nullptr || ifname == nullptr || nm_setting_infiniband_get_p_key(ib) >= 0)
            continue;
        const char *mac = nm_setting_infiniband_get_mac_address(ib);
        std::string guid = model::portGuidBytes(mac ? mac : "");
        if (guid.empty())
            continue;
        lines.push_back(strprintf("ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
                                  "ATTR{address}==\"?*%s\", NAME=%s\n",
                                  guid.c_str(), udevString(ifname).c_str()));
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    for (const auto &l : lines)
        out += l;
    return out;
}

Report writeHostFiles(Platform &platform, const std::vector<NMConnection *> &profiles, const Options &options)
{
    Report report;
    Host none;
    Planner planner(none, report);
    struct File {
        const char *path;
        std::string contents;
    };
    for (const File &f : {File{kMemlockPolicyPath, memlockPolicy()}, File{kUdevRulesPath, udevRules(profiles)}}) {
        auto cur = platform.readHostFile(f.path);
        if (!cur.ok())
            return planningFailed(std::move(report), std::move(cur).error());
        if (*cur && **cur == f.contents)
            continue;
        std::optional<std::string> old = *cur;
        std::string path = f.path;
        planner.add("write-file", path, strprintf(_("write %s"), path.c_str()), "",
                    [path, c = f.contents](Platform &p) { return p.writeHostFile(path, c, 0644); },
                    [path, old](Platform &p) {
                        return old ? p.writeHostFile(path, *old, 0644) : p.removeHostFile(path);
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!options.dryRun && !steps.empty())
        execute(platform, steps, report);
    finish(steps, report);
    return report;
}

} // namespace ibnm::activation
