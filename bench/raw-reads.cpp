// SPDX-License-Identifier: LGPL-2.1-or-later
// The floor for the inventory: every file libcore/platform/linux/sysfs.cpp reads
// under ROOT/class/{infiniband,net}, read once each with open/read/close,
// and the directories listed once, with nothing parsed or kept. Each file
// is opened the way ibnm opens it: by its path, except the GID tables and
// the P_Key tables, whose files are opened relative to their directory
// (openat) through the descriptor the listing used, as readGids() and
// readPkeys() do.
// usage: raw-reads ROOT [--gids-only]
// Prints "files=N dirs=M bytes=B".
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

unsigned long files, dirs, bytes;

// Returns the length read (trailing newline removed), or -1. dirfd
// AT_FDCWD: path as given.
long readFileAt(int dirfd, const char *path, char *buf, size_t size)
{
    int fd = ::openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    files++;
    ssize_t n = ::read(fd, buf, size - 1);
    ::close(fd);
    if (n < 0)
        return -1;
    bytes += static_cast<unsigned long>(n);
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = '\0';
    return n;
}

long readFile(const std::string &path, char *buf, size_t size)
{
    return readFileAt(AT_FDCWD, path.c_str(), buf, size);
}

// The entries of a directory; fd (if given) gets a descriptor of it that
// the caller closes (-1 when it cannot be listed).
std::vector<std::string> list(const std::string &path, int *fd = nullptr)
{
    std::vector<std::string> names;
    if (fd)
        *fd = -1;
    DIR *d = ::opendir(path.c_str());
    if (!d)
        return names;
    dirs++;
    while (struct dirent *e = ::readdir(d))
        if (e->d_name[0] != '.')
            names.emplace_back(e->d_name);
    if (fd)
        *fd = ::fcntl(::dirfd(d), F_DUPFD_CLOEXEC, 0);
    ::closedir(d);
    return names;
}

void readAll(const std::string &dir, const char *const *names)
{
    char buf[4096];
    for (; *names; ++names)
        readFile(dir + "/" + *names, buf, sizeof buf);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ROOT [--gids-only]\n", argv[0]);
        return 2;
    }
    std::string root = argv[1];
    bool gidsOnly = argc > 2 && strcmp(argv[2], "--gids-only") == 0;
    static const char zero[] = "0000:0000:0000:0000:0000:0000:0000:0000";
    static const char *const devFiles[] = {"node_guid", "node_type", "fw_ver", "hca_type", "board_id",
                                           "device/roce_enable", nullptr};
    static const char *const portFiles[] = {"state", "phys_state", "rate", "link_layer", "lid", "sm_lid", nullptr};
    static const char *const netFiles[] = {"type", "ifindex", "mtu", "address", "flags", "uevent", nullptr};
    static const char *const rdmaNetFiles[] = {"dev_port", "dev_id", nullptr};
    static const char *const ipoibFiles[] = {"pkey", "mode", "umcast", "parent", nullptr};
    char buf[4096];
    char link[4096];
    std::string ib = root + "/class/infiniband";
    for (const auto &dev : list(ib)) {
        std::string d = ib + "/" + dev;
        if (!gidsOnly) {
            readAll(d, devFiles);
            (void)!::readlink((d + "/device/driver").c_str(), link, sizeof link);
        }
        for (const auto &port : list(d + "/ports")) {
            std::string p = d + "/ports/" + port;
            if (!gidsOnly) {
                readAll(p, portFiles);
                int pkeysFd;
                for (const auto &k : list(p + "/pkeys", &pkeysFd))
                    readFileAt(pkeysFd, k.c_str(), buf, sizeof buf);
                if (pkeysFd >= 0)
                    ::close(pkeysFd);
                readFile(d + "/tc/" + port + "/traffic_class", buf, sizeof buf);
                readFile(d + "/tc/" + port + "/ttl", buf, sizeof buf);
            }
            // As libcore/platform/linux/sysfs.cpp readGids(): the listing, then
            // each of the three directories opened once (gids/ is the one
            // listed) and every file opened relative to it (openat), one
            // path component each.
            int gidsFd;
            auto gids = list(p + "/gids", &gidsFd);
            if (gids.empty()) {
                if (gidsFd >= 0)
                    ::close(gidsFd);
                continue;
            }
            int typesFd = ::open((p + "/gid_attrs/types").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            int ndevsFd = ::open((p + "/gid_attrs/ndevs").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            for (const auto &g : gids) {
                if (readFileAt(gidsFd, g.c_str(), buf, sizeof buf) < 0 || strcmp(buf, zero) == 0)
                    continue;
                readFileAt(typesFd, g.c_str(), buf, sizeof buf);
                readFileAt(ndevsFd, g.c_str(), buf, sizeof buf);
            }
            for (int fd : {gidsFd, typesFd, ndevsFd})
                if (fd >= 0)
                    ::close(fd);
        }
    }
    if (!gidsOnly) {
        std::string net = root + "/class/net";
        for (const auto &nd : list(net)) {
            std::string n = net + "/" + nd;
            struct stat st;
            if (::stat(n.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            readAll(n, netFiles);
            (void)::stat((n + "/bonding").c_str(), &st);
            (void)!::readlink((n + "/master").c_str(), link, sizeof link);
            if (!list(n + "/device/infiniband").empty())
                readAll(n, rdmaNetFiles);
            if (readFile(n + "/type", buf, sizeof buf) > 0 && strcmp(buf, "32") == 0)
                readAll(n, ipoibFiles);
        }
    }
    printf("files=%lu dirs=%lu bytes=%lu\n", files, dirs, bytes);
    return 0;
}
