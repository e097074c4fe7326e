// SPDX-License-Identifier: LGPL-2.1-or-later
// Profiles as text, without a store (ibnm-settings.h): a keyfile to and
// from its data and a new keyfile's name, through libnm as NetworkManager
// does, and the import of a Red Hat ifcfg file.
#include "config.h"

#include "settings/ibnm-settings.h"

#include <NetworkManager.h>

#include "libcore/support/boundary.hpp"
#include "settings/ifcfg-reader.hpp"
#include "settings/keyfile-backend.hpp"
#include "settings/keyfile-codec.hpp"

#include <new>

/**
 * ibnm_keyfile_to_data:
 * @connection: a profile
 * @error: return location for a #GError
 *
 * Serializes a profile as a keyfile, through libnm, without writing it.
 *
 * Returns: (transfer full) (nullable): the keyfile NetworkManager writes
 *   for a normalized copy of @connection (free with g_free()); %NULL with
 *   @error set when libnm cannot write it
 *
 * Since: 0.1
 */
char *ibnm_keyfile_to_data(NMConnection *connection, GError **error)
{
    g_return_val_if_fail(NM_IS_CONNECTION(connection), nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    char *result = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto data = ibnm::settings::keyfileToData(connection);
        if (!data)
            return std::move(data).error();
        result = g_strdup(data->c_str());
        return {};
    });
    return result;
}

/**
 * ibnm_keyfile_from_data:
 * @data: keyfile text
 * @filename: the file it came from (names errors; gives the default id and
 *   UUID, and the base for relative paths in it)
 * @error: return location for a #GError
 *
 * Parses a keyfile, through libnm, without reading any file.
 *
 * Returns: (transfer full) (nullable): the normalized profile; %NULL with
 *   @error set when @data does not parse or the profile does not verify
 *
 * Since: 0.1
 */
NMConnection *ibnm_keyfile_from_data(const char *data, const char *filename, GError **error)
{
    g_return_val_if_fail(data != nullptr, nullptr);
    g_return_val_if_fail(filename != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    NMConnection *result = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto c = ibnm::settings::keyfileFromData(data, filename);
        if (!c)
            return std::move(c).error();
        result = c->release();
        return {};
    });
    return result;
}

/**
 * ibnm_keyfile_read:
 * @path: a keyfile
 * @required_owner: the uid the file must belong to (0, root, as
 *   NetworkManager requires)
 * @error: return location for a #GError
 *
 * Reads one keyfile as NetworkManager's keyfile plugin does: the file must
 * be a regular file (a symbolic link's target counts) owned by
 * @required_owner, with no access for group or others, and at most
 * %IBNM_KEYFILE_MAX_SIZE bytes; it is then parsed through libnm.
 *
 * Returns: (transfer full) (nullable): the normalized profile; %NULL with
 *   @error set (naming @path) when the file cannot be read, may not be
 *   trusted (%IBNM_ERROR_PERMISSION_DENIED, or %IBNM_ERROR_PARSE when too
 *   large), does not parse or does not verify
 *
 * Since: 0.1
 */
NMConnection *ibnm_keyfile_read(const char *path, guint required_owner, GError **error)
{
    g_return_val_if_fail(path != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    NMConnection *result = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto stored = ibnm::settings::readKeyfile(path, uid_t(required_owner), nullptr);
        if (!stored)
            return std::move(stored).error();
        result = stored->connection.release();
        return {};
    });
    return result;
}

/**
 * ibnm_keyfile_create_filename:
 * @id: a profile id
 *
 * Names a new keyfile as NetworkManager does.
 *
 * Returns: (transfer full): the file name NetworkManager gives a new
 *   profile with this id (before resolving collisions); free with g_free()
 *
 * Since: 0.1
 */
char *ibnm_keyfile_create_filename(const char *id)
{
    g_return_val_if_fail(id != nullptr, nullptr);
    try {
        return g_strdup(ibnm::settings::createFilename(id).c_str());
    } catch (const std::bad_alloc &) {
        g_error("libibnm: out of memory");
    }
}

/**
 * ibnm_ifcfg_import:
 * @path: an ifcfg file of TYPE=InfiniBand
 * @error: return location for a #GError
 *
 * Reads a Red Hat network-scripts file as NetworkManager's ifcfg-rh plugin
 * does. Errors name FILE:LINE: KEY or FILE: KEY.
 *
 * Returns: (transfer full) (nullable): the normalized profile
 *
 * Since: 0.1
 */
NMConnection *ibnm_ifcfg_import(const char *path, GError **error)
{
    g_return_val_if_fail(path != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    NMConnection *result = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto c = ibnm::settings::importIfcfgFile(path);
        if (!c)
            return std::move(c).error();
        result = c->release();
        return {};
    });
    return result;
}
