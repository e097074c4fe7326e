// SPDX-License-Identifier: LGPL-2.1-or-later
// What the files of `ibnm connection` share (connection.cpp: add, modify,
// delete, up, down; connection-show.cpp; connection-files.cpp: import,
// export). Full CLI only.
#pragma once

#include "cli/cli.hpp"
#include "cli/output.hpp"
#include "settings/ibnm-settings.h"

#include <string>

namespace ibnm::cli {

// An ID and what it names: nmcli's selector word before it (`id`, `uuid`,
// `filename`, `path`, and `apath` where the command takes active
// connections), or none.
struct Selector {
    IbnmSettingsMatch match = IBNM_SETTINGS_MATCH_ANY;
    const char *id = nullptr;
};
// The ID after an optional selector word (`apath` too when `active`);
// advances `i`. `id` is nullptr when there is none.
Selector takeId(const Args &args, size_t &i, bool active = false);
// The profile `sel` names (ibnm_settings_find_by()), or nullptr.
NMConnection *findSelected(IbnmSettings *s, const Selector &sel);
// The profile `sel` names, or nullptr after printing why there is none.
NMConnection *findOrComplain(IbnmSettings *s, const Selector &sel);
// The exit status after findOrComplain() found nothing: 10 for an unknown
// profile, 1 when the store holds files this user may not read.
int notFoundStatus(IbnmSettings *s);
// Checks `profile` with the stored ones and prints the findings the change
// brings; false if it brings errors (nothing may be written then).
bool validate(Context &ctx, IbnmProfile *profile, IbnmSettings *settings);
// Standalone ibnm keeps one profile per name; false after printing the error.
bool nameIsFree(IbnmSettings *s, const char *id);
// Prints the profile as a keyfile on standard output.
int printKeyfile(NMConnection *c);

// Whether `up` and `down` go through NetworkManager (connection-nm.cpp):
// `store` is NetworkManager's and the host is this machine.
bool activatesThroughNetworkManager(Context &ctx, IbnmSettings *store);
// `up`/`down` of `args` through NetworkManager, as nmcli; the exit status.
int upDownThroughNetworkManager(Context &ctx, const Args &args, bool up);
// connection-secondary.cpp: RDMA secondaries.
// `secondary-of BASE`, taken off the words of `add`; "" when absent.
std::string takeSecondaryOf(Args &args);
// The UUID of the stored profile `base` names, to list `added` (an RDMA
// secondary) in; "" after printing why there is none.
std::string findSecondaryBase(IbnmSettings *s, NMConnection *added, const std::string &base);
// Lists `added`, stored already, in the connection.secondaries of the
// profile `baseUuid`; if that fails, deletes `added` again (nothing
// half-done). The exit status.
int attachSecondary(IbnmSettings *s, NMConnection *added, const std::string &baseUuid);
// For `show`: the rdma.* keys of an RDMA secondary's vpn.data, one property
// a key, as [user] keys show.
void addSecondarySettings(Record &r, NMConnection *c);

int cmdShow(Context &ctx, const Args &args);
int cmdImport(Context &ctx, const Args &args);
int cmdExport(Context &ctx, const Args &args);

} // namespace ibnm::cli
