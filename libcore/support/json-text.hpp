// SPDX-License-Identifier: LGPL-2.1-or-later
// JSON text from a json-glib tree: the one place that sets the generator up
// and corrects what json-glib writes wrong, for every -j output (the CLI's
// JsonDoc) and the state documents (`ibnm show-state -j`).
#pragma once

#include <json-glib/json-glib.h>

#include <string>

namespace ibnm {

// The text of `root` as json-glib writes it (`pretty`: one member per line,
// two-space indent), without a trailing newline, every U+001F escaped.
std::string jsonText(JsonNode *root, bool pretty);

} // namespace ibnm
