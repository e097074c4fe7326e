// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/file-lock.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <glib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ibnm {

namespace {

// The start time of process `pid` (field 22 of /proc/PID/stat), 0 when it
// does not run. The command (field 2) may hold spaces and parentheses: the
// fields are counted from its last ')'.
unsigned long long startTimeOf(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
    gchar *text = nullptr;
    if (!g_file_get_contents(path, &text, nullptr, nullptr))
        return 0;
    GCharPtr owned(text);
    const char *p = std::strrchr(text, ')');
    if (p == nullptr)
        return 0;
    // Each step finds the blank before the next field: the one before
    // field 3 (state) first, the one before field 22 (the start time) last.
    for (int field = 3; field <= 22; field++) {
        p = std::strchr(p + 1, ' ');
        if (p == nullptr)
            return 0;
    }
    return g_ascii_strtoull(p + 1, nullptr, 10);
}

// This process's command line, arguments joined by spaces, non-printable
// bytes as '?', at most 200 bytes: what a waiter shows of the holder.
std::string commandLine()
{
    gchar *text = nullptr;
    gsize len = 0;
    if (!g_file_get_contents("/proc/self/cmdline", &text, &len, nullptr))
        return "";
    GCharPtr owned(text);
    std::string out;
    for (gsize i = 0; i < len && out.size() < 200; i++) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        out += c == 0 ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : char(c);
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

// "pid=N start=T cmd=...": the holder a lock file records.
std::string holderRecord()
{
    ProcessId self = currentProcess();
    return strprintf("pid=%d start=%llu cmd=%s\n", int(self.pid), self.start, commandLine().c_str());
}

// Who the lock file `fd` says holds it, for an error: "process N (COMMAND)",
// or "another process" when it does not say or that process has ended.
std::string holderOf(int fd)
{
    char buf[512];
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return _("another process");
    buf[n] = '\0';
    if (char *nl = std::strchr(buf, '\n'))
        *nl = '\0';
    ProcessId p;
    int pid = 0;
    if (std::sscanf(buf, "pid=%d start=%llu", &pid, &p.start) != 2)
        return _("another process");
    p.pid = pid;
    const char *cmd = std::strstr(buf, " cmd=");
    if (!processAlive(p))
        return _("another process");
    return strprintf(_("process %d (%s)"), pid, cmd ? cmd + 5 : "?");
}

// Opens the lock file `path`: never through a symlink, a regular file of
// this process's user with no access for others (a file of another user is
// refused, not used: that user could hold it).
Result<UniqueFd> openLockFile(const std::string &path, bool create, const std::string &what)
{
    int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (create ? O_CREAT : 0);
    UniqueFd fd(::open(path.c_str(), flags, 0600));
    if (!fd)
        return Error::fromErrno(errno, path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return Error::fromErrno(errno, path);
    if (!S_ISREG(st.st_mode))
        return Error(IBNM_ERROR_PERMISSION_DENIED, strprintf(_("%s is not a regular file"), what.c_str()))
            .withContext(path);
    if (st.st_uid != ::geteuid())
        return Error(IBNM_ERROR_PERMISSION_DENIED,
                     strprintf(_("%s belongs to uid %u, not to this user (uid %u); remove it"), what.c_str(),
                               unsigned(st.st_uid), unsigned(::geteuid())))
            .withContext(path);
    if ((st.st_mode & 0077) != 0 && ::fchmod(fd.get(), 0600) != 0)
        return Error::fromErrno(errno, path);
    return fd;
}

// Retries `attempt` (true: taken; false with errno EWOULDBLOCK/EAGAIN/EACCES:
// held by another process) until `waitUntil`, sleeping 1 ms, then twice as
// long each time, at most 50 ms. The lock's error otherwise.
template <typename Attempt>
Status waitFor(Attempt attempt, int fd, int64_t waitUntil, const std::string &path, const std::string &what)
{
    const int64_t started = g_get_monotonic_time();
    gulong sleep = 1000;
    for (;;) {
        if (attempt())
            return {};
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK && errno != EAGAIN && errno != EACCES)
            return Error::fromErrno(errno, path);
        int64_t now = g_get_monotonic_time();
        if (now >= waitUntil) {
            double waited = double(now - started) / G_USEC_PER_SEC;
            return Error(IBNM_ERROR_TIMED_OUT,
                         strprintf(_("%s is held by %s; gave up after %.1f s (-w SECONDS waits longer)"),
                                   what.c_str(), holderOf(fd).c_str(), waited))
                .withContext(path);
        }
        g_usleep(gulong(std::min<int64_t>(sleep, waitUntil - now)));
        sleep = std::min<gulong>(sleep * 2, 50000);
    }
}

void writeHolder(int fd)
{
    std::string record = holderRecord();
    if (::ftruncate(fd, 0) == 0)
        (void)!::pwrite(fd, record.data(), record.size(), 0);
}

} // namespace

ProcessId currentProcess()
{
    static const ProcessId self{::getpid(), startTimeOf(::getpid())};
    // After a fork() the child is another process.
    if (self.pid != ::getpid())
        return ProcessId{::getpid(), startTimeOf(::getpid())};
    return self;
}

bool processAlive(const ProcessId &p)
{
    if (p.pid <= 0)
        return false;
    unsigned long long start = startTimeOf(p.pid);
    return start != 0 && start == p.start;
}

int64_t lockDeadline(int seconds)
{
    if (seconds < 0)
        return kLockWaitForever;
    if (seconds == 0)
        return kLockNoWait;
    return g_get_monotonic_time() + int64_t(seconds) * G_USEC_PER_SEC;
}

Result<UniqueFd> lockFileExclusive(const std::string &path, int64_t waitUntil, const std::string &what)
{
    auto fd = openLockFile(path, true, what);
    if (!fd)
        return fd;
    int raw = fd->get();
    Status st = waitFor([raw] { return ::flock(raw, LOCK_EX | LOCK_NB) == 0; }, raw, waitUntil, path, what);
    if (!st)
        return std::move(st).error();
    writeHolder(raw);
    return fd;
}

Result<RangeLockFile> RangeLockFile::open(const std::string &path, bool create, const std::string &what)
{
    auto fd = openLockFile(path, create, what);
    if (!fd)
        return std::move(fd).error();
    RangeLockFile f;
    f.fd_ = std::move(*fd);
    f.path_ = path;
    f.what_ = what;
    return f;
}

Status RangeLockFile::lock(off_t byte, bool exclusive, int64_t waitUntil)
{
    int raw = fd_.get();
    return waitFor(
        [raw, byte, exclusive] {
            struct flock l {};
            l.l_type = exclusive ? F_WRLCK : F_RDLCK;
            l.l_whence = SEEK_SET;
            l.l_start = byte;
            l.l_len = 1;
            return ::fcntl(raw, F_OFD_SETLK, &l) == 0;
        },
        raw, waitUntil, path_, what_);
}

void RangeLockFile::unlock(off_t byte)
{
    struct flock l {};
    l.l_type = F_UNLCK;
    l.l_whence = SEEK_SET;
    l.l_start = byte;
    l.l_len = 1;
    (void)::fcntl(fd_.get(), F_OFD_SETLK, &l);
}

void RangeLockFile::recordHolder()
{
    writeHolder(fd_.get());
}

} // namespace ibnm
