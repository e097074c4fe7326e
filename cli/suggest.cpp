// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "cli/suggest.hpp"

#include <algorithm>

namespace ibnm::cli {

size_t editDistance(std::string_view a, std::string_view b)
{
    // Three rows of the dynamic-programming table: the transposition looks
    // two rows back.
    std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); j++)
        prev[j] = j;
    for (size_t i = 1; i <= a.size(); i++) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string closestWord(std::string_view word, const std::vector<std::string_view> &candidates)
{
    size_t limit = word.size() <= 4 ? 1 : 2;
    size_t best = limit + 1;
    std::string_view found;
    bool tie = false;
    for (std::string_view c : candidates) {
        size_t d = editDistance(word, c);
        if (d < best) {
            best = d;
            found = c;
            tie = false;
        } else if (d == best && c != found) {
            tie = true;
        }
    }
    if (best > limit || tie || best == 0)
        return {};
    return std::string(found);
}

} // namespace ibnm::cli
