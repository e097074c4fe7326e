// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/keyfile-index.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/raii.hpp"

#include <glib.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <clocale>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <unistd.h>

namespace ibnm::settings {

namespace {

// Bumped whenever what an entry holds, or how its facts are derived, changes;
// the package version is checked too.
constexpr char kMagic[8] = {'I', 'B', 'N', 'M', 'K', 'I', 'X', '1'};
constexpr size_t kHeader = sizeof kMagic + 16; // magic, payload length, hash
constexpr size_t kSpare = 16;

// A cheap hash of the payload (a damaged index is read as none): 8 bytes
// at a time, so that 2 MB cost a fraction of a millisecond.
uint64_t hashOf(std::string_view data)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ data.size();
    size_t i = 0;
    for (; i + 8 <= data.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, data.data() + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < data.size(); i++)
        h = (h ^ uint8_t(data[i])) * 0x100000001b3ULL;
    return h ^ (h >> 32);
}

std::string localeTag()
{
    const char *messages = std::setlocale(LC_MESSAGES, nullptr);
    const char *language = g_getenv("LANGUAGE");
    return std::string(messages ? messages : "") + "/" + (language ? language : "");
}

class Writer {
public:
    template <typename T> void num(T v) { put(&v, sizeof v); }
    void str(std::string_view s)
    {
        num(uint32_t(s.size()));
        put(s.data(), s.size());
    }
    void strs(const std::vector<std::string_view> &v)
    {
        num(uint32_t(v.size()));
        for (auto s : v)
            str(s);
    }
    // What was written (the buffer grows by doubling, with memcpy: 10,000
    // entries are some 250,000 fields).
    std::string take()
    {
        out_.resize(used_);
        return std::move(out_);
    }
    void reserve(size_t n) { out_.resize(n); }

private:
    void put(const void *p, size_t n)
    {
        // (An empty string's data() may be null: memcpy() must not see it.)
        if (n == 0)
            return;
        if (used_ + n > out_.size())
            out_.resize(std::max(out_.size() * 2, used_ + n));
        std::memcpy(&out_[used_], p, n);
        used_ += n;
    }
    std::string out_;
    size_t used_ = 0;
};

class Reader {
public:
    explicit Reader(std::string_view in) : in_(in) {}
    template <typename T> bool num(T &v)
    {
        if (in_.size() < sizeof v)
            return false;
        std::memcpy(&v, in_.data(), sizeof v);
        in_.remove_prefix(sizeof v);
        return true;
    }
    bool str(std::string_view &s)
    {
        uint32_t n = 0;
        if (!num(n) || in_.size() < n)
            return false;
        s = in_.substr(0, n);
        in_.remove_prefix(n);
        return true;
    }
    bool strs(std::vector<std::string_view> &v)
    {
        uint32_t n = 0;
        if (!num(n) || n > in_.size())
            return false;
        v.resize(n);
        for (auto &s : v)
            if (!str(s))
                return false;
        return true;
    }
    bool done() const { return in_.empty(); }

private:
    std::string_view in_;
};

void writeEntry(Writer &w, const IndexEntry &e)
{
    const FileStamp &s = e.stamp;
    w.str(e.name);
    w.num(s.dev), w.num(s.ino), w.num(s.ctimeNs), w.num(s.mtimeNs), w.num(s.size), w.num(s.mode), w.num(s.uid);
    w.num(uint8_t((e.ok ? 1 : 0) | (e.unreadable ? 2 : 0) | (e.facts.secondary ? 4 : 0)));
    w.num(int32_t(e.facts.pkey));
    const ProfileFacts &f = e.facts;
    for (auto v : {f.uuid, f.id, f.type, f.ifname, f.master, f.slaveType, f.parent, f.mac, f.linkName})
        w.str(v);
    w.strs(f.secondaries);
    w.strs(e.warnings);
}

bool readEntry(Reader &r, IndexEntry &e)
{
    FileStamp &s = e.stamp;
    uint8_t flags = 0;
    int32_t pkey = -1;
    ProfileFacts &f = e.facts;
    if (!(r.str(e.name) && r.num(s.dev) && r.num(s.ino) && r.num(s.ctimeNs) && r.num(s.mtimeNs) && r.num(s.size) &&
          r.num(s.mode) && r.num(s.uid) && r.num(flags) && r.num(pkey)))
        return false;
    for (auto *v : {&f.uuid, &f.id, &f.type, &f.ifname, &f.master, &f.slaveType, &f.parent, &f.mac, &f.linkName})
        if (!r.str(*v))
            return false;
    e.ok = flags & 1;
    e.unreadable = flags & 2;
    f.secondary = flags & 4;
    f.pkey = pkey;
    return r.strs(f.secondaries) && r.strs(e.warnings);
}

std::string_view view(const char *s)
{
    return s ? std::string_view(s) : std::string_view();
}

} // namespace

FileStamp FileStamp::of(const struct stat &st)
{
    FileStamp s;
    s.dev = st.st_dev;
    s.ino = st.st_ino;
    s.ctimeNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.size = st.st_size;
    s.mode = st.st_mode;
    s.uid = st.st_uid;
    return s;
}

std::string KeyfileIndex::pathFor(const std::string &dir)
{
    const char *off = g_getenv("IBNM_KEYFILE_INDEX");
    if (off && (g_strcmp0(off, "0") == 0 || g_ascii_strcasecmp(off, "off") == 0 || g_ascii_strcasecmp(off, "no") == 0))
        return {};
    const char *env = g_getenv("IBNM_CACHE_DIR");
    std::string cache = env && *env      ? env
                        : ::geteuid() == 0 ? "/var/cache/ibnm"
                                           : std::string(g_get_user_cache_dir()) + "/ibnm";
    GCharPtr sum(g_compute_checksum_for_string(G_CHECKSUM_SHA256, dir.c_str(), -1));
    return cache + "/keyfiles-" + std::string(sum.get()).substr(0, 32) + ".index";
}

KeyfileIndex KeyfileIndex::load(const std::string &path, const std::string &dir, uid_t owner)
{
    KeyfileIndex index;
    // Before any file is stat()ed: the clock files' times come from (the
    // kernel's coarse real time), less one tick.
    struct timespec now {}, tick {};
    ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
    ::clock_getres(CLOCK_REALTIME_COARSE, &tick);
    index.startedNs_ = (int64_t(now.tv_sec) * 1000000000 + now.tv_nsec) - (int64_t(tick.tv_sec) * 1000000000 + tick.tv_nsec);
    index.path_ = path;
    index.dir_ = dir;
    index.owner_ = owner;
    index.locale_ = localeTag();
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    struct stat st {};
    // This user's alone: another could make ibnm trust what is not there.
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
        (st.st_mode & 077) != 0 || st.st_size < off_t(kHeader) || st.st_size > (off_t(1) << 31))
        return index;
    GMappedFilePtr mapped(g_mapped_file_new_from_fd(fd.get(), FALSE, nullptr));
    if (!mapped || g_mapped_file_get_length(mapped.get()) != size_t(st.st_size))
        return index;
    std::string_view data(g_mapped_file_get_contents(mapped.get()), g_mapped_file_get_length(mapped.get()));
    uint64_t length = 0, hash = 0;
    std::memcpy(&length, data.data() + sizeof kMagic, 8);
    std::memcpy(&hash, data.data() + sizeof kMagic + 8, 8);
    std::string_view payload = data.substr(kHeader);
    if (std::memcmp(data.data(), kMagic, sizeof kMagic) != 0 || length != payload.size() || hashOf(payload) != hash)
        return index;
    Reader r(payload);
    std::string_view version, indexDir, locale;
    uint32_t indexOwner = 0, count = 0;
    int64_t started = 0;
    if (!r.str(version) || version != PACKAGE_VERSION || !r.str(indexDir) || indexDir != dir || !r.num(indexOwner) ||
        indexOwner != owner || !r.str(locale) || !r.num(started) || !r.num(count) || count > payload.size())
        return index;
    // Room for one command's files added in place (mergeListing()).
    std::vector<IndexEntry> entries;
    entries.reserve(size_t(count) + kSpare);
    entries.resize(count);
    for (auto &e : entries)
        if (!readEntry(r, e))
            return index;
    if (!r.done())
        return index;
    index.sameLocale_ = locale == index.locale_;
    index.writtenNs_ = started;
    index.data_ = std::move(mapped); // the views point into it
    index.entries = std::move(entries);
    return index;
}

bool KeyfileIndex::save() const
{
    if (path_.empty())
        return false;
    Writer w;
    w.reserve(64 + entries.size() * 256);
    w.str(PACKAGE_VERSION);
    w.str(dir_);
    w.num(uint32_t(owner_));
    w.str(locale_);
    w.num(startedNs_);
    w.num(uint32_t(entries.size()));
    for (const auto &e : entries)
        writeEntry(w, e);
    std::string payload = w.take();
    std::string file(kMagic, sizeof kMagic);
    uint64_t length = payload.size(), hash = hashOf(payload);
    file.reserve(kHeader + payload.size());
    file.append(reinterpret_cast<const char *>(&length), 8);
    file.append(reinterpret_cast<const char *>(&hash), 8);
    file += payload;
    GCharPtr cache(g_path_get_dirname(path_.c_str()));
    if (g_mkdir_with_parents(cache.get(), 0700) != 0)
        return false;
    AtomicWriteOptions opts;
    opts.mode = 0600;
    opts.durable = false;
    return atomicWriteFile(path_, file, opts).ok();
}

std::string_view KeyfileIndex::keep(std::string_view s)
{
    if (s.empty())
        return {};
    return kept_.emplace_back(s);
}

std::string_view KeyfileIndex::keep(std::string &&s)
{
    if (s.empty())
        return {};
    return kept_.emplace_back(std::move(s));
}

ProfileFacts KeyfileIndex::factsOf(NMConnection *c)
{
    ProfileFacts f;
    f.uuid = keep(view(nm_connection_get_uuid(c)));
    f.id = keep(view(nm_connection_get_id(c)));
    f.type = keep(view(nm_connection_get_connection_type(c)));
    f.ifname = keep(view(nm_connection_get_interface_name(c)));
    if (NMSettingConnection *sc = nm_connection_get_setting_connection(c)) {
        f.master = keep(view(nm_setting_connection_get_master(sc)));
        f.slaveType = keep(view(nm_setting_connection_get_slave_type(sc)));
        for (guint i = 0; i < nm_setting_connection_get_num_secondaries(sc); i++)
            f.secondaries.push_back(keep(view(nm_setting_connection_get_secondary(sc, i))));
    }
    if (NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c)) {
        f.parent = keep(view(nm_setting_infiniband_get_parent(ib)));
        f.mac = keep(view(nm_setting_infiniband_get_mac_address(ib)));
        f.pkey = nm_setting_infiniband_get_p_key(ib);
    }
    f.secondary = userkeys::isSecondary(c);
    // The soft RDMA link the profile creates, named as checkAcross() names it.
    auto options = userkeys::parse(c);
    if (options && options->linkType && !f.ifname.empty())
        f.linkName = keep(options->linkName ? *options->linkName
                                            : model::defaultSoftLinkName(*options->linkType, std::string(f.ifname)));
    return f;
}

bool KeyfileIndex::trusted(const IndexEntry &e, const FileStamp &now) const
{
    // Changed since, or possibly changed within the tick in which the scan
    // that wrote the index began (git's "racily clean" entries): its facts
    // may be older than the file.
    if (!(e.stamp == now) || now.size < 0 || writtenNs_ == 0 || now.ctimeNs >= writtenNs_ || now.mtimeNs >= writtenNs_)
        return false;
    // Warnings are text: in another language they are read again.
    return sameLocale_ || e.warnings.empty();
}

std::string childNameOf(const ProfileFacts &f)
{
    if (f.pkey == -1 || f.pkey < 0 || f.pkey > 0xffff || f.parent.empty())
        return {};
    return model::childName(std::string(f.parent), uint16_t(f.pkey), model::ChildNaming::Upstream);
}

std::string portGuidOf(const ProfileFacts &f)
{
    return f.mac.empty() ? std::string() : model::portGuidBytes(std::string(f.mac));
}

} // namespace ibnm::settings
