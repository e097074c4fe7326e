// SPDX-License-Identifier: LGPL-2.1-or-later
// The host-wide policy files under /etc that ibnm writes (the memlock limits
// for group rdma, the udev rules naming IPoIB ports): configuration, so they
// belong to settings, not to the kernel platform. What they contain is
// said once, in libcore/profiles/host-files.cpp, and activation writes it
// as a transaction (activation::writeFiles()); this says where, under a
// root directory:
//   - this machine: "/" (the files land in /etc);
//   - a simulated host: "<state dir>/root" (ibnm::simulatedHostFilesRoot(),
//     libcore/ibnm-host-private.hpp), so
//     /etc/udev/rules.d/70-ibnm-persistent-ipoib.rules of `ibnm --simulate
//     HOST udev-rules write` lands in HOST.state/root/etc/udev/rules.d/:
//     tests and the demo never touch the real /etc;
//   - a sysfs tree read from files: none (nothing to read, writes refused).
#pragma once

#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-host.h"
#include "libcore/support/result.hpp"

#include <NetworkManager.h>

#include <optional>
#include <string>
#include <vector>

namespace ibnm::settings {

class HostFiles : public activation::FileStore {
public:
    // Files under `root` ("/": this machine). createDirs: make missing parent
    // directories (a simulated root starts empty); on this machine a missing
    // /etc/udev/rules.d is reported, not created.
    HostFiles(std::string root, bool createDirs);
    // A host whose files cannot be written: reads find none, writes fail
    // with `refusal`.
    static HostFiles readOnly(Error refusal);
    // The files of `host`, as the comment at the top of this file says.
    static Result<HostFiles> forHost(IbnmHost *host);

    // `path` (absolute, as on the host) where it lands under the root.
    std::string locate(const std::string &path) const;
    // The contents of `path`, or none when it does not exist.
    Result<std::optional<std::string>> read(const std::string &path) const override;
    // Replaces `path` atomically (libcore/support/files.hpp) with `mode`.
    Status write(const std::string &path, const std::string &contents, unsigned mode) const override;
    // Removes `path`; an absent file is removed already.
    Status remove(const std::string &path) const override;
    // Why nothing can be written (a sysfs tree), or none.
    const std::optional<Error> &refusal() const override { return refusal_; }

private:
    std::string root_;
    bool createDirs_ = false;
    std::optional<Error> refusal_;
};

// Writes the files `which` names (the memlock policy, the udev rules of
// `profiles`) through `files`, atomically and only where they differ, as steps of a plan: a failure undoes
// the files written before it. The steps run through `platform`'s executor
// (activation::writeFiles()) and do not call it. Where `files` refuses
// writes, a plan with a step fails with the refusal, a dry run too (it says
// what the run would do). The caller holds the host's activation lock
// (ibnm_apply_host_files() takes it, as every activation does).
activation::Report writeHostFiles(platform::Platform &platform, const HostFiles &files, IbnmHostFiles which,
                                  const std::vector<NMConnection *> &profiles, const activation::Options &options);

} // namespace ibnm::settings
