// SPDX-License-Identifier: LGPL-2.1-or-later
// sysfs attributes: reads confined to the tree asked for (openat2
// RESOLVE_BENEATH), whole or failing, never truncated; numbers, links,
// directories, writes, and the GID and port GUID formats. The host reader
// is sysfs-host.cpp and sysfs-netdev.cpp.
#include "config.h"

#include "libcore/platform/linux/sysfs-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ibnm::platform::sysfs {

namespace {

thread_local const Confinement *tlConfinement = nullptr;

// What readRawAt() returns for a FIFO, socket, device or directory: never
// read (a FIFO would block for ever).
constexpr int kNotRegular = EMEDIUMTYPE;

// How often openConfined() retries an open that failed for a moment (EAGAIN
// from a racing rename, EINTR): a rename storm passes long before.
constexpr int kOpenRetries = 16;

} // namespace

ConfineTo::ConfineTo(const std::string &root) : outer_(tlConfinement)
{
    if (outer_ != nullptr)
        return; // a nested entry point: the outer root holds
    c_.prefix = root;
    while (c_.prefix.size() > 1 && c_.prefix.back() == '/')
        c_.prefix.pop_back();
    c_.prefix += '/';
    c_.fd.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    tlConfinement = &c_;
}

ConfineTo::~ConfineTo()
{
    if (tlConfinement == &c_)
        tlConfinement = outer_;
}

// open(2) of `path`, beneath the current confinement's root when it is
// under it. -1 with errno set on failure. The one place every sysfs read
// opens its file (the CLI's and the dispatcher hook's alike): a transient
// failure is retried here, at most kOpenRetries times. openat2() with
// RESOLVE_BENEATH fails with EAGAIN when a rename or mount anywhere on the
// system raced with a lookup through "..", which every sysfs link has
// (FACTS.md; handle_dots() in fs/namei.c: "userspace should retry"); EINTR
// is a signal arriving meanwhile.
int openConfined(const char *path, int flags)
{
    const Confinement *c = tlConfinement;
    size_t n = c ? c->prefix.size() : 0;
    for (int attempt = 0;; attempt++) {
        long fd = -1;
        if (c != nullptr && c->fd && std::strncmp(path, c->prefix.c_str(), n) == 0) {
            struct open_how how {};
            how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
            how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
            fd = ::syscall(SYS_openat2, c->fd.get(), path + n, &how, sizeof how);
            if (fd < 0 && errno == ENOSYS)
                fd = ::open(path, flags | O_CLOEXEC);
        } else {
            fd = ::open(path, flags | O_CLOEXEC);
        }
        if (fd >= 0 || (errno != EAGAIN && errno != EINTR) || attempt >= kOpenRetries)
            return static_cast<int>(fd);
    }
}

// Reads the file into buf (size kMaxAttrSize): returns the length, or -errno.
// A file that does not fit gives -EFBIG; one that is not a regular file
// -kNotRegular. dirfd: a directory opened by openConfined(), and path one
// name in it (no symlink followed). type: the entry's d_type from the
// directory listing (listDirEntries()); DT_REG spares the fstat(2) that
// tells a regular file from a FIFO or device (one system call in four of
// each file read), any other value asks fstat(2) as before.
ssize_t readRawAt(int dirfd, const char *path, char *buf, unsigned char type)
{
    bool regular = type == DT_REG && dirfd != AT_FDCWD;
    UniqueFd fd(dirfd == AT_FDCWD ? openConfined(path, O_RDONLY | O_NONBLOCK)
                                  : ::openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
    if (!fd)
        return -errno;
    if (!regular) {
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0)
            return -errno;
        if (S_ISDIR(st.st_mode))
            return -EISDIR;
        if (!S_ISREG(st.st_mode))
            return -kNotRegular;
    }
    size_t len = 0;
    for (;;) {
        ssize_t n = ::read(fd.get(), buf + len, kMaxAttrSize - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            break;
        len += static_cast<size_t>(n);
        // A sysfs attribute comes whole in one read (kernfs fills up to a
        // page), and a regular file returns less only at its end: a short
        // read is the end, which saves the extra read(2) per file.
        if (len < kMaxAttrSize)
            break;
        if (len == kMaxAttrSize) {
            char extra;
            ssize_t m;
            do
                m = ::read(fd.get(), &extra, 1);
            while (m < 0 && errno == EINTR);
            if (m < 0)
                return -errno;
            if (m > 0)
                return -EFBIG;
            break;
        }
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\r'))
        len--;
    return static_cast<ssize_t>(len);
}

Error tooLarge(const std::string &path)
{
    return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes"), kMaxAttrSize)).withContext(path);
}

// The error of a failed readRawAt(), naming the file.
Error readError(ssize_t n, const std::string &path)
{
    int e = static_cast<int>(-n);
    if (e == EFBIG)
        return tooLarge(path);
    if (e == kNotRegular)
        return Error(IBNM_ERROR_PARSE, _("not a regular file (a FIFO, socket, device or directory); not read"))
            .withContext(path);
    if (e == EXDEV || e == ELOOP)
        return Error(IBNM_ERROR_PERMISSION_DENIED,
                     _("a symbolic link leads out of the sysfs tree (or is not allowed here); not followed"), e)
            .withContext(path);
    return Error::fromErrno(e, path);
}

Error malformed(const std::string &path, const std::string &text)
{
    return Error(IBNM_ERROR_PARSE, strprintf(_("unexpected contents '%s'"), text.c_str())).withContext(path);
}

bool isNumber(const std::string &s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join(const std::string &a, const char *b)
{
    std::string r = a;
    r += '/';
    r += b;
    return r;
}

Result<std::optional<std::string>> optionalString(const std::string &dir, const char *name)
{
    return readOptionalAttr(join(dir, name));
}

namespace {

ssize_t readRaw(const char *path, char *buf)
{
    return readRawAt(AT_FDCWD, path, buf);
}

} // namespace

Result<std::string> readAttr(const std::string &path)
{
    char buf[kMaxAttrSize];
    ssize_t n = readRaw(path.c_str(), buf);
    if (n < 0)
        return readError(n, path);
    return std::string(buf, static_cast<size_t>(n));
}

Result<std::optional<std::string>> readOptionalAttr(const std::string &path)
{
    char buf[kMaxAttrSize];
    ssize_t n = readRaw(path.c_str(), buf);
    if (n == -ENOENT)
        return std::optional<std::string>();
    if (n < 0)
        return readError(n, path);
    return std::optional<std::string>(std::string(buf, static_cast<size_t>(n)));
}

Result<unsigned long long> parseNumber(const std::string &text, const std::string &path, int base)
{
    const char *s = text.c_str();
    if (*s == '\0' || *s == '-' || *s == '+' || g_ascii_isspace(*s))
        return malformed(path, text);
    char *end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || end == s || *end != '\0')
        return malformed(path, text);
    return v;
}

Result<std::optional<unsigned long long>> readOptionalNumber(const std::string &path, int base,
                                                             unsigned long long max)
{
    auto text = readOptionalAttr(path);
    if (!text)
        return std::move(text).error();
    if (!text->has_value())
        return std::optional<unsigned long long>();
    auto v = parseNumber(**text, path, base);
    if (!v)
        return std::move(v).error();
    if (*v > max)
        return Error(IBNM_ERROR_PARSE, strprintf(_("the value %s is out of range (at most %llu)"), text->value().c_str(), max))
            .withContext(path);
    return std::optional<unsigned long long>(*v);
}

Result<std::optional<std::string>> readLinkName(const std::string &path)
{
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
    if (n < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return std::optional<std::string>();
        return Error::fromErrno(errno, path);
    }
    if (static_cast<size_t>(n) == sizeof(buf))
        return tooLarge(path);
    std::string target(buf, static_cast<size_t>(n));
    auto slash = target.rfind('/');
    return std::optional<std::string>(slash == std::string::npos ? target : target.substr(slash + 1));
}

namespace {

// One entry as getdents64 gave it, until the listing is sorted: its name
// in the listing's arena, and the sort key of a plain number.
struct RawEntry {
    uint64_t value;    // a plain number of up to 19 digits: its value
    uint32_t offset;   // of the name in the arena
    uint16_t length;
    bool numeric;      // value holds (compares as strverscmp would)
    bool plainNumber;
    unsigned char type;
};

} // namespace

Result<DirListing> listDirEntriesAt(int fd, const std::string &path)
{
    // getdents64(2) on the descriptor as it is: no opendir() state, no
    // fstat(2) and fcntl(2) of fdopendir(), and the caller keeps the
    // descriptor for openat(2) of the entries. The names go into one
    // arena; the entries are sorted as small records (a GID directory has
    // 128 to 256 entries: one string each cost more than the rest).
    std::vector<RawEntry> raw;
    DirListing out;
    size_t used = 0;
    alignas(8) char buf[32768];
    for (;;) {
        ssize_t n = ::getdents64(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error::fromErrno(errno, path);
        }
        if (n == 0)
            break;
        // A record is at least 24 bytes (a name of up to 4 characters),
        // and holds the name with its NUL.
        raw.reserve(raw.size() + static_cast<size_t>(n) / 24);
        out.arena.resize(used + static_cast<size_t>(n));
        for (ssize_t off = 0; off < n;) {
            const auto *d = reinterpret_cast<const struct dirent64 *>(buf + off);
            off += d->d_reclen;
            const char *name = d->d_name;
            if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                continue;
            size_t len = std::strlen(name);
            RawEntry e{};
            e.offset = static_cast<uint32_t>(used);
            e.length = static_cast<uint16_t>(len); // NAME_MAX is 255
            e.type = d->d_type;
            bool digits = len > 0;
            for (size_t i = 0; digits && i < len; i++)
                digits = name[i] >= '0' && name[i] <= '9';
            e.plainNumber = digits && (len == 1 || name[0] != '0');
            e.numeric = e.plainNumber && len <= 19;
            for (size_t i = 0; e.numeric && i < len; i++)
                e.value = e.value * 10 + static_cast<unsigned>(name[i] - '0');
            std::memcpy(out.arena.data() + used, name, len + 1);
            used += len + 1;
            raw.push_back(e);
        }
        out.arena.resize(used);
    }
    auto entry = [](const RawEntry &e) { return DirListing::Entry{e.offset, e.length, e.type, e.plainNumber}; };
    out.entries.reserve(raw.size());
    // Natural order (strverscmp): "2" before "10", "mlx5_2" before
    // "mlx5_10". All plain numbers of a small range (a GID or P_Key
    // table's 0..N-1): each goes to its place by value, in any order the
    // file system gives.
    bool small = std::all_of(raw.begin(), raw.end(), [&](const RawEntry &e) {
        return e.numeric && e.value < 2 * raw.size() + 16;
    });
    if (small) {
        std::vector<int32_t> slot(2 * raw.size() + 16, -1);
        for (size_t i = 0; i < raw.size(); i++)
            slot[raw[i].value] = static_cast<int32_t>(i);
        for (int32_t i : slot)
            if (i >= 0)
                out.entries.push_back(entry(raw[static_cast<size_t>(i)]));
        return out;
    }
    // Two plain numbers of up to 19 digits by value (the same order as by
    // length, then digits), longer ones by length, then digits; anything
    // else with strverscmp.
    const char *names = out.arena.data();
    std::sort(raw.begin(), raw.end(), [names](const RawEntry &x, const RawEntry &y) {
        if (x.numeric && y.numeric)
            return x.value < y.value;
        if (x.plainNumber && y.plainNumber) {
            if (x.length != y.length)
                return x.length < y.length;
            return std::memcmp(names + x.offset, names + y.offset, x.length) < 0;
        }
        return ::strverscmp(names + x.offset, names + y.offset) < 0;
    });
    for (const RawEntry &e : raw)
        out.entries.push_back(entry(e));
    return out;
}

Result<std::vector<std::string>> listDir(const std::string &path)
{
    UniqueFd fd(openConfined(path.c_str(), O_RDONLY | O_DIRECTORY));
    if (!fd) {
        if (errno == ENOENT || errno == ENOTDIR)
            return std::vector<std::string>();
        return readError(-errno, path);
    }
    auto listing = listDirEntriesAt(fd.get(), path);
    if (!listing)
        return std::move(listing).error();
    std::vector<std::string> names;
    names.reserve(listing->entries.size());
    for (const auto &e : listing->entries)
        names.push_back(listing->nameString(e));
    return names;
}

Status writeAttr(const std::string &path, const std::string &value)
{
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, path);
    ssize_t n;
    do
        n = ::write(fd.get(), value.data(), value.size());
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return Error::fromErrno(errno, path, IBNM_ERROR_PLATFORM);
    if (static_cast<size_t>(n) != value.size())
        return Error::fromErrno(EIO, path, IBNM_ERROR_PLATFORM);
    int fdv = fd.release();
    if (::close(fdv) < 0 && errno != EINTR)
        return Error::fromErrno(errno, path, IBNM_ERROR_PLATFORM);
    return {};
}

std::string formatGid(const unsigned char raw[16])
{
    char buf[40];
    snprintf(buf, sizeof(buf), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", raw[0], raw[1],
             raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14],
             raw[15]);
    return buf;
}

std::string portGuidFromAddress(const std::string &address)
{
    // 20 bytes "xx:" each: 59 characters.
    if (address.size() != 59)
        return {};
    std::string hex;
    for (size_t i = 12 * 3; i < address.size(); i += 3)
        hex += address.substr(i, 2);
    return hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" + hex.substr(12, 4);
}

} // namespace ibnm::platform::sysfs
