// SPDX-License-Identifier: LGPL-2.1-or-later
// Owning handles for every C resource libibnm touches: GLib, GObject, libnl,
// libibverbs, librdmacm, libkmod and file descriptors. Each releases its resource exactly once.
//
//   GCharPtr s(g_strdup("x"));          // unique_ptr with the right deleter
//   GErrorPtr err;  foo(outPtr(err));   // a GError** out-parameter
//   auto obj = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
//   auto ref = GObjectPtr<GObject>::retain(borrowed);   // takes a new ref
//   UniqueFd fd(open(...));
#pragma once

#include <glib-object.h>
#include <glib.h>

#include <infiniband/verbs.h>
#include <libkmod.h>
#include <rdma/rdma_cma.h>
#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/addr.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <netlink/socket.h>

#include <memory>
#include <type_traits>
#include <utility>

#include <unistd.h>

namespace ibnm {

// A stateless deleter calling a C free function. Template on the function so
// the unique_ptr stays the size of a pointer.
template <auto Fn>
struct FnDeleter {
    template <typename T>
    void operator()(T *p) const noexcept
    {
        Fn(p);
    }
};

template <typename T, auto Fn>
using CPtr = std::unique_ptr<T, FnDeleter<Fn>>;

namespace detail {
inline void closeIbvDevice(ibv_context *ctx) noexcept { (void)ibv_close_device(ctx); }
inline void freeStrv(char **v) noexcept { g_strfreev(v); }
inline void freeGString(GString *s) noexcept { g_string_free(s, TRUE); }
inline void deallocPd(ibv_pd *pd) noexcept { (void)ibv_dealloc_pd(pd); }
inline void deregMr(ibv_mr *mr) noexcept { (void)ibv_dereg_mr(mr); }
inline void destroyCq(ibv_cq *cq) noexcept { (void)ibv_destroy_cq(cq); }
inline void destroyCompChannel(ibv_comp_channel *c) noexcept { (void)ibv_destroy_comp_channel(c); }
inline void destroyQp(ibv_qp *qp) noexcept { (void)ibv_destroy_qp(qp); }
inline void destroyCmId(rdma_cm_id *id) noexcept { (void)rdma_destroy_id(id); }
// A source attached to a context: taken off it, then released.
inline void destroySource(GSource *s) noexcept
{
    g_source_destroy(s);
    g_source_unref(s);
}
} // namespace detail

// GLib
using GCharPtr = CPtr<char, g_free>;
using GStrvPtr = CPtr<char *, detail::freeStrv>;
using GErrorPtr = CPtr<GError, g_error_free>;
using GBytesPtr = CPtr<GBytes, g_bytes_unref>;
using GHashTablePtr = CPtr<GHashTable, g_hash_table_unref>;
using GPtrArrayPtr = CPtr<GPtrArray, g_ptr_array_unref>;
using GKeyFilePtr = CPtr<GKeyFile, g_key_file_unref>;
using GMappedFilePtr = CPtr<GMappedFile, g_mapped_file_unref>;
using GVariantPtr = CPtr<GVariant, g_variant_unref>;
using GDirPtr = CPtr<GDir, g_dir_close>;
using GMainLoopPtr = CPtr<GMainLoop, g_main_loop_unref>;
using GMainContextPtr = CPtr<GMainContext, g_main_context_unref>;
using GStringPtr = CPtr<GString, detail::freeGString>;
using GSourcePtr = CPtr<GSource, detail::destroySource>;

// libnl
using NlSockPtr = CPtr<nl_sock, nl_socket_free>;
using NlMsgPtr = CPtr<nl_msg, nlmsg_free>;
using NlCachePtr = CPtr<nl_cache, nl_cache_free>;
using RtnlLinkPtr = CPtr<rtnl_link, rtnl_link_put>;
using RtnlAddrPtr = CPtr<rtnl_addr, rtnl_addr_put>;
using NlAddrPtr = CPtr<nl_addr, nl_addr_put>;
using RtnlRoutePtr = CPtr<rtnl_route, rtnl_route_put>;

// libibverbs
using IbvDeviceListPtr = CPtr<ibv_device *, ibv_free_device_list>;
using IbvContextPtr = CPtr<ibv_context, detail::closeIbvDevice>;
using IbvPdPtr = CPtr<ibv_pd, detail::deallocPd>;
using IbvMrPtr = CPtr<ibv_mr, detail::deregMr>;
using IbvCompChannelPtr = CPtr<ibv_comp_channel, detail::destroyCompChannel>;
// Acknowledge its events (ibv_ack_cq_events()) before it goes.
using IbvCqPtr = CPtr<ibv_cq, detail::destroyCq>;
// A QP made with ibv_create_qp() (not rdma_create_qp(): it is destroyed
// with ibv_destroy_qp(), and the rdma_cm_id it serves does not own it).
using IbvQpPtr = CPtr<ibv_qp, detail::destroyQp>;

// librdmacm. Destroy in this order: the QP, MRs, CQ and PD of an id, then
// the id (rdma_destroy_id() waits for its events to be acknowledged), then
// its event channel: declare them in the reverse order.
using RdmaEventChannelPtr = CPtr<rdma_event_channel, rdma_destroy_event_channel>;
using RdmaCmIdPtr = CPtr<rdma_cm_id, detail::destroyCmId>;
using RdmaCmEventPtr = CPtr<rdma_cm_event, rdma_ack_cm_event>;
using RdmaAddrinfoPtr = CPtr<rdma_addrinfo, rdma_freeaddrinfo>;

// libkmod
using KmodCtxPtr = CPtr<kmod_ctx, kmod_unref>;
using KmodModulePtr = CPtr<kmod_module, kmod_module_unref>;

// Adapts a unique_ptr to a C out-parameter (T**): the pointer the callee
// stores is adopted when the full expression ends.
//   GErrorPtr err; if (!g_file_get_contents(p, &buf, &len, outPtr(err))) ...
template <typename Ptr>
class OutPtr {
public:
    using Pointer = typename Ptr::pointer;
    explicit OutPtr(Ptr &owner) noexcept : owner_(owner) {}
    OutPtr(const OutPtr &) = delete;
    OutPtr &operator=(const OutPtr &) = delete;
    ~OutPtr() { owner_.reset(raw_); }
    operator Pointer *() noexcept { return &raw_; }

private:
    Ptr &owner_;
    Pointer raw_ = nullptr;
};

template <typename Ptr>
OutPtr<Ptr> outPtr(Ptr &owner) noexcept
{
    return OutPtr<Ptr>(owner);
}

// A strong reference to a GObject (or any type g_object_ref accepts). No
// constructor takes a raw pointer: say whether the reference is handed over
// (adopt) or a new one is taken (retain).
template <typename T>
class GObjectPtr {
public:
    GObjectPtr() noexcept = default;
    GObjectPtr(std::nullptr_t) noexcept {}

    static GObjectPtr adopt(T *p) noexcept
    {
        GObjectPtr r;
        r.p_ = p;
        return r;
    }
    static GObjectPtr retain(T *p) noexcept
    {
        GObjectPtr r;
        r.p_ = p ? static_cast<T *>(g_object_ref(p)) : nullptr;
        return r;
    }

    GObjectPtr(const GObjectPtr &o) noexcept : p_(o.p_ ? static_cast<T *>(g_object_ref(o.p_)) : nullptr) {}
    GObjectPtr(GObjectPtr &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    GObjectPtr &operator=(GObjectPtr o) noexcept
    {
        std::swap(p_, o.p_);
        return *this;
    }
    ~GObjectPtr() { reset(); }

    T *get() const noexcept { return p_; }
    T *operator->() const noexcept { return p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }

    // Gives the reference to the caller (for returning "transfer full").
    [[nodiscard]] T *release() noexcept { return std::exchange(p_, nullptr); }
    void reset() noexcept
    {
        if (T *p = std::exchange(p_, nullptr))
            g_object_unref(p);
    }

    friend bool operator==(const GObjectPtr &a, const GObjectPtr &b) { return a.p_ == b.p_; }
    friend bool operator!=(const GObjectPtr &a, const GObjectPtr &b) { return a.p_ != b.p_; }

private:
    T *p_ = nullptr;
};

// An owned file descriptor, in the shape of libcamera's UniqueFD.
class UniqueFd {
public:
    UniqueFd() noexcept = default;
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    UniqueFd(UniqueFd &&o) noexcept : fd_(o.release()) {}
    UniqueFd &operator=(UniqueFd &&o) noexcept
    {
        reset(o.release());
        return *this;
    }
    ~UniqueFd() { reset(); }

    int get() const noexcept { return fd_; }
    bool isValid() const noexcept { return fd_ >= 0; }
    explicit operator bool() const noexcept { return isValid(); }
    [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept
    {
        int old = std::exchange(fd_, fd);
        if (old >= 0 && old != fd)
            ::close(old);
    }

private:
    int fd_ = -1;
};

} // namespace ibnm
