// SPDX-License-Identifier: LGPL-2.1-or-later
// "Did you mean": the word of a command table closest to a mistyped one, by
// Damerau-Levenshtein distance (optimal string alignment: insertions,
// deletions, substitutions and transpositions of neighbours each cost one).
// GLib has no such helper.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ibnm::cli {

// The edit distance between `a` and `b` (bytes), with transpositions.
size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a typo (at
// most one edit for words of up to four characters, two for longer ones)
// and no other candidate is as close; "" otherwise.
std::string closestWord(std::string_view word, const std::vector<std::string_view> &candidates);

} // namespace ibnm::cli
