// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/files.hpp"

#include "libcore/support/file-lock.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

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
    if (opts.tagWriter) {
        // The name, cut to leave room for the tag within NAME_MAX (255).
        std::string name = base.get();
        if (name.size() > 180)
            name.resize(180);
        ProcessId self = currentProcess();
        tmpl = dir + "/." + name + strprintf(".ibnm-%d-%llu.XXXXXX", int(self.pid), self.start);
    }

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
        if (!p.temporary.empty())
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

void AtomicWriteBatch::remove(const std::string &path)
{
    pending_.push_back({std::string(), path, true});
}

namespace {

// One change of a batch or a journal: `temporary` renamed over `path`
// (without replacing a file there unless `replace`), or `path` removed.
Status applyChange(const std::string &temporary, const std::string &path, bool replace)
{
    if (temporary.empty()) {
        if (::unlink(path.c_str()) != 0 && errno != ENOENT)
            return Error::fromErrno(errno, path);
        return {};
    }
    if (!replace) {
        if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0)
            return Error::fromErrno(errno, path, errno == EEXIST ? IBNM_ERROR_EXISTS : IBNM_ERROR_IO);
    } else if (::rename(temporary.c_str(), path.c_str()) != 0) {
        return Error::fromErrno(errno, path);
    }
    return {};
}

void addDir(std::vector<std::string> &dirs, const std::string &path)
{
    std::string dir = dirName(path);
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
        dirs.push_back(dir);
}

std::string escaped(const std::string &s)
{
    GCharPtr e(g_strescape(s.c_str(), nullptr));
    return e.get();
}

constexpr const char *kJournalHeader = "ibnm-journal 1";

} // namespace

Status AtomicWriteBatch::writeJournal() const
{
    // A file in the journal's directory by its name alone: whoever reads
    // the journal (another process, another working directory, another
    // spelling of the directory) finds it beside the journal.
    const std::string here = dirName(journal_);
    auto name = [&here](const std::string &path) {
        if (dirName(path) != here)
            return escaped(path);
        GCharPtr base(g_path_get_basename(path.c_str()));
        return escaped(base.get());
    };
    std::string text = std::string(kJournalHeader) + "\n";
    for (const auto &p : pending_) {
        if (p.temporary.empty())
            text += "remove\t" + name(p.path) + "\n";
        else
            text += "rename\t" + name(p.temporary) + "\t" + name(p.path) + "\t" + (p.replace ? "1" : "0") + "\n";
    }
    text += "end\n";
    AtomicWriteOptions opts;
    opts.tagWriter = true;
    return atomicWriteFile(journal_, text, opts);
}

Status AtomicWriteBatch::commit(std::vector<std::string> *done)
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
    // A new file never replaces one that exists: refused while nothing is
    // visible yet (the renames below check it again).
    for (const auto &p : pending_) {
        struct stat st {};
        if (!p.temporary.empty() && !p.replace && ::lstat(p.path.c_str(), &st) == 0)
            return Error::fromErrno(EEXIST, p.path, IBNM_ERROR_EXISTS);
    }
    bool journaled = !journal_.empty() && pending_.size() > 1;
    if (journaled)
        if (Status s = writeJournal(); !s.ok())
            return s;
    // Decided: every change is made, also after one fails.
    std::vector<std::string> dirs;
    std::vector<Pending> failed;
    Status result;
    for (auto &p : pending_) {
        if (Status s = applyChange(p.temporary, p.path, p.replace); !s.ok()) {
            if (result.ok())
                result = s;
            failed.push_back(std::move(p));
            continue;
        }
        if (done)
            done->push_back(p.path);
        addDir(dirs, p.path);
    }
    pending_ = std::move(failed); // the destructor removes their temporary files
    for (const auto &dir : dirs)
        if (Status s = syncDirectory(dir); !s.ok() && result.ok())
            result = s;
    if (journaled)
        if (Status s = removeFileDurably(journal_); !s.ok() && result.ok())
            result = s;
    return result;
}

Result<std::optional<std::vector<JournalEntry>>> readJournal(const std::string &journal)
{
    using Entries = std::optional<std::vector<JournalEntry>>;
    auto text = readFileBounded(journal, size_t(1) << 30);
    if (!text) {
        if (text.error().code() == IBNM_ERROR_NOT_FOUND)
            return Entries();
        return std::move(text).error();
    }
    auto malformed = [&journal]() {
        return Error(IBNM_ERROR_PARSE, _("the journal of an unfinished change does not parse")).withContext(journal);
    };
    if (!*text)
        return malformed();
    GStrvPtr lines(g_strsplit((*text)->c_str(), "\n", -1));
    const std::string here = dirName(journal);
    // A name without a directory is beside the journal.
    auto path = [&here](const char *field) {
        GCharPtr p(g_strcompress(field));
        return std::strchr(p.get(), '/') ? std::string(p.get()) : here + "/" + p.get();
    };
    std::vector<JournalEntry> entries;
    bool header = false, end = false;
    for (char **l = lines.get(); *l; l++) {
        if (**l == '\0')
            continue;
        if (end)
            return malformed();
        GStrvPtr f(g_strsplit(*l, "\t", -1));
        guint n = g_strv_length(f.get());
        if (!header) {
            if (std::string(*l) != kJournalHeader)
                return malformed();
            header = true;
        } else if (std::string(*l) == "end") {
            end = true;
        } else if (n == 2 && std::string(f.get()[0]) == "remove") {
            entries.push_back({std::string(), path(f.get()[1]), true});
        } else if (n == 4 && std::string(f.get()[0]) == "rename") {
            entries.push_back({path(f.get()[1]), path(f.get()[2]), std::string(f.get()[3]) == "1"});
        } else {
            return malformed();
        }
    }
    if (!end)
        return malformed();
    return Entries(std::move(entries));
}

Status rollForwardJournal(const std::string &journal)
{
    auto entries = readJournal(journal);
    if (!entries) {
        if (entries.error().code() != IBNM_ERROR_PARSE)
            return std::move(entries).error();
        return removeFileDurably(journal);
    }
    if (!*entries)
        return {};
    std::vector<std::string> dirs;
    for (const auto &e : **entries) {
        struct stat st {};
        if (!e.temporary.empty() && ::lstat(e.temporary.c_str(), &st) != 0)
            continue; // renamed before the crash
        Status s = applyChange(e.temporary, e.path, e.replace);
        if (!s.ok() && s.error().code() == IBNM_ERROR_EXISTS)
            ::unlink(e.temporary.c_str()); // the file there stays
        else if (!s.ok())
            return s;
        addDir(dirs, e.path);
    }
    for (const auto &dir : dirs)
        if (Status s = syncDirectory(dir); !s.ok())
            return s;
    return removeFileDurably(journal);
}

bool removeIfDeadWritersFile(const std::string &dir, const std::string &name)
{
    size_t at = name.rfind(".ibnm-");
    if (name.empty() || name[0] != '.' || at == std::string::npos)
        return false;
    int pid = 0, used = 0;
    unsigned long long start = 0;
    char random[8] = {};
    if (std::sscanf(name.c_str() + at, ".ibnm-%d-%llu.%6[A-Za-z0-9]%n", &pid, &start, random, &used) != 3 ||
        at + size_t(used) != name.size() || std::strlen(random) != 6)
        return false;
    if (processAlive(ProcessId{pid, start}))
        return false;
    return ::unlink((dir + "/" + name).c_str()) == 0;
}

size_t removeDeadWritersFiles(const std::string &dir)
{
    auto names = listDir(dir, false);
    if (!names)
        return 0;
    size_t removed = 0;
    for (const auto &name : *names)
        removed += removeIfDeadWritersFile(dir, name) ? 1 : 0;
    return removed;
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
