// SPDX-License-Identifier: LGPL-2.1-or-later
// IBNM_DEFINE_TYPE: a GObject type whose private data is a C++ object.
//
// GObject zero-fills instances; C++ members put straight into the instance
// struct would never be constructed. Following WebKitGTK's WTFGType.h, the
// type's private struct `TypeName##Private` is constructed with placement new
// in instance init and destroyed explicitly in finalize, so its members'
// constructors and destructors run exactly once. Teardown belongs in the
// private struct's destructor; the type's own class_init must not replace
// finalize (use dispose to drop references to other GObjects early).
//
//   struct _IbnmThing { GObject parent_instance; };
//   struct IbnmThingPrivate { std::string name; };
//   IBNM_DEFINE_TYPE(IbnmThing, ibnm_thing, G_TYPE_OBJECT)
//   static void ibnm_thing_class_init_impl(IbnmThingClass *klass) { ... }
// IBNM_DEFINE_TYPE_FULL(..., FLAGS, G_IMPLEMENT_INTERFACE(...)) adds interfaces.
//   ... ibnm_thing_priv(self)->name ...
#pragma once

#include <glib-object.h>

#include <new>
#include <type_traits>

namespace ibnm::detail {
template <typename Private>
void constructPrivate(void *where) noexcept
{
    new (where) Private();
}
} // namespace ibnm::detail

#define IBNM_DEFINE_TYPE_FULL(TypeName, type_name, PARENT_TYPE, FLAGS, ...)                           \
    static void type_name##_class_init_impl(TypeName##Class *klass);                                   \
    static void type_name##_init(TypeName *self);                                                      \
    static void type_name##_class_init(TypeName##Class *klass);                                        \
    /* G_DEFINE_TYPE_EXTENDED spelled out, so that the type's own code (the  \
     * interfaces it implements: G_IMPLEMENT_INTERFACE) may hold commas. */  \
    _G_DEFINE_TYPE_EXTENDED_BEGIN(TypeName, type_name, PARENT_TYPE, FLAGS)                            \
    {                                                                                                  \
        G_ADD_PRIVATE(TypeName);                                                                       \
        __VA_ARGS__;                                                                                   \
    }                                                                                                  \
    _G_DEFINE_TYPE_EXTENDED_END()                                                                      \
    [[maybe_unused]] static inline TypeName##Private *type_name##_priv(gpointer self)                 \
    {                                                                                                  \
        return static_cast<TypeName##Private *>(                                                       \
            type_name##_get_instance_private(static_cast<TypeName *>(self)));                          \
    }                                                                                                  \
    static void type_name##_finalize(GObject *object)                                                  \
    {                                                                                                  \
        type_name##_priv(object)->~TypeName##Private();                                                \
        G_OBJECT_CLASS(type_name##_parent_class)->finalize(object);                                    \
    }                                                                                                  \
    static void type_name##_init(TypeName *self)                                                       \
    {                                                                                                  \
        static_assert(std::is_nothrow_destructible_v<TypeName##Private>);                              \
        /* Instance init cannot fail: an exception here (only bad_alloc from                         \
         * member initialisers) ends the process, as g_malloc does on OOM. */                          \
        ibnm::detail::constructPrivate<TypeName##Private>(type_name##_get_instance_private(self));    \
    }                                                                                                  \
    static void type_name##_class_init(TypeName##Class *klass)                                         \
    {                                                                                                  \
        G_OBJECT_CLASS(klass)->finalize = type_name##_finalize;                                        \
        type_name##_class_init_impl(klass);                                                            \
        g_assert(G_OBJECT_CLASS(klass)->finalize == type_name##_finalize);                             \
    }

#define IBNM_DEFINE_TYPE(TypeName, type_name, PARENT_TYPE)                                             \
    IBNM_DEFINE_TYPE_FULL(TypeName, type_name, PARENT_TYPE, (GTypeFlags)0, )

#define IBNM_DEFINE_FINAL_TYPE(TypeName, type_name, PARENT_TYPE)                                       \
    IBNM_DEFINE_TYPE_FULL(TypeName, type_name, PARENT_TYPE, G_TYPE_FLAG_FINAL, )
