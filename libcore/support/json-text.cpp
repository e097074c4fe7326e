// SPDX-License-Identifier: LGPL-2.1-or-later
#include "support/json-text.hpp"

#include "support/raii.hpp"

namespace ibnm {

std::string jsonText(JsonNode *root, bool pretty)
{
    CPtr<JsonGenerator, g_object_unref> gen(json_generator_new());
    json_generator_set_pretty(gen.get(), pretty);
    json_generator_set_indent(gen.get(), 2);
    json_generator_set_root(gen.get(), root);
    GCharPtr data(json_generator_to_data(gen.get(), nullptr));
    // json-glib escapes U+0001 to U+001E and U+007F but writes U+001F as it
    // is (json_strescape() in json-generator.c tests `*p < 0x1f`): not JSON,
    // and a raw control character on a terminal (issue 20). A 0x1f byte of
    // the text can only be that character inside a string (the layout is
    // printable ASCII; UTF-8 multi-byte sequences have no byte below 0x80),
    // so each one becomes the escape json-glib should have written.
    std::string out;
    for (const char *p = data.get(); *p; p++) {
        if (*p == '\x1f')
            out += "\\u001f";
        else
            out += *p;
    }
    return out;
}

} // namespace ibnm
