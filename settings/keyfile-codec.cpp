// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/keyfile-codec.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/nmcli-args.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <cstring>

namespace ibnm::settings {

namespace {

bool hasSuffixCase(std::string_view s, std::string_view suffix)
{
    // "WITH_MORE": the suffix alone is not a match.
    return s.size() > suffix.size() &&
           g_ascii_strncasecmp(s.data() + s.size() - suffix.size(), suffix.data(), suffix.size()) == 0;
}

// '.' followed by exactly six [A-Za-z0-9] at the end: mkstemp()'s pattern,
// which is also what g_file_set_contents() and .nmmeta files look like.
bool hasMkstempSuffix(std::string_view s)
{
    size_t dot = s.rfind('.');
    if (dot == std::string_view::npos || s.size() - dot - 1 != 6)
        return false;
    for (size_t i = dot + 1; i < s.size(); i++)
        if (!g_ascii_isalnum(s[i]))
            return false;
    return true;
}

struct ReadContext {
    std::vector<std::string> *warnings;
    const std::string *filename;
};

gboolean onReadEvent(GKeyFile *, NMConnection *, NMKeyfileHandlerType type, NMKeyfileHandlerData *data,
                     void *user_data) noexcept
{
    if (type != NM_KEYFILE_HANDLER_TYPE_WARN)
        return FALSE;
    auto *ctx = static_cast<ReadContext *>(user_data);
    const char *message = nullptr;
    NMKeyfileWarnSeverity severity = NM_KEYFILE_WARN_SEVERITY_WARN;
    nm_keyfile_handler_data_warn_get(data, &message, &severity);
    if (ctx->warnings != nullptr && severity >= NM_KEYFILE_WARN_SEVERITY_WARN && message != nullptr) {
        try {
            ctx->warnings->push_back(*ctx->filename + ": " + message);
        } catch (...) {
            // A lost warning is better than an exception in a C callback.
        }
    }
    return TRUE;
}

std::string stripSuffix(std::string base)
{
    if (base.size() > kKeyfileSuffix.size() &&
        base.compare(base.size() - kKeyfileSuffix.size(), kKeyfileSuffix.size(), kKeyfileSuffix) == 0)
        base.resize(base.size() - kKeyfileSuffix.size());
    return base;
}

// The UUID NetworkManager's keyfile reader gives a keyfile without one
// (nm_keyfile_read_ensure_uuid): a version 3 UUID in NetworkManager's
// namespace b425e9fb-7598-44b4-9e3b-5a2e3aaa4905 of "keyfile\0<path>\0".
std::string uuidFromPath(const std::string &path)
{
    static const guint8 kNamespace[16] = {0xb4, 0x25, 0xe9, 0xfb, 0x75, 0x98, 0x44, 0xb4,
                                          0x9e, 0x3b, 0x5a, 0x2e, 0x3a, 0xaa, 0x49, 0x05};
    CPtr<GChecksum, g_checksum_free> sum(g_checksum_new(G_CHECKSUM_MD5));
    g_checksum_update(sum.get(), kNamespace, sizeof kNamespace);
    g_checksum_update(sum.get(), reinterpret_cast<const guchar *>("keyfile"), sizeof "keyfile");
    g_checksum_update(sum.get(), reinterpret_cast<const guchar *>(path.c_str()), gssize(path.size() + 1));
    guint8 d[16];
    gsize len = sizeof d;
    g_checksum_get_digest(sum.get(), d, &len);
    d[6] = guint8((d[6] & 0x0f) | 0x30);
    d[8] = guint8((d[8] & 0x3f) | 0x80);
    return strprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", d[0], d[1], d[2], d[3],
                     d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]);
}

} // namespace

Result<GObjectPtr<NMConnection>> normalizedCopy(NMConnection *connection)
{
    auto copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(connection));
    GErrorPtr err;
    if (!nm_connection_normalize(copy.get(), nullptr, nullptr, outPtr(err)))
        return Error(IBNM_ERROR_INVALID_PROPERTY, err->message);
    return copy;
}

Status validateUserData(NMConnection *connection)
{
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    if (user == nullptr)
        return {};
    guint n = 0;
    const char *const *keys = nm_setting_user_get_keys(user, &n);
    for (guint i = 0; i < n; i++) {
        const char *value = nm_setting_user_get_data(user, keys[i]);
        if (Status s = userkeys::validate(keys[i], value ? value : ""); !s.ok())
            return std::move(s).withContext(NM_SETTING_USER_SETTING_NAME, ".");
    }
    return {};
}

Status validateForWrite(NMConnection *connection)
{
    // Every string NetworkManager keeps must be UTF-8: a keyfile with other
    // bytes is written, then refused on reading (the profile disappears and
    // cannot be deleted).
    auto notUtf8 = [](NMSetting *s, const char *prop) {
        return Error(IBNM_ERROR_INVALID_VALUE, _("the value is not valid UTF-8"))
            .withContext(std::string(nm_setting_get_name(s)) + "." + prop);
    };
    guint nSettings = 0;
    GCharPtr settingsMem;
    NMSetting **settings = nm_connection_get_settings(connection, &nSettings);
    settingsMem.reset(reinterpret_cast<char *>(settings));
    for (guint i = 0; i < nSettings; i++) {
        NMSetting *s = settings[i];
        guint nProps = 0;
        GParamSpec **props = g_object_class_list_properties(G_OBJECT_GET_CLASS(s), &nProps);
        GCharPtr propsMem(reinterpret_cast<char *>(props));
        for (guint j = 0; j < nProps; j++) {
            GParamSpec *ps = props[j];
            if (!(ps->flags & G_PARAM_READABLE))
                continue;
            // (g_object_get is variadic: it takes the raw out-pointer.)
            if (ps->value_type == G_TYPE_STRING) {
                char *raw = nullptr;
                g_object_get(s, ps->name, &raw, nullptr);
                GCharPtr v(raw);
                if (v && !g_utf8_validate(v.get(), -1, nullptr))
                    return notUtf8(s, ps->name);
            } else if (ps->value_type == G_TYPE_STRV) {
                char **raw = nullptr;
                g_object_get(s, ps->name, &raw, nullptr);
                GStrvPtr v(raw);
                for (char **p = v.get(); p && *p; p++)
                    if (!g_utf8_validate(*p, -1, nullptr))
                        return notUtf8(s, ps->name);
            }
        }
    }
    if (auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER))) {
        guint n = 0;
        const char *const *keys = nm_setting_user_get_keys(user, &n);
        for (guint i = 0; i < n; i++) {
            const char *v = nm_setting_user_get_data(user, keys[i]);
            if (!g_utf8_validate(keys[i], -1, nullptr) || (v && !g_utf8_validate(v, -1, nullptr)))
                return notUtf8(NM_SETTING(user), keys[i]);
        }
    }
    // Interface names as the kernel takes them (dev_valid_name(), asked of
    // libnm), before anything is written.
    GErrorPtr err;
    const char *ifname = nm_connection_get_interface_name(connection);
    if (ifname && !nm_utils_is_valid_iface_name(ifname, outPtr(err)))
        return Error(IBNM_ERROR_INVALID_VALUE, err->message).withContext("connection.interface-name");
    NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(connection);
    const char *parent = ib ? nm_setting_infiniband_get_parent(ib) : nullptr;
    if (parent && !nm_utils_is_valid_iface_name(parent, outPtr(err)))
        return Error(IBNM_ERROR_INVALID_VALUE, err->message).withContext("infiniband.parent");
    return {};
}

Result<std::string> keyfileToData(NMConnection *connection)
{
    if (Status s = validateUserData(connection); !s.ok())
        return std::move(s).error();
    if (Status s = validateForWrite(connection); !s.ok())
        return std::move(s).error();
    auto copy = normalizedCopy(connection);
    if (!copy)
        return std::move(copy).error();
    GErrorPtr err;
    GKeyFilePtr kf(nm_keyfile_write(copy->get(), NM_KEYFILE_HANDLER_FLAGS_NONE, nullptr, nullptr, outPtr(err)));
    if (!kf)
        return Error(IBNM_ERROR_INVALID_PROPERTY, err ? err->message : "nm_keyfile_write failed");
    gsize len = 0;
    GCharPtr text(g_key_file_to_data(kf.get(), &len, outPtr(err)));
    if (!text)
        return Error(IBNM_ERROR_FAILED, err ? err->message : "g_key_file_to_data failed");
    std::string data(text.get(), len);
    // Whatever ibnm writes, it reads back: a keyfile the reader would refuse
    // is never written.
    if (auto back = keyfileFromData(data, "/ibnm-written.nmconnection"); !back)
        return Error(IBNM_ERROR_INVALID_VALUE,
                     strprintf(_("the keyfile for this profile would not read back (%s); nothing was written"),
                               back.error().message().c_str()));
    return data;
}

Result<GObjectPtr<NMConnection>> keyfileFromData(std::string_view data, const std::string &filename,
                                                 std::vector<std::string> *warnings)
{
    if (data.size() > kMaxKeyfileSize)
        return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes, the most a keyfile may have"),
                                                 kMaxKeyfileSize))
            .withContext(filename);
    GKeyFilePtr kf(g_key_file_new());
    GErrorPtr err;
    if (!g_key_file_load_from_data(kf.get(), data.data(), data.size(), G_KEY_FILE_NONE, outPtr(err)))
        return Error(IBNM_ERROR_PARSE, err->message).withContext(filename);

    std::string baseDir;
    if (g_path_is_absolute(filename.c_str())) {
        GCharPtr d(g_path_get_dirname(filename.c_str()));
        baseDir = d.get();
    } else {
        GCharPtr cwd(g_get_current_dir());
        GCharPtr d(g_path_get_dirname(filename.c_str()));
        GCharPtr abs(g_build_filename(cwd.get(), d.get(), nullptr));
        GCharPtr canon(g_canonicalize_filename(abs.get(), nullptr));
        baseDir = canon.get();
    }

    ReadContext ctx{warnings, &filename};
    auto connection = GObjectPtr<NMConnection>::adopt(
        nm_keyfile_read(kf.get(), baseDir.c_str(), NM_KEYFILE_HANDLER_FLAGS_NONE, onReadEvent, &ctx, outPtr(err)));
    if (!connection)
        return Error(IBNM_ERROR_PARSE, err ? err->message : "nm_keyfile_read failed").withContext(filename);

    // As NetworkManager's keyfile reader: a missing id is the file name
    // (without the suffix), a missing UUID is derived from the path.
    NMSettingConnection *s_con = nm_connection_get_setting_connection(connection.get());
    if (s_con != nullptr) {
        if (nm_setting_connection_get_id(s_con) == nullptr) {
            GCharPtr base(g_path_get_basename(filename.c_str()));
            g_object_set(s_con, NM_SETTING_CONNECTION_ID, stripSuffix(base.get()).c_str(), nullptr);
        }
        if (nm_setting_connection_get_uuid(s_con) == nullptr)
            g_object_set(s_con, NM_SETTING_CONNECTION_UUID, uuidFromPath(filename).c_str(), nullptr);
    }

    if (!nm_connection_normalize(connection.get(), nullptr, nullptr, outPtr(err)))
        return Error(IBNM_ERROR_INVALID_PROPERTY, err->message).withContext(filename);
    if (Status s = validateUserData(connection.get()); !s.ok())
        return std::move(s).withContext(filename).error();
    // nm_connection_normalize() ended with NetworkManager's verify(): `ibnm
    // check` does not ask it again of a profile nothing has changed since.
    nmcli::markVerified(connection.get());
    return connection;
}

void releaseChangedSignal(NMConnection *connection)
{
    guint n = 0;
    CPtr<NMSetting *, g_free> settings(nm_connection_get_settings(connection, &n));
    for (guint i = 0; i < n; i++)
        g_signal_handlers_disconnect_matched(settings.get()[i], G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr,
                                             connection);
}

std::string createFilename(std::string_view id)
{
    // NetworkManager's nm_keyfile_utils_create_filename(id, TRUE): '/' and a
    // leading '.' or trailing '~' become '_'; a name that would look like a
    // temporary file or a certificate gets a '_' appended.
    std::string p(id);
    if (p.empty())
        p = "_";
    for (auto &c : p)
        if (c == '/')
            c = '_';
    if (p.front() == '.')
        p.front() = '_';
    if (p.back() == '~')
        p.back() = '_';
    if (hasMkstempSuffix(p) || hasSuffixCase(p, ".pem") || hasSuffixCase(p, ".der"))
        p += '_';
    return p + std::string(kKeyfileSuffix);
}

bool ignoreFilename(std::string_view base)
{
    if (base.empty() || base.front() == '.' || base.back() == '~')
        return true;
    if (hasMkstempSuffix(base))
        return true;
    return hasSuffixCase(base, ".pem") || hasSuffixCase(base, ".der");
}

} // namespace ibnm::settings
