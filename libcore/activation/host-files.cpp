// SPDX-License-Identifier: LGPL-2.1-or-later
// The host policy files written as a transaction (writeFiles(), engine.hpp):
// what they hold is libcore/profiles/host-files.cpp's, where they live
// settings/host-files.cpp's.
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm::activation {

Report writeFiles(platform::Platform &platform, const FileStore &store, const std::vector<FileContents> &files,
                  const Options &options)
{
    using detail::Planner;
    using detail::Step;
    Report report;
    model::Host none;
    Planner planner(none, report);
    for (const FileContents &f : files) {
        auto cur = store.read(f.path);
        if (!cur.ok())
            return detail::planningFailed(std::move(report), std::move(cur).error());
        if (*cur && **cur == f.contents)
            continue;
        std::optional<std::string> old = *cur;
        std::string path = f.path;
        // The steps change files, not the kernel: they ignore the platform.
        planner.add(IBNM_STEP_ACTION_WRITE_FILE, path, strprintf(_("write %s"), path.c_str()), "",
                    [&store, path, c = f.contents](platform::Platform &) { return store.write(path, c, 0644); },
                    [&store, path, old](platform::Platform &) {
                        return old ? store.write(path, *old, 0644) : store.remove(path);
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!steps.empty() && store.refusal())
        return detail::planningFailed(std::move(report), *store.refusal());
    if (!options.dryRun && !steps.empty())
        detail::execute(platform, steps, report);
    detail::finish(steps, report);
    return report;
}

} // namespace ibnm::activation
