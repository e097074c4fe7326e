// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/simulator/fake-journal.hpp"

#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <glib.h>
#include <glib/gstdio.h>

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ibnm::platform::journal {

namespace {

constexpr char kSnapshotPrefix[] = "# journal ";
constexpr char kJournalPrefix[] = "ibnm-journal 1 ";

std::string escape(const std::string &s)
{
    GCharPtr e(g_strescape(s.c_str(), nullptr));
    return e.get();
}

} // namespace

std::string encode(const Record &r)
{
    std::string line = r.ok ? "ok" : "refused";
    line += '\t';
    line += r.op;
    for (const auto &a : r.args) {
        line += '\t';
        line += escape(a);
    }
    line += '\n';
    return line;
}

std::optional<Record> decode(std::string_view line)
{
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
        size_t tab = line.find('\t', start);
        fields.emplace_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
        if (tab == std::string_view::npos)
            break;
        start = tab + 1;
    }
    if (fields.size() < 2 || (fields[0] != "ok" && fields[0] != "refused") || fields[1].empty())
        return std::nullopt;
    Record r;
    r.ok = fields[0] == "ok";
    r.op = fields[1];
    for (size_t i = 2; i < fields.size(); i++) {
        GCharPtr c(g_strcompress(fields[i].c_str()));
        r.args.emplace_back(c.get());
    }
    return r;
}

std::string newId()
{
    return strprintf("%lx-%llx-%08x%08x", static_cast<unsigned long>(getpid()),
                     static_cast<unsigned long long>(g_get_real_time()), g_random_int(), g_random_int());
}

std::string snapshotLine(const std::string &id)
{
    return kSnapshotPrefix + id + "\n";
}

Result<std::optional<std::string>> snapshotId(const std::string &path)
{
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        if (errno == ENOENT)
            return std::optional<std::string>();
        return Error::fromErrno(errno, path);
    }
    // The id is on the second line, within the first few hundred bytes.
    char buf[512];
    ssize_t n;
    do
        n = ::read(fd.get(), buf, sizeof buf);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return Error::fromErrno(errno, path);
    std::string_view head(buf, static_cast<size_t>(n));
    size_t first = head.find('\n');
    if (first == std::string_view::npos)
        return std::optional<std::string>(std::string());
    std::string_view second = head.substr(first + 1);
    size_t end = second.find('\n');
    if (end == std::string_view::npos || second.compare(0, sizeof kSnapshotPrefix - 1, kSnapshotPrefix) != 0)
        return std::optional<std::string>(std::string());
    return std::optional<std::string>(std::string(second.substr(sizeof kSnapshotPrefix - 1,
                                                                end - (sizeof kSnapshotPrefix - 1))));
}

Result<Tail> readFrom(const std::string &path, const std::string &id, uint64_t offset)
{
    Tail t;
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        if (errno == ENOENT)
            return t;
        return Error::fromErrno(errno, path);
    }
    std::string header = kJournalPrefix + id + "\n";
    std::string got(header.size(), '\0');
    ssize_t n = ::pread(fd.get(), got.data(), got.size(), 0);
    if (n < 0)
        return Error::fromErrno(errno, path);
    if (static_cast<size_t>(n) != header.size() || got != header)
        return t;
    t.sameId = true;
    if (offset < header.size())
        offset = header.size();
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return Error::fromErrno(errno, path);
    t.end = offset;
    if (static_cast<uint64_t>(st.st_size) <= offset)
        return t;
    std::string data(static_cast<size_t>(static_cast<uint64_t>(st.st_size) - offset), '\0');
    size_t have = 0;
    while (have < data.size()) {
        ssize_t m = ::pread(fd.get(), data.data() + have, data.size() - have, static_cast<off_t>(offset + have));
        if (m < 0 && errno == EINTR)
            continue;
        if (m < 0)
            return Error::fromErrno(errno, path);
        if (m == 0)
            break;
        have += static_cast<size_t>(m);
    }
    data.resize(have);
    size_t start = 0;
    unsigned lineNo = 0;
    for (size_t nl; (nl = data.find('\n', start)) != std::string::npos; start = nl + 1) {
        lineNo++;
        auto r = decode(std::string_view(data).substr(start, nl - start));
        if (!r)
            return Error(IBNM_ERROR_PARSE, _("not a journal record"))
                .withContext(strprintf("%s (offset %llu)", path.c_str(),
                                       static_cast<unsigned long long>(offset + start)));
        t.records.push_back(std::move(*r));
    }
    // A last line without its newline is a write a killed process did not
    // finish: not a record.
    t.end = offset + start;
    return t;
}

Result<uint64_t> create(const std::string &path, const std::string &id)
{
    std::string header = kJournalPrefix + id + "\n";
    if (Status s = atomicWriteFile(path, header, kSimulatorFile); !s.ok())
        return std::move(s).error();
    return static_cast<uint64_t>(header.size());
}

Status append(const std::string &path, uint64_t end, const std::string &line)
{
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return Error::fromErrno(errno, path);
    if (static_cast<uint64_t>(st.st_size) != end && ::ftruncate(fd.get(), static_cast<off_t>(end)) != 0)
        return Error::fromErrno(errno, path);
    // One write(2): a reader under the lock never sees half of it, and a
    // kill -9 leaves at most a torn last line.
    ssize_t n;
    do
        n = ::write(fd.get(), line.data(), line.size());
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return Error::fromErrno(errno, path);
    if (static_cast<size_t>(n) != line.size()) {
        (void)!::ftruncate(fd.get(), static_cast<off_t>(end));
        return Error::fromErrno(ENOSPC, path);
    }
    return {};
}

} // namespace ibnm::platform::journal
