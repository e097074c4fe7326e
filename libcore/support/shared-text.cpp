// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/shared-text.hpp"

#include <glib.h>

#include <cstring>

namespace ibnm {

namespace {

// Each text is one block: its count, then the text and its NUL. The table
// holds the texts (GHashTable as a set, keyed by the text itself), each
// while its count is above zero; every change of a count happens under the
// lock, so a text is never found in the table once its last holder let go.
struct Header {
    size_t refs;
};

GMutex lock; // static storage: zero-initialised, no g_mutex_init() needed
GHashTable *table = nullptr; // created at the first text, never freed

Header *headerOf(char *s)
{
    return reinterpret_cast<Header *>(s) - 1;
}

} // namespace

char *SharedText::intern(const char *text)
{
    g_mutex_lock(&lock);
    if (table == nullptr)
        table = g_hash_table_new(g_str_hash, g_str_equal);
    auto *s = static_cast<char *>(g_hash_table_lookup(table, text));
    if (s != nullptr) {
        headerOf(s)->refs++;
    } else {
        size_t n = std::strlen(text);
        // g_malloc(): out of memory ends the process, as GLib's own
        // strings do (this runs inside GObject property setters too).
        auto *h = static_cast<Header *>(g_malloc(sizeof(Header) + n + 1));
        h->refs = 1;
        s = reinterpret_cast<char *>(h + 1);
        std::memcpy(s, text, n + 1);
        g_hash_table_add(table, s);
    }
    g_mutex_unlock(&lock);
    return s;
}

void SharedText::acquire(char *s)
{
    g_mutex_lock(&lock);
    headerOf(s)->refs++;
    g_mutex_unlock(&lock);
}

void SharedText::release(char *s)
{
    g_mutex_lock(&lock);
    if (--headerOf(s)->refs == 0) {
        g_hash_table_remove(table, s);
        g_free(headerOf(s));
    }
    g_mutex_unlock(&lock);
}

} // namespace ibnm
