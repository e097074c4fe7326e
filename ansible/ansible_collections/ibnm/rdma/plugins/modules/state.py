#!/usr/bin/python
# SPDX-License-Identifier: LGPL-2.1-or-later
"""ibnm.rdma.state: apply a desired state with `ibnm -j apply`."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: state
short_description: Apply an InfiniBand/IPoIB/RDMA desired state with ibnm
version_added: "0.1.0"
description:
  - Runs C(ibnm -j apply -) with the desired state on standard input, as one
    transaction on the host. In check mode runs C(ibnm --dry-run).
  - C(changed) comes from ibnm's report; the diff lists the keyfile lines
    that change.
options:
  state:
    description: The desired state, nmstate's schema (an C(interfaces) list).
    type: dict
    required: true
  executable:
    description: The ibnm program.
    type: str
    default: ibnm
  keyfile_dir:
    description: The keyfile store (C(--keyfile-dir)); default ibnm's choice.
    type: path
  simulate:
    description: A simulated host file (C(--simulate)), for tests and demos.
    type: path
  simulate_state:
    description: The simulated host's state directory (IBNM_SIMULATE_STATE).
    type: path
requirements:
  - ibnm on the managed host (the package of the same name), which this
    module runs.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: C(ibnm --dry-run apply) plans the change and makes none.
  diff_mode:
    support: full
    details: The keyfile lines of each profile that change.
  platform:
    platforms: posix
author:
  - ibnm developers
"""

EXAMPLES = r"""
- name: An IPoIB partition
  ibnm.rdma.state:
    state:
      interfaces:
        - name: mlx5_ib0.80ff
          type: infiniband
          infiniband: {base-iface: mlx5_ib0, pkey: '0x80ff', mode: datagram}
"""

RETURN = r"""
changes:
  description: One entry per interface (interface, action, state, profile, diff).
  returned: always
  type: list
steps:
  description: The host operations ibnm did (or, in check mode, planned).
  returned: always
  type: list
notes:
  description: ibnm's notes, such as the effective MTU.
  returned: always
  type: list
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule


def diff_of(changes):
    """Ansible's diff: per changed profile, the keyfile lines before and after."""
    out = []
    for c in changes:
        if c.get("action") == "none":
            continue
        before = [line[1:] for line in c.get("diff", []) if line.startswith("-")]
        after = [line[1:] for line in c.get("diff", []) if line.startswith("+")]
        out.append({
            "before_header": "%s (%s)" % (c.get("interface"), c.get("profile") or ""),
            "after_header": "%s (%s, %s)" % (c.get("interface"), c.get("action"), c.get("state")),
            "before": "\n".join(before) + ("\n" if before else ""),
            "after": "\n".join(after) + ("\n" if after else ""),
        })
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="dict", required=True),
            executable=dict(type="str", default="ibnm"),
            keyfile_dir=dict(type="path"),
            simulate=dict(type="path"),
            simulate_state=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    argv = [p["executable"]]
    if p["keyfile_dir"]:
        argv += ["--keyfile-dir", p["keyfile_dir"]]
    if p["simulate"]:
        argv += ["--simulate", p["simulate"]]
    if module.check_mode:
        argv.append("--dry-run")
    argv += ["-j", "apply", "-"]
    env = {"LC_ALL": "C"}
    if p["simulate_state"]:
        env["IBNM_SIMULATE_STATE"] = p["simulate_state"]
    module.run_command_environ_update = env
    rc, out, err = module.run_command(argv, data=json.dumps(p["state"]), binary_data=True)
    try:
        report = json.loads(out)
    except ValueError:
        module.fail_json(msg=(err or out or "ibnm printed nothing").strip().replace("Error: ", "", 1),
                         rc=rc, cmd=argv)
    result = dict(
        changed=bool(report.get("changed")),
        changes=report.get("changes", []),
        steps=report.get("steps", []),
        notes=report.get("notes", []),
        rc=rc,
    )
    if module._diff:
        result["diff"] = diff_of(result["changes"])
    if rc != 0 or not report.get("success"):
        result["changed"] = False
        module.fail_json(msg=report.get("error") or err.strip() or "ibnm apply failed",
                         rolled_back=report.get("rolled-back", False), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
