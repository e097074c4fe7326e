// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA secondaries in `ibnm connection`: `add type rdma ... [secondary-of
// BASE]` stores the profile (a VPN profile of nm-ibnm-service whose
// vpn.data holds the rdma.* keys; the grammar is libibnm's) and lists it in
// BASE's connection.secondaries, so that NetworkManager provisions the
// settings on BASE's device when BASE comes up; `show` shows their keys as
// it shows [user] keys.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/connection.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ibnm::cli {

std::string takeSecondaryOf(Args &args)
{
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
        if (args[i] != "secondary-of")
            continue;
        std::string base = args[i + 1];
        args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
        return base;
    }
    return "";
}

std::string findSecondaryBase(IbnmSettings *s, NMConnection *added, const std::string &base)
{
    if (!ibnm_connection_is_secondary(added)) {
        printError(_("secondary-of: only an RDMA secondary (type rdma) is attached to a base profile"));
        return "";
    }
    NMConnection *b = findOrComplain(s, Selector{IBNM_SETTINGS_MATCH_ANY, base.c_str()});
    if (b && ibnm_connection_is_secondary(b)) {
        printError(_("secondary-of: '%s' is an RDMA secondary itself; name the profile of the device"),
                   nm_connection_get_id(b));
        return "";
    }
    return b ? nm_connection_get_uuid(b) : "";
}

int attachSecondary(IbnmSettings *s, NMConnection *added, const std::string &baseUuid)
{
    // Looked up again: adding a profile may have reloaded the store.
    NMConnection *base = ibnm_settings_find(s, baseUuid.c_str());
    ErrorPtr err;
    if (base == nullptr) {
        printError(_("profile %s is gone"), baseUuid.c_str());
    } else {
        // What `nmcli connection modify BASE +connection.secondaries ID`
        // writes: the secondary's UUID.
        Obj<NMConnection> edited(nm_simple_connection_new_clone(base));
        nm_setting_connection_add_secondary(nm_connection_get_setting_connection(edited.get()),
                                            nm_connection_get_uuid(added));
        if (ibnm_settings_update(s, edited.get(), Out(err))) {
            std::printf(_("Connection '%s' (%s) is a secondary connection of '%s' now: NetworkManager provisions it "
                          "on that profile's device when it comes up.\n"),
                        shown(nm_connection_get_id(added)).c_str(), nm_connection_get_uuid(added),
                        shown(nm_connection_get_id(edited.get())).c_str());
            return kExitOk;
        }
    }
    // Nothing half-done: the secondary nobody lists goes again.
    ErrorPtr undo;
    if (!ibnm_settings_delete(s, nm_connection_get_uuid(added), Out(undo)))
        printError(_("the new profile '%s' (%s) stays: %s"), nm_connection_get_id(added), nm_connection_get_uuid(added),
                   undo->message);
    return err ? reportError(err.get()) : kExitFailed;
}

void addSecondarySettings(Record &r, NMConnection *c)
{
    if (!ibnm_connection_is_secondary(c))
        return;
    // As [user] keys show: one property a key.
    NMSettingVpn *vpn = nm_connection_get_setting_vpn(c);
    std::vector<std::string> keys;
    nm_setting_vpn_foreach_data_item(
        vpn, [](const char *key, const char *, gpointer data) { static_cast<std::vector<std::string> *>(data)->push_back(key); },
        &keys);
    std::sort(keys.begin(), keys.end());
    for (const auto &k : keys)
        r.add(k, nm_setting_vpn_get_data_item(vpn, k.c_str()));
}

} // namespace ibnm::cli
