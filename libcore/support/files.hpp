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
};

// Writes `content` to a temporary file in the directory of `path` (a hidden
// name ".<name>.XXXXXX", which NetworkManager and the keyfile store ignore),
// sets mode and owner, fsyncs it, renames it over `path` and fsyncs the
// directory. On failure the temporary file is removed and `path` is left as
// it was. Errors name `path` or its directory, never the temporary file.
Status atomicWriteFile(const std::string &path, std::string_view content, const AtomicWriteOptions &opts = {});

// Atomic replacement of many files, durable with one sync instead of two
// per file (`ibnm apply` of a thousand profiles): add() writes each content
// to its temporary file, unsynced; commit() syncs the file system once
// (syncfs), renames every temporary file over its path and fsyncs each
// directory once; a file added without opts.replace does not replace one
// that appeared meanwhile (commit() fails with IBNM_ERROR_EXISTS, the files
// renamed before it stay). A crash before commit() leaves every path as it was; one
// during the renames leaves each path old or new, never partly written.
// Temporary files not committed are removed by the destructor.
class AtomicWriteBatch {
public:
    AtomicWriteBatch() = default;
    AtomicWriteBatch(const AtomicWriteBatch &) = delete;
    AtomicWriteBatch &operator=(const AtomicWriteBatch &) = delete;
    ~AtomicWriteBatch();

    Status add(const std::string &path, std::string_view content, const AtomicWriteOptions &opts = {});
    // `renamed` (optional) gets the paths now holding their new content,
    // also when commit() fails partway (their directories are synced).
    Status commit(std::vector<std::string> *renamed = nullptr);

private:
    struct Pending {
        std::string temporary;
        std::string path;
        bool replace; // opts.replace: else renamed with RENAME_NOREPLACE
    };
    std::vector<Pending> pending_;
};

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
