// SPDX-License-Identifier: LGPL-2.1-or-later
// Rule 7: the interface a profile needs does not exist on the host (yet).
// NetworkManager keeps such a profile and activates it when the device
// appears (nmcli accepts it, Ansible's nmcli module and the udev renaming
// procedure of the seeds rely on it); `connection up` fails until then. A
// warning, never a refusal to store the profile.
#include "config.h"

#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/profiles/host-files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

namespace ibnm::rules {

namespace {

// The name of the file of ibnm's udev rules.
std::string rulesFile()
{
    std::string path = hostfiles::kUdevRulesPath;
    return path.substr(path.rfind('/') + 1);
}

// The warning for a profile whose `property` names `name`, which `host`
// lacks: with the udev rule of ibnm that will give the name at the next
// boot, when there is one.
Finding absent(NMConnection *c, const std::string &property, const std::string &name, const model::Host &host)
{
    Finding f;
    std::string guid = hostfiles::udevRulePortGuid(c);
    std::string now;
    if (!guid.empty()) {
        auto *ib = nm_connection_get_setting_infiniband(c);
        now = netdevByMac(&host, ib ? nm_setting_infiniband_get_mac_address(ib) : nullptr);
    }
    if (!now.empty()) {
        f = make(c, property, IBNM_SEVERITY_WARNING,
                 strprintf(_("'%s' does not exist on this host yet: '%s' (port GUID %s) is renamed at next boot "
                             "by %s"),
                           name.c_str(), now.c_str(), guid.c_str(), rulesFile().c_str()),
                 _("Write the rules with 'ibnm udev-rules write' if they are not written yet. Until the reboot "
                   "'ibnm connection up' fails; NetworkManager activates the profile once the interface has its "
                   "name."));
    } else {
        f = make(c, property, IBNM_SEVERITY_WARNING,
                 strprintf(_("'%s' does not exist on this host (yet)"), name.c_str()),
                 _("The profile is kept and NetworkManager activates it when the interface appears; 'ibnm "
                   "connection up' fails until then. 'ibnm device status' lists the interfaces."));
    }
    f.code = IBNM_ERROR_NOT_FOUND;
    return f;
}

} // namespace

std::vector<Finding> checkPresence(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                   const model::HostIndex &index, std::unordered_set<NMConnection *> *waiting)
{
    std::vector<Finding> out;
    auto report = [&](NMConnection *c, const char *property, const std::string &name) {
        out.push_back(absent(c, property, name, host));
        if (waiting)
            waiting->insert(c);
    };
    for (NMConnection *c : profiles) {
        std::string type = typeOf(c);
        std::string ifname = ifnameOf(c);
        if (type == NM_SETTING_INFINIBAND_SETTING_NAME) {
            auto *ib = nm_connection_get_setting_infiniband(c);
            if (ib == nullptr)
                continue;
            if (nm_setting_infiniband_get_p_key(ib) != -1) {
                // A child is created under its parent, a port's interface.
                std::string parent = str(nm_setting_infiniband_get_parent(ib));
                if (!parent.empty() && index.findNetdev(parent) == nullptr)
                    report(c, "infiniband.parent", parent);
            } else if (!ifname.empty()) {
                if (index.findNetdev(ifname) == nullptr)
                    report(c, "connection.interface-name", ifname);
            } else if (const char *mac = nm_setting_infiniband_get_mac_address(ib)) {
                if (netdevByMac(&host, mac).empty())
                    report(c, "infiniband.mac-address", mac);
            }
        } else if (type == NM_SETTING_WIRED_SETTING_NAME) {
            if (!ifname.empty() && index.findNetdev(ifname) == nullptr)
                report(c, "connection.interface-name", ifname);
        }
    }
    return out;
}

} // namespace ibnm::rules
