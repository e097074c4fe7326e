// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/files.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"

#include <glib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio> // renameat2
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ibnm {

namespace {

std::string dirName(const std::string &path)
{
    GCharPtr d(g_path_get_dirname(path.c_str()));
    return d.get();
}

// Removes the temporary file unless release()d.
class TempFileGuard {
public:
    explicit TempFileGuard(std::string path) : path_(std::move(path)) {}
    ~TempFileGuard()
    {
        if (!path_.empty())
            ::unlink(path_.c_str());
    }
    TempFileGuard(const TempFileGuard &) = delete;
    TempFileGuard &operator=(const TempFileGuard &) = delete;
    void release() { path_.clear(); }

private:
    std::string path_;
};

Status writeAll(int fd, std::string_view content, const std::string &path)
{
    const char *p = content.data();
    size_t left = content.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error::fromErrno(errno, path);
        }
        p += n;
        left -= size_t(n);
    }
    return {};
}

} // namespace

Status syncDirectory(const std::string &dir)
{
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, dir);
    if (::fsync(fd.get()) != 0 && errno != EINVAL)
        return Error::fromErrno(errno, dir);
    return {};
}

namespace {

// The content in a new temporary file beside `path`, with mode and owner;
// fsynced when `sync`. Its name, or an error (and no file).
Result<std::string> writeTemporary(const std::string &path, std::string_view content,
                                   const AtomicWriteOptions &opts, bool sync)
{
    std::string dir = dirName(path);
    GCharPtr base(g_path_get_basename(path.c_str()));
    std::string tmpl = dir + "/." + base.get() + ".XXXXXX";

    // The temporary file's random name means nothing to a user: errors
    // name the file asked for.
    UniqueFd fd(g_mkstemp_full(tmpl.data(), O_RDWR | O_CLOEXEC, 0600));
    if (!fd)
        return Error::fromErrno(errno, path); // the file the user asked for
    TempFileGuard guard(tmpl);

    if (opts.uid || opts.gid) {
        if (::fchown(fd.get(), opts.uid ? *opts.uid : uid_t(-1), opts.gid ? *opts.gid : gid_t(-1)) != 0)
            return Error::fromErrno(errno, path);
    }
    if (::fchmod(fd.get(), opts.mode) != 0)
        return Error::fromErrno(errno, path);
    if (Status s = writeAll(fd.get(), content, path); !s.ok())
        return std::move(s).error();
    if (sync && opts.durable && ::fsync(fd.get()) != 0)
        return Error::fromErrno(errno, path);
    if (::close(fd.release()) != 0)
        return Error::fromErrno(errno, path);
    guard.release();
    return tmpl;
}

} // namespace

Status atomicWriteFile(const std::string &path, std::string_view content, const AtomicWriteOptions &opts)
{
    auto tmp = writeTemporary(path, content, opts, true);
    if (!tmp)
        return std::move(tmp).error();
    TempFileGuard guard(*tmp);
    if (!opts.replace) {
        if (::renameat2(AT_FDCWD, tmp->c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0)
            return Error::fromErrno(errno, path, errno == EEXIST ? IBNM_ERROR_EXISTS : IBNM_ERROR_IO);
    } else if (::rename(tmp->c_str(), path.c_str()) != 0)
        return Error::fromErrno(errno, path);
    guard.release();
    return opts.durable ? syncDirectory(dirName(path)) : Status();
}

AtomicWriteBatch::~AtomicWriteBatch()
{
    for (const auto &p : pending_)
        ::unlink(p.temporary.c_str());
}

Status AtomicWriteBatch::add(const std::string &path, std::string_view content, const AtomicWriteOptions &opts)
{
    auto tmp = writeTemporary(path, content, opts, false);
    if (!tmp)
        return std::move(tmp).error();
    pending_.push_back({std::move(*tmp), path, opts.replace});
    return {};
}

Status AtomicWriteBatch::commit(std::vector<std::string> *renamedPaths)
{
    if (pending_.empty())
        return {};
    // Every temporary file's data on disk before any rename makes it visible.
    {
        std::string dir = dirName(pending_.front().path);
        UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!fd)
            return Error::fromErrno(errno, dir);
        if (::syncfs(fd.get()) != 0)
            return Error::fromErrno(errno, dir);
    }
    std::vector<std::string> dirs;
    size_t renamed = 0;
    Status result;
    for (; renamed < pending_.size(); renamed++) {
        const Pending &p = pending_[renamed];
        const std::string &path = p.path;
        // A new file never replaces one that appeared meanwhile (as
        // atomicWriteFile() without opts.replace).
        if (!p.replace) {
            if (::renameat2(AT_FDCWD, p.temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0) {
                result = Error::fromErrno(errno, path, errno == EEXIST ? IBNM_ERROR_EXISTS : IBNM_ERROR_IO);
                break;
            }
        } else if (::rename(p.temporary.c_str(), path.c_str()) != 0) {
            result = Error::fromErrno(errno, path);
            break;
        }
        if (renamedPaths)
            renamedPaths->push_back(path);
        std::string dir = dirName(path);
        if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
            dirs.push_back(dir);
    }
    pending_.erase(pending_.begin(), pending_.begin() + ptrdiff_t(renamed));
    // What was renamed is made durable, also when a later rename failed.
    for (const auto &dir : dirs)
        if (Status s = syncDirectory(dir); !s.ok() && result.ok())
            result = s;
    return result;
}

Result<std::optional<std::string>> readFileBounded(const std::string &path, size_t max)
{
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd)
        return Error::fromErrno(errno, path, errno == ENOENT ? IBNM_ERROR_NOT_FOUND : IBNM_ERROR_IO);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return Error::fromErrno(errno, path);
    if (!S_ISREG(st.st_mode))
        return Error(IBNM_ERROR_PERMISSION_DENIED, _("not a regular file; not read")).withContext(path);
    if (static_cast<unsigned long long>(st.st_size) > max)
        return std::optional<std::string>();
    // The size may change under us: read at most max + 1 bytes.
    std::string out;
    char buf[8192];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Error::fromErrno(errno, path);
        if (n == 0)
            break;
        out.append(buf, size_t(n));
        if (out.size() > max)
            return std::optional<std::string>();
    }
    return std::optional<std::string>(std::move(out));
}

Status removeFileDurably(const std::string &path)
{
    if (::unlink(path.c_str()) != 0)
        return Error::fromErrno(errno, path, errno == ENOENT ? IBNM_ERROR_NOT_FOUND : IBNM_ERROR_IO);
    return syncDirectory(dirName(path));
}

bool naturalLess(const std::string &a, const std::string &b)
{
    return ::strverscmp(a.c_str(), b.c_str()) < 0;
}

Status removeTree(const std::string &path)
{
    if (g_file_test(path.c_str(), G_FILE_TEST_IS_DIR) && !g_file_test(path.c_str(), G_FILE_TEST_IS_SYMLINK)) {
        auto names = listDir(path);
        if (!names.ok())
            return std::move(names).error();
        for (const auto &n : *names)
            if (auto st = removeTree(path + "/" + n); !st.ok())
                return st;
        if (::rmdir(path.c_str()) < 0 && errno != ENOENT)
            return Error::fromErrno(errno, path);
        return {};
    }
    if (::unlink(path.c_str()) < 0 && errno != ENOENT)
        return Error::fromErrno(errno, path);
    return {};
}

Result<std::vector<std::string>> listDir(const std::string &dir, bool natural)
{
    std::vector<std::string> names;
    GErrorPtr err;
    GDirPtr d(g_dir_open(dir.c_str(), 0, outPtr(err)));
    if (!d) {
        if (g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
            g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
            return names;
        return Error(IBNM_ERROR_IO, err->message).withContext(dir);
    }
    while (const char *name = g_dir_read_name(d.get()))
        names.emplace_back(name);
    if (natural)
        std::sort(names.begin(), names.end(), naturalLess);
    return names;
}

} // namespace ibnm
