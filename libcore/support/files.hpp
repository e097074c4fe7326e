// SPDX-License-Identifier: LGPL-2.1-or-later
// Files and directories, once for the library, the settings store and the
// simulator: crash-safe replacement of a file (a reader, or the next boot,
// sees either the complete old content or the complete new one, never a
// mix) and the names in a directory in natural order.
#pragma once

#include "libcore/support/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace ibnm {

struct AtomicWriteOptions {
    mode_t mode = 0600;
    // Owner to give the file; nullopt leaves it to the writing process.
    std::optional<uid_t> uid;
    std::optional<gid_t> gid;
    // false: never replace an existing file (renameat2 RENAME_NOREPLACE);
    // IBNM_ERROR_EXISTS naming it instead.
    bool replace = true;
    // fsync the file before the rename and the directory after it. The
    // simulator turns it off: a simulated host need not survive a power
    // cut, and two fsyncs made each simulated operation cost 5-10 ms.
    bool durable = true;
    // The temporary file's name says which process writes it
    // (".<name>.ibnm-<pid>-<start time>.XXXXXX"): removeDeadWritersFiles()
    // removes it once that process has ended, never while it runs.
    bool tagWriter = false;
};

// Writes `content` to a temporary file in the directory of `path` (a hidden
// name ".<name>.XXXXXX", which NetworkManager and the keyfile store ignore),
// sets mode and owner, fsyncs it, renames it over `path` and fsyncs the
// directory. On failure the temporary file is removed and `path` is left as
// it was. Errors name `path` or its directory, never the temporary file.
Status atomicWriteFile(const std::string &path, std::string_view content, const AtomicWriteOptions &opts = {});

// One change of many files, durable with one sync instead of two per file
// (`ibnm apply` of a thousand profiles), and all or nothing across a crash
// when it has a journal. add() writes each content to its temporary file,
// unsynced; remove() names a file to delete; commit() syncs the file
// system once (syncfs), then, with more than one change and a journal
// path, writes the journal (an intent file, as git's index.lock or a
// database's write-ahead log: every rename and deletion, durable before
// any of them), renames every temporary file over its path and deletes the
// removed files, fsyncs each directory once, and deletes the journal.
// Before the journal is on disk nothing is visible; once it is, the change
// is decided: a crash leaves the journal, and rollForwardJournal() (the
// next writer) completes it, while a reader meanwhile takes the files as
// readJournal() says they will be. A file added without opts.replace does
// not replace one that exists (commit() fails with IBNM_ERROR_EXISTS before
// anything is visible). Temporary files not committed are removed by the
// destructor.
class AtomicWriteBatch {
public:
    explicit AtomicWriteBatch(std::string journal = {}) : journal_(std::move(journal)) {}
    AtomicWriteBatch(const AtomicWriteBatch &) = delete;
    AtomicWriteBatch &operator=(const AtomicWriteBatch &) = delete;
    ~AtomicWriteBatch();

    Status add(const std::string &path, std::string_view content, const AtomicWriteOptions &opts = {});
    void remove(const std::string &path);
    // `done` (optional) gets the paths that now hold their new content or
    // are gone, also when commit() fails partway (their directories are
    // synced).
    Status commit(std::vector<std::string> *done = nullptr);

private:
    struct Pending {
        std::string temporary; // empty: remove `path`
        std::string path;
        bool replace; // opts.replace: else renamed with RENAME_NOREPLACE
    };
    Status writeJournal() const;
    std::vector<Pending> pending_;
    std::string journal_;
};

// What a journal left by a writer that did not finish says: each file that
// gets new content (from its temporary file, while that still exists) and
// each file that goes, in order. std::nullopt when there is no journal.
struct JournalEntry {
    std::string temporary; // empty: `path` is removed
    std::string path;
    bool replace = true;
};
Result<std::optional<std::vector<JournalEntry>>> readJournal(const std::string &journal);

// Completes the change the journal `journal` records, if there is one
// (every rename whose temporary file is still there, every removal), makes
// it durable and deletes the journal. A journal that does not parse is
// deleted (it is written whole or not at all: only damage makes one).
// Safe to run again after a crash during it.
Status rollForwardJournal(const std::string &journal);

// Removes the temporary files in `dir` whose writer (their name says it,
// AtomicWriteOptions::tagWriter) has ended; those of running writers stay.
// Returns how many it removed.
size_t removeDeadWritersFiles(const std::string &dir);
// The same for one file of `dir` (a directory listed already).
bool removeIfDeadWritersFile(const std::string &dir, const std::string &name);

// Removes `path` and everything below it (symbolic links are removed, not
// followed); an absent path is removed already.
Status removeTree(const std::string &path);

// Removes `path` and fsyncs its directory.
Status removeFileDurably(const std::string &path);

// Reads the regular file `path` (opened O_NONBLOCK: a FIFO is refused, never
// waited on) when it has at most `max` bytes; std::nullopt when it has more
// (the caller says which limit). Errors name `path`.
Result<std::optional<std::string>> readFileBounded(const std::string &path, size_t max);

// fsync() of a directory, so a rename or unlink in it is on disk.
Status syncDirectory(const std::string &dir);

// The names in `dir` (without "." and ".."), in natural order: "mlx5_2"
// before "mlx5_10", as strverscmp(3) orders them (`natural` false: in the
// directory's own order, for a caller that orders them itself). A directory
// that does not exist, or a path that is not a directory, has no names;
// other errors (EACCES, EIO) are errors.
Result<std::vector<std::string>> listDir(const std::string &dir, bool natural = true);

// strverscmp(3) as a less-than for std::sort.
bool naturalLess(const std::string &a, const std::string &b);

} // namespace ibnm
