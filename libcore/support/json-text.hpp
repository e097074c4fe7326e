// SPDX-License-Identifier: LGPL-2.1-or-later
// What json-glib's generator writes wrong, corrected in one place for every
// JSON text ibnm prints: the CLI's -j output (cli/output.cpp, which opens
// json-glib at run time) and the state documents (`ibnm show-state -j`,
// libcore/state/document.cpp). Header-only: the CLI links no part of
// libibnm's internals for it.
#pragma once

#include <cstring>
#include <string>

namespace ibnm {

// Pretty JSON text's indent, as both writers set it.
inline constexpr unsigned kJsonIndent = 2;

// `generated` (json_generator_to_data()'s text) with every U+001F escaped.
// json-glib escapes U+0001 to U+001E and U+007F but writes U+001F as it is
// (json_strescape() in json-generator.c tests `*p < 0x1f`): not JSON, and a
// raw control character on a terminal (issue 20). A 0x1f byte of the text can
// only be that character inside a string (the layout is printable ASCII;
// UTF-8 multi-byte sequences have no byte below 0x80), so each one becomes
// the escape json-glib should have written.
inline std::string jsonEscapeUnitSeparators(const char *generated)
{
    std::string out;
    const char *p = generated;
    for (const char *us; (us = std::strchr(p, '\x1f')) != nullptr; p = us + 1) {
        out.append(p, static_cast<size_t>(us - p));
        out += "\\u001f";
    }
    out += p;
    return out;
}

} // namespace ibnm
