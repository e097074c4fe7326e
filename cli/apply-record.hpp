// SPDX-License-Identifier: LGPL-2.1-or-later
// The verified no-op record of `ibnm apply` (git's stat cache, for a whole
// apply): after an apply that changed nothing and verified the host, what it
// printed, keyed on everything that decided it: the document's bytes, the
// flags, ibnm's version, the caller's uid, the keyfile store's identity
// (every entry's dev, inode, mode, size, mtime and ctime in nanoseconds, and
// the directory's own), and the host with its active connections, as the
// library digests them (ibnm_apply_report_get_host_digest() of the apply,
// ibnm_host_get_state_digest() now).
//
// It is the CLI's: measured, `ibnm apply` of 1,024 P_Key children run again
// answers in 27 ms through it, against 1.0-1.2 s (0.6 s of CPU) when the
// full apply has to load, plan and verify (bench section 5). The next apply of
// the same document looks the record up before loading the store: when every
// part matches it prints the recorded output and is done; anything unknown,
// unreadable or different declines, and the full apply runs (and writes a new
// record when it ends a verified no-op). Only for a standalone keyfile store
// (--keyfile-dir): with NetworkManager the shortcut is off.
//
// The racy-git rule: a store entry whose mtime or ctime is not at least one
// second older than the moment the record's stats were taken may have
// changed again within the file system's timestamp granularity, so the
// record declines.
#pragma once

#include "libcore/ibnm-host.h"
#include "libcore/support/result.hpp"

#include <glib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibnm::cli::noop {

// What a verified no-op apply printed: one entry per interface of the
// document (each with action "none" and no diff), and the reports' notes.
struct Outcome {
    struct Change {
        std::string interface;
        std::string state;
        std::string profile;
        bool hasProfile = false;
        bool operator==(const Change &o) const
        {
            return interface == o.interface && state == o.state && profile == o.profile && hasProfile == o.hasProfile;
        }
    };
    std::vector<Change> changes;
    std::vector<std::string> notes;
};

// What the apply was asked.
struct Key {
    std::string document; // SHA-256 of the document's bytes
    unsigned flags = 0; // IbnmApplyFlags
    unsigned uid = 0; // the caller (the store's required owner)
    std::string version; // ibnm's PACKAGE_VERSION
    std::string language; // the languages messages are in (the notes are translated)
    static Key of(std::string_view document, unsigned flags);
};

// The keyfile directory as stat() sees it, taken before the store is loaded
// (git's order: a change while the apply runs makes the next one differ).
struct StoreIdentity {
    std::string digest; // SHA-256 of the canonical stat lines
    int64_t takenNs = 0; // wall clock (ns) before the first stat()
    // The racily clean entries (git's term): those changed so recently that
    // a change within the timestamps' granularity would not show in their
    // stat; each with the SHA-256 of its bytes, read after its stat.
    std::vector<std::pair<std::string, std::string>> content;
};

struct Record {
    Key key;
    std::string store; // StoreIdentity::digest
    int64_t statTakenNs = 0; // wall clock (ns) before the store was stat()ed
    std::vector<std::pair<std::string, std::string>> racy; // StoreIdentity::content
    std::string host; // the host digest of the apply (ibnm_apply_report_get_host_digest())
    Outcome outcome;
};

// The identity of the keyfile directory `dir`, with the content of each
// entry whose mtime or ctime is at `racySinceNs` or later; an error when it
// cannot be read or holds something other than files (a symlink, a
// subdirectory, a name with a newline).
Result<StoreIdentity> storeIdentity(const std::string &dir, int64_t racySinceNs);
// How far back from the moment the stats are taken an entry is racily clean:
// the file systems' coarsest timestamp granularity, one second.
constexpr int64_t kRacyWindowNs = 1000000000;

// SHA-256 of a file's bytes, "absent" when it does not exist, nullopt when
// it cannot be read.
std::optional<std::string> fileDigest(const std::string &path);

// The record as written, sealed by a digest of its text; parseRecord()
// refuses one that is corrupt or truncated.
std::string formatRecord(const Record &r);
std::optional<Record> parseRecord(std::string_view text);

// Whether `r` answers for what is asked and found now. Declines (nullopt,
// `why` says which part) unless every part matches, and every entry that
// was racily clean when the record was written still has the bytes it had
// (`store` must hold their content: see lookup()).
std::optional<Outcome> match(const Record &r, const Key &key, const StoreIdentity &store, const std::string &host,
    std::string *why);

// Where `host` keeps the record (its runtime directory, the active-profile
// record's), or "" when it has none.
std::string recordPath(IbnmHost *host);

// The whole lookup: the record of `host`; the store `storeDir` stat()ed
// (with the content of the entries racily clean when the record was
// written, or now), which `identity` receives for the apply that follows
// when it can be read; the host read now (under the activation lock).
// Declines with `why` set.
// (The document is digested only once a record is there to compare.)
std::optional<Outcome> lookup(IbnmHost *host, const std::string &storeDir, std::string_view document, unsigned flags,
    std::string *why, std::optional<StoreIdentity> *identity);
// Writes the record (best effort: bookkeeping fails nothing): the store as
// `store` found it before it was loaded, the host the apply verified.
void write(
    IbnmHost *host, const StoreIdentity &store, const Key &key, const std::string &hostDigest, const Outcome &outcome);
// Removes the record of `host`.
void forget(IbnmHost *host);

} // namespace ibnm::cli::noop
