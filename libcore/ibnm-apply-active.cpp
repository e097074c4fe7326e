// SPDX-License-Identifier: LGPL-2.1-or-later
// The record of the profiles ibnm brought up itself (standalone mode), and
// ibnm_apply_get_active_devices(), which reads it: where each profile is
// active on the host.
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/engine.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/raii.hpp"

#include <set>
#include <string>
#include <vector>

using ibnm::apply::activeRecordPath;
using ibnm::apply::toVector;

namespace {

// Which profiles `up` brought up on a host and `down` has not taken down
// (standalone mode: NetworkManager keeps its own record): UUIDs, one a line,
// in the host's runtime directory. `connection show` shows a DEVICE only for
// these. Bookkeeping: a failure to write it fails nothing.
std::set<std::string> readActiveRecord(IbnmHost *host, bool *read = nullptr)
{
    std::set<std::string> uuids;
    std::string path = activeRecordPath(host);
    ibnm::GCharPtr text;
    if (read)
        *read = false;
    if (path.empty() || !g_file_get_contents(path.c_str(), ibnm::outPtr(text), nullptr, nullptr))
        return uuids;
    if (read)
        *read = true;
    ibnm::GStrvPtr lines(g_strsplit(text.get(), "\n", -1));
    for (char **l = lines.get(); *l; l++)
        if (**l)
            uuids.insert(*l);
    return uuids;
}

} // namespace

namespace ibnm::apply {

std::string activeRecordPath(IbnmHost *host)
{
    const char *dir = ibnm_host_get_runtime_dir(host);
    return dir ? std::string(dir) + "/active-profiles" : std::string();
}

void updateActiveRecord(IbnmHost *host, const std::vector<NMConnection *> &profiles, bool active)
{
    std::string path = activeRecordPath(host);
    if (path.empty())
        return;
    bool read = false;
    std::set<std::string> uuids = readActiveRecord(host, &read);
    const std::set<std::string> before = uuids;
    for (NMConnection *c : profiles)
        if (const char *uuid = nm_connection_get_uuid(c))
            active ? (void)uuids.insert(uuid) : (void)uuids.erase(uuid);
    // A record that says it already (a second apply): not rewritten, which
    // would cost two fsync()s for nothing.
    if (read && uuids == before)
        return;
    std::string text;
    for (const auto &u : uuids)
        text += u + "\n";
    ibnm::GCharPtr dir(g_path_get_dirname(path.c_str()));
    g_mkdir_with_parents(dir.get(), 0755);
    g_file_set_contents_full(path.c_str(), text.c_str(), -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, nullptr);
}

} // namespace ibnm::apply

/**
 * ibnm_apply_get_active_devices:
 * @host: the host to look at
 * @profiles: (element-type NMConnection): the profiles
 * @all_profiles: (element-type NMConnection) (nullable): every known profile,
 *   to resolve a port's bond; NULL means @profiles
 *
 * Where each profile is active on @host in standalone mode: for a profile
 * ibnm_apply_up() brought up (with @all_profiles given) and
 * ibnm_apply_down() has not taken down since, the interface it resolves to
 * (a P_Key child as the kernel named it, a port found by its GUID) when that
 * interface exists, is up, and ibnm_apply_up() would change nothing.
 *
 * Returns: (transfer container) (element-type utf8): one entry a profile, in
 *   order: the interface name, or %NULL where the profile is not active;
 *   %NULL with @error set when the host cannot be read
 *
 * Since: 0.1
 */
GPtrArray *ibnm_apply_get_active_devices(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles,
                                         GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(profiles != nullptr, nullptr);
    GPtrArray *out = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto selected = toVector(profiles);
        auto everything = all_profiles ? toVector(all_profiles) : selected;
        std::set<std::string> brought = readActiveRecord(host);
        out = g_ptr_array_new_full(selected.size(), g_free);
        // Nothing brought up: nothing to read from the host.
        if (brought.empty()) {
            for (size_t i = 0; i < selected.size(); i++)
                g_ptr_array_add(out, nullptr);
            return {};
        }
        auto snapshot = ibnm::hostPlatform(host).readHost();
        if (!snapshot.ok()) {
            g_ptr_array_unref(out);
            out = nullptr;
            return std::move(snapshot).error();
        }
        const ibnm::activation::ProfileIndex index(everything);
        for (NMConnection *c : selected) {
            std::optional<std::string> name;
            const char *uuid = nm_connection_get_uuid(c);
            if (uuid && brought.count(uuid)) {
                auto desired = ibnm::activation::resolve({c}, everything, true, false, &index);
                if (desired.ok())
                    name = ibnm::activation::activeInterface(*snapshot, *desired);
            }
            g_ptr_array_add(out, name ? g_strdup(name->c_str()) : nullptr);
        }
        return {};
    });
    return out;
}

