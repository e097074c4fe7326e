// SPDX-License-Identifier: LGPL-2.1-or-later
// SharedText: an immutable text held once for all its holders (interned,
// reference-counted). For a text that many values repeat, such as the hint
// of thousands of findings.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace ibnm {

class SharedText {
public:
    SharedText() = default;
    explicit SharedText(const char *text) : s_(text && *text ? intern(text) : nullptr) {}
    explicit SharedText(const std::string &text) : SharedText(text.c_str()) {}
    SharedText(const SharedText &o) : s_(o.s_)
    {
        if (s_)
            acquire(s_);
    }
    SharedText(SharedText &&o) noexcept : s_(o.s_) { o.s_ = nullptr; }
    SharedText &operator=(SharedText o) noexcept
    {
        std::swap(s_, o.s_);
        return *this;
    }
    ~SharedText()
    {
        if (s_)
            release(s_);
    }

    bool empty() const { return s_ == nullptr; }
    // "" when empty.
    const char *c_str() const { return s_ ? s_ : ""; }
    std::string str() const { return c_str(); }
    std::string_view view() const { return c_str(); }

    friend bool operator==(const SharedText &a, const SharedText &b)
    {
        // Interned: one copy of each text while any holder has it.
        return a.s_ == b.s_;
    }
    friend bool operator!=(const SharedText &a, const SharedText &b) { return !(a == b); }
    friend bool operator==(const SharedText &a, std::string_view b) { return a.view() == b; }
    friend bool operator==(std::string_view a, const SharedText &b) { return a == b.view(); }
    friend bool operator!=(const SharedText &a, std::string_view b) { return !(a == b); }
    friend bool operator!=(std::string_view a, const SharedText &b) { return !(a == b); }
    friend std::ostream &operator<<(std::ostream &os, const SharedText &t) { return os << t.view(); }

private:
    // shared-text.cpp: one table for the process, under one lock. Not
    // GLib's g_ref_string_new_intern(): before GLib 2.84 its last release
    // drops the count outside the table's lock, and another thread can
    // take the dying string from the table in between.
    static char *intern(const char *text);
    static void acquire(char *s);
    static void release(char *s);

    char *s_ = nullptr;
};

} // namespace ibnm
