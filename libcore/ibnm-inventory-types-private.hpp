// SPDX-License-Identifier: LGPL-2.1-or-later
// What the files of the inventory's read-only objects share (ibnm-gid.cpp,
// ibnm-rdma-port.cpp, ibnm-rdma-device.cpp, ibnm-ipoib-interface.cpp,
// ibnm-soft-link.cpp; the table also ibnm-rdma-test-result.cpp): their constructors from the host model, and the table
// that declares their read-only properties.
#pragma once

#include "libcore/ibnm-inventory-types.h"
#include "libcore/model/bond.hpp"
#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ibnm {

// What the objects of one host share, worked out once for the host (not
// once per device or port, which made an inventory of D devices and N
// netdevs cost D x N): its RoCE LAGs and the netdevs of each RDMA port.
struct HostIndex {
    explicit HostIndex(const model::Host &host);
    const model::Host &host;
    std::vector<model::RoceLag> lags;
    // (device, port) -> the netdevs on that port, in host.netdevs order.
    std::map<std::pair<std::string, unsigned>, std::vector<std::string>> portNetdevs;
};

IbnmGid *gidNew(const model::Gid &gid);
// One port of the device; it lists the netdevs on it.
IbnmRdmaPort *rdmaPortNew(const model::Device &device, const model::Port &port, const HostIndex &index);
// The device with its ports; each port lists the netdevs on it.
IbnmRdmaDevice *rdmaDeviceNew(const model::Device &device, const HostIndex &index);
IbnmIpoibInterface *ipoibInterfaceNew(const model::IpoibNetdev &ipoib, const model::Host &host);
IbnmSoftLink *softLinkNew(const model::SoftLink &link);

} // namespace ibnm

namespace ibnm::inventory {

// One row per read-only property: its name and the getter that gives its
// value (exactly one getter set). Property ids are row index + 1.
template <typename T>
struct Prop {
    const char *name;
    const char *(*str)(T *);
    guint (*uns)(T *);
    gint (*sig)(T *);
    gint64 (*i64)(T *);
    gboolean (*boo)(T *);
    gint (*enm)(T *);
    GType (*etype)(void);
    gdouble (*dbl)(T *);
};

template <typename T>
constexpr Prop<T> strProp(const char *n, const char *(*f)(T *))
{
    return {n, f, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> uintProp(const char *n, guint (*f)(T *))
{
    return {n, nullptr, f, nullptr, nullptr, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> intProp(const char *n, gint (*f)(T *))
{
    return {n, nullptr, nullptr, f, nullptr, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> int64Prop(const char *n, gint64 (*f)(T *))
{
    return {n, nullptr, nullptr, nullptr, f, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> boolProp(const char *n, gboolean (*f)(T *))
{
    return {n, nullptr, nullptr, nullptr, nullptr, f, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> enumProp(const char *n, gint (*f)(T *), GType (*type)(void))
{
    return {n, nullptr, nullptr, nullptr, nullptr, nullptr, f, type};
}

template <typename T>
constexpr Prop<T> doubleProp(const char *n, gdouble (*f)(T *))
{
    return {n, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, f};
}

template <typename T, size_t N>
void installProps(GObjectClass *klass, const Prop<T> (&table)[N])
{
    auto flags = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    for (size_t i = 0; i < N; i++) {
        const auto &p = table[i];
        GParamSpec *spec;
        if (p.str)
            spec = g_param_spec_string(p.name, nullptr, nullptr, nullptr, flags);
        else if (p.uns)
            spec = g_param_spec_uint(p.name, nullptr, nullptr, 0, G_MAXUINT, 0, flags);
        else if (p.sig)
            spec = g_param_spec_int(p.name, nullptr, nullptr, -1, G_MAXINT, -1, flags);
        else if (p.i64)
            spec = g_param_spec_int64(p.name, nullptr, nullptr, -1, G_MAXINT64, -1, flags);
        else if (p.enm)
            spec = g_param_spec_enum(p.name, nullptr, nullptr, p.etype(), 0, flags);
        else if (p.dbl)
            spec = g_param_spec_double(p.name, nullptr, nullptr, -1.0, G_MAXDOUBLE, -1.0, flags);
        else
            spec = g_param_spec_boolean(p.name, nullptr, nullptr, FALSE, flags);
        g_object_class_install_property(klass, static_cast<guint>(i + 1), spec);
    }
}

template <typename T, size_t N>
void getProp(const Prop<T> (&table)[N], GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    if (id == 0 || id > N) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    const auto &p = table[id - 1];
    T *self = reinterpret_cast<T *>(object);
    if (p.str)
        g_value_set_string(value, p.str(self));
    else if (p.uns)
        g_value_set_uint(value, p.uns(self));
    else if (p.sig)
        g_value_set_int(value, p.sig(self));
    else if (p.i64)
        g_value_set_int64(value, p.i64(self));
    else if (p.enm)
        g_value_set_enum(value, p.enm(self));
    else if (p.dbl)
        g_value_set_double(value, p.dbl(self));
    else
        g_value_set_boolean(value, p.boo(self));
}

inline const char *nullIfEmpty(const std::string &s)
{
    return s.empty() ? nullptr : s.c_str();
}

inline ibnm::GPtrArrayPtr newObjectArray()
{
    return ibnm::GPtrArrayPtr(g_ptr_array_new_with_free_func(g_object_unref));
}

} // namespace ibnm::inventory
