// SPDX-License-Identifier: LGPL-2.1-or-later
// The verified no-op record of `ibnm apply` (apply-record.hpp says what it
// holds and when it answers).
#include "config.h"

#include "cli/apply-record.hpp"

#include "libcore/support/canonical.hpp"
#include "libcore/support/raii.hpp"
#include "settings/ibnm-settings.h"

#include <glib/gstdio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace ibnm::cli::noop {

namespace {

constexpr int64_t kNsPerSecond = 1000000000;
constexpr const char kSeal[] = "\n[seal]\ndigest=";
constexpr const char kRecordFile[] = "apply-noop-record";

int64_t ns(const struct timespec &t)
{
    return int64_t(t.tv_sec) * kNsPerSecond + t.tv_nsec;
}

} // namespace

Key Key::of(std::string_view document, unsigned flags)
{
    Key k;
    k.document = sha256Hex(document);
    k.flags = flags;
    k.uid = unsigned(getuid());
    k.version = PACKAGE_VERSION;
    for (const char *const *l = g_get_language_names(); l && *l; l++)
        k.language += std::string(*l) + ":";
    return k;
}

Result<StoreIdentity> storeIdentity(const std::string &dir, int64_t racySinceNs)
{
    const int64_t taken = g_get_real_time() * 1000;
    struct stat st { };
    if (lstat(dir.c_str(), &st) != 0)
        return Error::fromErrno(errno, dir);
    if (!S_ISDIR(st.st_mode))
        return Error(IBNM_ERROR_FAILED, dir + ": not a directory");
    StoreIdentity id;
    id.takenNs = taken;
    auto line = [](Canon &c, const std::string &name, const struct stat &s) {
        c.str(name).num(uint64_t(s.st_dev)).num(uint64_t(s.st_ino)).num(s.st_mode).num(s.st_uid).num(s.st_gid);
        c.num(uint64_t(s.st_size)).num(uint64_t(ns(s.st_mtim))).num(uint64_t(ns(s.st_ctim)));
    };
    // (The directory's own times need no content check: its entries, the
    // content a change of it could hide, are each in the digest.)
    Canon c;
    line(c, ".", st);
    GErrorPtr err;
    GDirPtr d(g_dir_open(dir.c_str(), 0, outPtr(err)));
    if (!d)
        return Error(IBNM_ERROR_IO, err->message);
    std::vector<std::string> names;
    // The lock file is no content: every writer records itself in it.
    while (const char *n = g_dir_read_name(d.get()))
        if (std::strcmp(n, IBNM_KEYFILE_LOCK_FILE) != 0)
            names.emplace_back(n);
    std::sort(names.begin(), names.end());
    c.num(names.size());
    for (const auto &n : names) {
        std::string path = dir + "/" + n;
        struct stat es { };
        if (lstat(path.c_str(), &es) != 0)
            return Error::fromErrno(errno, path);
        // What the store would follow or descend into is not this record's.
        if (!S_ISREG(es.st_mode))
            return Error(IBNM_ERROR_FAILED, path + ": not a regular file");
        if (n.find('\n') != std::string::npos)
            return Error(IBNM_ERROR_FAILED, path + ": a newline in the name");
        line(c, n, es);
        if (std::max(ns(es.st_mtim), ns(es.st_ctim)) >= racySinceNs) {
            auto bytes = fileDigest(path);
            if (!bytes || *bytes == "absent")
                return Error(IBNM_ERROR_IO, path + ": cannot be read");
            id.content.emplace_back(n, *bytes);
        }
    }
    id.digest = sha256Hex(c.take());
    return id;
}

std::optional<std::string> fileDigest(const std::string &path)
{
    GCharPtr text;
    gsize len = 0;
    GErrorPtr err;
    if (!g_file_get_contents(path.c_str(), outPtr(text), &len, outPtr(err))) {
        if (g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOENT))
            return std::string("absent");
        return std::nullopt;
    }
    return sha256Hex(std::string_view(text.get(), len));
}

std::string formatRecord(const Record &r)
{
    GKeyFilePtr kf(g_key_file_new());
    GKeyFile *k = kf.get();
    g_key_file_set_string(k, "record", "version", r.key.version.c_str());
    g_key_file_set_string(k, "record", "language", r.key.language.c_str());
    g_key_file_set_string(k, "record", "document", r.key.document.c_str());
    g_key_file_set_uint64(k, "record", "flags", r.key.flags);
    g_key_file_set_uint64(k, "record", "uid", r.key.uid);
    g_key_file_set_string(k, "record", "store", r.store.c_str());
    g_key_file_set_int64(k, "record", "stat-taken-ns", r.statTakenNs);
    g_key_file_set_string(k, "record", "host", r.host.c_str());
    std::vector<const char *> interfaces, states, profiles, notes, racyNames, racyContent;
    for (const auto &e : r.racy) {
        racyNames.push_back(e.first.c_str());
        racyContent.push_back(e.second.c_str());
    }
    std::vector<gboolean> hasProfile;
    for (const auto &c : r.outcome.changes) {
        interfaces.push_back(c.interface.c_str());
        states.push_back(c.state.c_str());
        profiles.push_back(c.profile.c_str());
        hasProfile.push_back(c.hasProfile);
    }
    for (const auto &n : r.outcome.notes)
        notes.push_back(n.c_str());
    // (NULL-terminated, so that an empty list has a pointer.)
    for (auto *v : {&interfaces, &states, &profiles, &notes, &racyNames, &racyContent})
        v->push_back(nullptr);
    g_key_file_set_uint64(k, "store", "racy-count", r.racy.size());
    g_key_file_set_string_list(k, "store", "racy-names", racyNames.data(), racyNames.size() - 1);
    g_key_file_set_string_list(k, "store", "racy-content", racyContent.data(), racyContent.size() - 1);
    g_key_file_set_uint64(k, "outcome", "changes", r.outcome.changes.size());
    g_key_file_set_string_list(k, "outcome", "interfaces", interfaces.data(), interfaces.size() - 1);
    g_key_file_set_string_list(k, "outcome", "states", states.data(), states.size() - 1);
    g_key_file_set_string_list(k, "outcome", "profiles", profiles.data(), profiles.size() - 1);
    if (!hasProfile.empty())
        g_key_file_set_boolean_list(k, "outcome", "has-profile", hasProfile.data(), hasProfile.size());
    g_key_file_set_uint64(k, "outcome", "note-count", r.outcome.notes.size());
    g_key_file_set_string_list(k, "outcome", "notes", notes.data(), notes.size() - 1);
    GCharPtr body(g_key_file_to_data(k, nullptr, nullptr));
    std::string text = body.get();
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    std::string seal = sha256Hex(text);
    return text + kSeal + seal + "\n";
}

std::optional<Record> parseRecord(std::string_view text)
{
    size_t at = text.rfind(kSeal);
    if (at == std::string_view::npos)
        return std::nullopt;
    std::string_view body = text.substr(0, at);
    std::string_view tail = text.substr(at + strlen(kSeal));
    if (tail.size() != 65 || tail.back() != '\n' || tail.substr(0, 64) != sha256Hex(body))
        return std::nullopt;
    GKeyFilePtr kf(g_key_file_new());
    GKeyFile *k = kf.get();
    if (!g_key_file_load_from_data(k, body.data(), body.size(), G_KEY_FILE_NONE, nullptr))
        return std::nullopt;
    Record r;
    bool ok = true;
    auto str = [&](const char *group, const char *key) {
        GErrorPtr e;
        GCharPtr v(g_key_file_get_string(k, group, key, outPtr(e)));
        ok = ok && v != nullptr;
        return v ? std::string(v.get()) : std::string();
    };
    auto num = [&](const char *group, const char *key) {
        GErrorPtr e;
        guint64 v = g_key_file_get_uint64(k, group, key, outPtr(e));
        ok = ok && !e;
        return v;
    };
    auto list = [&](const char *key, guint64 count, const char *group = "outcome") {
        std::vector<std::string> out;
        gsize n = 0;
        GErrorPtr e;
        GStrvPtr v(g_key_file_get_string_list(k, group, key, &n, outPtr(e)));
        // An empty list is stored as an empty value.
        if (!v && count == 0 && g_key_file_has_key(k, group, key, nullptr))
            return out;
        ok = ok && v && n == count;
        for (gsize i = 0; v && i < n; i++)
            out.emplace_back(v.get()[i]);
        return out;
    };
    r.key.version = str("record", "version");
    r.key.language = str("record", "language");
    r.key.document = str("record", "document");
    r.key.flags = unsigned(num("record", "flags"));
    r.key.uid = unsigned(num("record", "uid"));
    r.store = str("record", "store");
    {
        GErrorPtr e;
        r.statTakenNs = g_key_file_get_int64(k, "record", "stat-taken-ns", outPtr(e));
        ok = ok && !e;
    }
    r.host = str("record", "host");
    guint64 count = num("outcome", "changes");
    guint64 noteCount = num("outcome", "note-count");
    guint64 racyCount = num("store", "racy-count");
    if (!ok)
        return std::nullopt;
    auto racyNames = list("racy-names", racyCount, "store"), racyContent = list("racy-content", racyCount, "store");
    for (size_t i = 0; ok && i < racyCount; i++)
        r.racy.emplace_back(racyNames[i], racyContent[i]);
    auto interfaces = list("interfaces", count), states = list("states", count), profiles = list("profiles", count);
    r.outcome.notes = list("notes", noteCount);
    std::vector<gboolean> hasProfile;
    if (count > 0) {
        gsize n = 0;
        GErrorPtr e;
        gboolean *v = g_key_file_get_boolean_list(k, "outcome", "has-profile", &n, outPtr(e));
        ok = ok && v && n == count;
        if (v)
            hasProfile.assign(v, v + n);
        g_free(v);
    }
    if (!ok)
        return std::nullopt;
    for (guint64 i = 0; i < count; i++)
        r.outcome.changes.push_back({interfaces[i], states[i], profiles[i], bool(hasProfile[i])});
    return r;
}

namespace {

// Why the record does not answer `key`, or nullptr.
const char *keyMismatch(const Record &r, const Key &key)
{
    if (r.key.version != key.version)
        return "another version of ibnm wrote the record";
    if (r.key.document != key.document)
        return "another document";
    if (r.key.flags != key.flags)
        return "other flags";
    if (r.key.uid != key.uid)
        return "another user";
    if (r.key.language != key.language)
        return "another language";
    return nullptr;
}

} // namespace

std::optional<Outcome> match(const Record &r, const Key &key, const StoreIdentity &store, const std::string &host,
    std::string *why)
{
    auto decline = [why](const char *reason) -> std::optional<Outcome> {
        if (why)
            *why = reason;
        return std::nullopt;
    };
    if (const char *reason = keyMismatch(r, key))
        return decline(reason);
    if (r.store != store.digest)
        return decline("the keyfile store changed");
    // git's racily clean entries: their stat cannot vouch for them, their
    // bytes must.
    for (const auto &e : r.racy) {
        auto it = std::find_if(store.content.begin(), store.content.end(),
            [&e](const std::pair<std::string, std::string> &c) { return c.first == e.first; });
        if (it == store.content.end())
            return decline("a keyfile changed within a second of the record (racy) and was not read");
        if (it->second != e.second)
            return decline("a keyfile changed within a second of the record (racy): its bytes differ");
    }
    if (r.host != host)
        return decline("the host changed");
    return r.outcome;
}

std::string recordPath(IbnmHost *host)
{
    const char *dir = ibnm_host_get_runtime_dir(host);
    return dir ? std::string(dir) + "/" + kRecordFile : std::string();
}

std::optional<Outcome> lookup(IbnmHost *host, const std::string &storeDir, std::string_view document, unsigned flags,
    std::string *why, std::optional<StoreIdentity> *identity)
{
    auto decline = [why](std::string reason) -> std::optional<Outcome> {
        if (why)
            *why = std::move(reason);
        return std::nullopt;
    };
    std::string path = recordPath(host);
    std::optional<Record> record;
    GCharPtr text;
    gsize len = 0;
    bool read = !path.empty() && g_file_get_contents(path.c_str(), outPtr(text), &len, nullptr);
    if (read)
        record = parseRecord(std::string_view(text.get(), len));
    // The store before anything loads it (git's order), with the bytes of
    // what is racily clean now (for the next record) or was when the
    // record was written.
    int64_t since = g_get_real_time() * 1000;
    if (record)
        since = std::min(since, record->statTakenNs);
    auto store = storeIdentity(storeDir, since - kRacyWindowNs);
    if (store && identity)
        *identity = *store;
    if (path.empty())
        return decline("no place for a record");
    if (!read)
        return decline("no record");
    if (!record)
        return decline("the record is corrupt");
    if (!store)
        return decline("the keyfile store cannot be read");
    // The cheap parts first: most declines cost no host read.
    const Key key = Key::of(document, flags);
    if (const char *reason = keyMismatch(*record, key))
        return decline(reason);
    if (auto early = match(*record, key, *store, record->host, why); !early)
        return early;
    // The host and its active connections, read as a real apply reads them
    // (under the activation lock: another process's half-done apply is not
    // taken as settled).
    GErrorPtr err;
    GCharPtr digest(ibnm_host_get_state_digest(host, outPtr(err)));
    if (!digest)
        return decline(std::string("the host cannot be read: ") + err->message);
    return match(*record, key, *store, digest.get(), why);
}

void write(
    IbnmHost *host, const StoreIdentity &store, const Key &key, const std::string &hostDigest, const Outcome &outcome)
{
    std::string path = recordPath(host);
    if (path.empty())
        return;
    Record r;
    r.key = key;
    r.host = hostDigest;
    r.outcome = outcome;
    r.store = store.digest;
    r.statTakenNs = store.takenNs;
    r.racy = store.content;
    GCharPtr dir(g_path_get_dirname(path.c_str()));
    g_mkdir_with_parents(dir.get(), 0755);
    std::string text = formatRecord(r);
    // Written aside and renamed over (a reader sees the old record or the
    // new one), without an fsync: a record lost or torn by a crash fails its
    // seal and only costs the next apply its shortcut.
    std::string aside = path + ".new-" + std::to_string(getpid());
    g_unlink(aside.c_str());
    if (!g_file_set_contents_full(
            aside.c_str(), text.data(), gssize(text.size()), G_FILE_SET_CONTENTS_NONE, 0644, nullptr)
        || g_rename(aside.c_str(), path.c_str()) != 0) {
        g_unlink(aside.c_str());
        forget(host);
    }
}

void forget(IbnmHost *host)
{
    std::string path = recordPath(host);
    if (!path.empty())
        g_unlink(path.c_str());
}

} // namespace ibnm::cli::noop
