// SPDX-License-Identifier: LGPL-2.1-or-later
// LinuxPlatform::watchChanges(): the kernel's own announcements, each a
// netlink socket whose descriptor is a source on the caller's GMainContext.
//
// - rtnetlink, RTNLGRP_LINK and the IPv4/IPv6 address groups: a netdev
//   created, removed, renamed, set up or down (IPoIB children, RoCE and rxe
//   netdevs), an address added or removed (RoCE GIDs follow addresses).
// - RDMA netlink, RDMA_NL_GROUP_NOTIFY: RDMA_NLDEV_CMD_MONITOR events (an
//   RDMA device registered or unregistered, a netdev attached to or detached
//   from a port). Linux 6.12 added them (commit 9cbed5aab5ae, "RDMA/nldev:
//   Add support for RDMA monitoring"; rename events in 6.13); Debian 12's
//   6.1 sends nothing there, and lets no unprivileged process join.
// - kernel uevents (NETLINK_KOBJECT_UEVENT, group 1), the infiniband class:
//   ib_register_device() and its removal send "add"/"remove" on every kernel,
//   which is how registration is seen before 6.12.
// - Nothing announces an RDMA port's state: not RDMA netlink (6.1 or later)
//   and no uevent (only a verbs context opened on the device receives
//   IBV_EVENT_PORT_ACTIVE/PORT_ERR). The port state files are read again once
//   a second, and a change is reported only when one differs.
// - Nothing announces a GID table either: ib_core's roce_gid_mgmt.c updates
//   RoCE GID entries from a work queue after the netdev and address
//   notifiers, i.e. after rtnetlink announced the change. Half a second
//   after such an announcement the watch reports kChangeGidTables, for a
//   second look.
#include "config.h"

#include "libcore/platform/linux/linux-platform-private.hpp"

#include <glib-unix.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>

#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

namespace ibnm::platform {

namespace {

// RDMA_NL_GROUP_NOTIFY (<rdma/rdma_netlink.h> of Linux 6.12; the 6.1
// headers ibnm may be built with do not have it).
constexpr int kRdmaGroupNotify = RDMA_NL_GROUP_LS + 1;
// The kernel's uevents, as opposed to udevd's (group 2).
constexpr int kUeventKernelGroup = 1;
constexpr unsigned kPortPollMs = 1000;
constexpr unsigned kGidFollowUpMs = 500;

// A multicast netlink socket, non-blocking: `protocol`, joined to `groups`.
// Null when the kernel refuses it (no such protocol, not allowed to join).
NlSockPtr subscribe(int protocol, std::initializer_list<int> groups)
{
    NlSockPtr s(nl_socket_alloc());
    if (!s)
        return nullptr;
    nl_socket_disable_seq_check(s.get());
    if (nl_connect(s.get(), protocol) < 0)
        return nullptr;
    for (int g : groups)
        if (nl_socket_add_membership(s.get(), g) < 0)
            return nullptr;
    if (nl_socket_set_nonblocking(s.get()) < 0)
        return nullptr;
    return s;
}

// Reads every datagram waiting on `fd`; each is handed to `onDatagram`.
// A lost event (ENOBUFS: the socket overflowed) counts as every change.
template <typename Fn>
unsigned drain(int fd, Fn &&onDatagram)
{
    unsigned changes = 0;
    alignas(nlmsghdr) static thread_local char buf[65536];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == ENOBUFS) {
            changes |= kChangeAll;
            continue;
        }
        if (n <= 0)
            return changes;
        changes |= onDatagram(buf, size_t(n));
    }
}

// What the rtnetlink messages of one datagram announce.
unsigned routeChanges(const char *buf, size_t len)
{
    unsigned changes = 0;
    int left = int(len);
    for (auto *h = reinterpret_cast<const nlmsghdr *>(buf); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
        if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK)
            changes |= kChangeLinks;
        else if (h->nlmsg_type == RTM_NEWADDR || h->nlmsg_type == RTM_DELADDR)
            changes |= kChangeAddresses;
    }
    return changes;
}

// What the RDMA netlink messages of one datagram announce: any
// RDMA_NLDEV_CMD_MONITOR event (28 in <rdma/rdma_netlink.h> of 6.12).
unsigned rdmaChanges(const char *buf, size_t len)
{
    constexpr unsigned kCmdMonitor = 28;
    int left = int(len);
    for (auto *h = reinterpret_cast<const nlmsghdr *>(buf); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
        if (h->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, kCmdMonitor))
            return kChangeRdmaDevices;
    return 0;
}

// A kernel uevent: "ACTION@DEVPATH\0KEY=VALUE\0...". An RDMA device's
// (SUBSYSTEM=infiniband) is news; the net class's are rtnetlink's.
unsigned ueventChanges(const char *buf, size_t len)
{
    for (size_t at = 0; at < len;) {
        const char *field = buf + at;
        size_t n = strnlen(field, len - at);
        if (std::string_view(field, n) == "SUBSYSTEM=infiniband")
            return kChangeRdmaDevices;
        at += n + 1;
    }
    return 0;
}

class LinuxWatch final : public ChangeWatch {
public:
    LinuxWatch(const std::string &sysfsRoot, GMainContext *context, ChangeCallback onChange)
        : sysfsRoot_(sysfsRoot), context_(context), onChange_(std::move(onChange))
    {
        route_ = subscribe(NETLINK_ROUTE, {RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR});
        rdma_ = subscribe(NETLINK_RDMA, {kRdmaGroupNotify});
        uevent_ = subscribe(NETLINK_KOBJECT_UEVENT, {kUeventKernelGroup});
        watchFd(route_.get(), context, onRoute);
        watchFd(rdma_.get(), context, onRdma);
        watchFd(uevent_.get(), context, onUevent);
        ports_ = readPortStates();
        GSourcePtr timer(g_timeout_source_new(kPortPollMs));
        g_source_set_callback(timer.get(), onPortTimer, this, nullptr);
        g_source_attach(timer.get(), context);
        sources_.push_back(std::move(timer));
    }
    bool listening() const { return route_ != nullptr; }
    unsigned notified() const override
    {
        return (route_ ? kChangeLinks | kChangeAddresses : 0u) | (rdma_ || uevent_ ? kChangeRdmaDevices : 0u);
    }
    unsigned polled() const override { return kChangePorts; }
    unsigned pollMs() const override { return kPortPollMs; }

private:
    void watchFd(nl_sock *s, GMainContext *context, GUnixFDSourceFunc fn)
    {
        if (!s)
            return;
        GSourcePtr src(g_unix_fd_source_new(nl_socket_get_fd(s), G_IO_IN));
        g_source_set_callback(src.get(), reinterpret_cast<GSourceFunc>(reinterpret_cast<void (*)()>(fn)), this,
                              nullptr);
        g_source_attach(src.get(), context);
        sources_.push_back(std::move(src));
    }
    void report(unsigned changes)
    {
        if (!changes)
            return;
        if ((changes & (kChangeLinks | kChangeAddresses | kChangeRdmaDevices)) && !followUp_) {
            followUp_.reset(g_timeout_source_new(kGidFollowUpMs));
            g_source_set_callback(followUp_.get(), onFollowUp, this, nullptr);
            g_source_attach(followUp_.get(), context_);
        }
        onChange_(changes);
    }
    static gboolean onFollowUp(gpointer self)
    {
        auto *w = static_cast<LinuxWatch *>(self);
        GSourcePtr done = std::move(w->followUp_); // destroyed on return; GLib holds it while it runs
        w->onChange_(kChangeGidTables);
        return G_SOURCE_REMOVE;
    }
    static gboolean onRoute(int fd, GIOCondition, gpointer self)
    {
        static_cast<LinuxWatch *>(self)->report(drain(fd, routeChanges));
        return G_SOURCE_CONTINUE;
    }
    static gboolean onRdma(int fd, GIOCondition, gpointer self)
    {
        static_cast<LinuxWatch *>(self)->report(drain(fd, rdmaChanges));
        return G_SOURCE_CONTINUE;
    }
    static gboolean onUevent(int fd, GIOCondition, gpointer self)
    {
        static_cast<LinuxWatch *>(self)->report(drain(fd, ueventChanges));
        return G_SOURCE_CONTINUE;
    }
    static gboolean onPortTimer(gpointer self)
    {
        auto *w = static_cast<LinuxWatch *>(self);
        auto now = w->readPortStates();
        if (now != w->ports_) {
            w->ports_ = std::move(now);
            w->report(kChangePorts);
        }
        return G_SOURCE_CONTINUE;
    }
    // "dev/port" -> the port's state file, for every port sysfs lists: a
    // few short files, whatever the number of netdevs and GIDs.
    std::map<std::string, std::string> readPortStates() const
    {
        std::map<std::string, std::string> states;
        std::string base = sysfsRoot_ + "/class/infiniband";
        GDirPtr devices(g_dir_open(base.c_str(), 0, nullptr));
        for (const char *d; devices && (d = g_dir_read_name(devices.get()));) {
            std::string portsDir = base + "/" + d + "/ports";
            GDirPtr ports(g_dir_open(portsDir.c_str(), 0, nullptr));
            for (const char *p; ports && (p = g_dir_read_name(ports.get()));) {
                char *text = nullptr;
                if (g_file_get_contents((portsDir + "/" + p + "/state").c_str(), &text, nullptr, nullptr))
                    states[std::string(d) + "/" + p] = text;
                g_free(text);
            }
        }
        return states;
    }

    std::string sysfsRoot_;
    GMainContext *context_;
    ChangeCallback onChange_;
    NlSockPtr route_, rdma_, uevent_;
    std::map<std::string, std::string> ports_;
    std::vector<GSourcePtr> sources_; // destroyed before the sockets they read
    GSourcePtr followUp_;             // the pending kChangeGidTables
};

} // namespace

Result<std::unique_ptr<ChangeWatch>> LinuxPlatform::watchChanges(GMainContext *context, ChangeCallback onChange)
{
    // A tree read from files changes only by hand: nothing announces it.
    if (!options_.useNetlink)
        return Platform::watchChanges(context, std::move(onChange));
    auto w = std::make_unique<LinuxWatch>(options_.sysfsRoot, context, std::move(onChange));
    if (!w->listening())
        return Error(IBNM_ERROR_PLATFORM, _("cannot listen to rtnetlink"), errno);
    return std::unique_ptr<ChangeWatch>(std::move(w));
}

} // namespace ibnm::platform
