#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""libibnm from Python (PyGObject, GObject introspection): every public type
can be created from a binding without crashing, and a simulated host can be
listed, checked and changed through the Ibnm-0.1 and IbnmSimulator-0.1
typelibs built by make. Run by make check (tests/bindings/run.sh)."""
import os
import sys
import tempfile
import unittest

try:
    import gi
    gi.require_version("Ibnm", "0.1")
    gi.require_version("IbnmSimulator", "0.1")
    gi.require_version("NM", "1.0")
    from gi.repository import Gio, GLib, GObject, Ibnm, IbnmSimulator, NM
except (ImportError, ValueError) as e:
    print("SKIP: PyGObject or a typelib is missing (%s): install python3-gi and gir1.2-nm-1.0" % e)
    sys.exit(77)

SRCDIR = os.environ["top_srcdir"]
HOST = os.path.join(SRCDIR, "examples", "hosts", "mlx4-dual-port.host")


class Construction(unittest.TestCase):
    def test_every_type_from_g_object_new(self):
        # What a binding does for Ibnm.X(): g_object_new() without arguments.
        # Each type must give an object whose getters work.
        for name in ["Host", "Settings", "Inventory", "Profile", "Finding", "Step", "ApplyReport",
                     "Gid", "RdmaPort", "RdmaDevice", "IpoibInterface", "SoftLink", "StateChange",
                     "RdmaTest", "RdmaTestResult", "RdmaPath"]:
            obj = getattr(Ibnm, name)()
            for attr in dir(obj):
                if not attr.startswith("get_") or attr in ("get_property", "get_properties", "get_data",
                                                           "get_qdata"):
                    continue
                fn = getattr(obj, attr)
                try:
                    fn()
                except TypeError:
                    pass  # needs arguments

    def test_default_host_is_this_machine_and_settings_the_keyfile_store(self):
        self.assertEqual(Ibnm.Host().get_kind(), Ibnm.HostKind.SYSTEM)
        with tempfile.TemporaryDirectory() as d:
            s = Ibnm.Settings(keyfile_dir=d)
            self.assertEqual(s.get_backend_name(), "keyfile")
            self.assertTrue(s.load())
            self.assertEqual(len(s.get_connections()), 0)

    def test_stored_profiles_are_listed_many_times(self):
        # The array's free function owns the elements: a binding that also
        # unreffed them (transfer full) freed each profile twice.
        with tempfile.TemporaryDirectory() as d:
            s = Ibnm.Settings(keyfile_dir=d)
            self.assertTrue(s.load())
            for name in ("ib0", "ib1"):
                p = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", name, "ifname", name])
                ok, path = s.add(p.get_connection())
                self.assertTrue(ok)
                self.assertTrue(path.startswith(d))
            for _ in range(50):
                ids = sorted(c.get_id() for c in s.get_connections())
            self.assertEqual(ids, ["ib0", "ib1"])
            self.assertEqual(s.find("ib1").get_interface_name(), "ib1")

    def test_a_sysfs_root_that_is_none_fails_to_initialize(self):
        with self.assertRaises(GLib.Error) as cm:
            Ibnm.Host.new_sysfs_dump("/nonexistent-ibnm-root")
        self.assertEqual(cm.exception.domain, "ibnm-error-quark")
        self.assertEqual(cm.exception.code, int(Ibnm.Error.NOT_FOUND))
        host = Ibnm.Host(sysfs_root="/nonexistent-ibnm-root")
        with self.assertRaises(GLib.Error):
            host.init(None)


class SimulatedHost(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.host = IbnmSimulator.new_host(HOST, os.path.join(self.tmp.name, "state"))
        self.inv = Ibnm.Inventory.new(self.host)
        self.assertTrue(self.inv.reload())

    def tearDown(self):
        self.tmp.cleanup()

    def test_lists_devices_and_ports(self):
        self.assertIn("mlx4_0", self.inv.get_device_names())
        dev = self.inv.find_device("mlx4_0")
        port = dev.get_port(1)
        self.assertEqual(port.get_state(), Ibnm.PortState.ACTIVE)
        self.assertEqual(port.get_number(), 1)

    def test_profile_is_an_nm_connection_checked_and_applied(self):
        profile = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0",
                                              "transport-mode", "Connected", "mtu", "65520",
                                              "ipv4.method", "disabled"])
        conn = profile.get_connection()
        self.assertIsInstance(conn, NM.Connection)
        self.assertEqual(conn.get_setting_infiniband().get_mtu(), 65520)
        findings = Ibnm.check_profiles([conn], self.inv, Ibnm.CheckFlags.NONE)
        errors = [f for f in findings if f.get_severity() == Ibnm.Severity.ERROR]
        self.assertEqual(errors, [], [f.get_message() for f in errors])

        report = Ibnm.apply_up(self.host, [conn], None, Ibnm.ApplyFlags.NONE)
        self.assertTrue(report.propagate_error())
        self.assertTrue(report.get_success())
        self.assertGreater(report.get_operations(), 0)
        self.assertTrue(self.inv.reload())
        ib = self.inv.find_ipoib_interface("mlx4_ib0")
        self.assertEqual(ib.get_transport_mode(), "connected")
        self.assertEqual(ib.get_mtu(), 65520)
        # The same again changes nothing.
        again = Ibnm.apply_up(self.host, [conn], None, Ibnm.ApplyFlags.NONE)
        self.assertTrue(again.get_success())
        self.assertEqual(again.get_operations(), 0)

    def test_errors_keep_their_code_and_name_the_property(self):
        with self.assertRaises(GLib.Error) as cm:
            Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "x", "parent", "mlx4_ib0",
                                        "p-key", "0x8000"])
        self.assertEqual(cm.exception.domain, "ibnm-error-quark")
        self.assertIn("infiniband.p-key", cm.exception.message)

    def test_a_failed_apply_returns_its_report_and_leaves_the_host_as_before(self):
        # Issue 33 item 5: a binding reads what a failed apply did (which
        # steps ran, what was undone, why), then raises its error if it wants.
        before = sorted(i.get_name() for i in self.inv.get_ipoib_interfaces())
        self.assertTrue(IbnmSimulator.add_faults(self.host, "op=setMtu,nth=1,errno=EBUSY"))
        child = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "c", "parent", "mlx4_ib0",
                                            "p-key", "0x8002", "mtu", "2044", "ipv4.method", "disabled"])
        report = Ibnm.apply_up(self.host, [child.get_connection()], None, Ibnm.ApplyFlags.NONE)
        self.assertIsInstance(report, Ibnm.ApplyReport)
        self.assertTrue(report.get_started())
        self.assertFalse(report.get_success())
        self.assertTrue(report.get_rolled_back())
        self.assertEqual(report.get_not_restored(), [])
        steps = [(s.get_action(), s.get_object(), s.get_state()) for s in report.get_steps()]
        self.assertIn((Ibnm.StepAction.CREATE_IPOIB_CHILD, "mlx4_ib0.8002", Ibnm.StepState.UNDONE), steps)
        failed = [s for s in report.get_steps() if s.get_state() == Ibnm.StepState.FAILED]
        self.assertEqual(len(failed), 1, steps)
        self.assertEqual(failed[0].get_action(), Ibnm.StepAction.SET_MTU)
        self.assertEqual(Ibnm.step_action_to_string(failed[0].get_action()), "set-mtu")
        self.assertTrue(failed[0].get_error())
        self.assertEqual(failed[0].props.action, Ibnm.StepAction.SET_MTU)
        self.assertIn(failed[0].get_error(), report.get_error())
        with self.assertRaises(GLib.Error) as cm:
            report.propagate_error()
        self.assertEqual(cm.exception.domain, "ibnm-error-quark")
        self.assertEqual(cm.exception.code, int(Ibnm.Error.PLATFORM))
        self.assertEqual(cm.exception.message, report.get_error())
        self.assertTrue(self.inv.reload())
        self.assertEqual(sorted(i.get_name() for i in self.inv.get_ipoib_interfaces()), before)

    def test_a_failed_state_apply_returns_its_report_changes_and_progress(self):
        # Issue 33 item 5: ibnm_state_apply() returns the report of the whole
        # apply also when it fails (before, a GError dropped it and the
        # changes); the progress callback is called during the call.
        with tempfile.TemporaryDirectory() as d:
            settings = Ibnm.Settings(keyfile_dir=d)
            self.assertTrue(settings.load())
            doc = ("interfaces:\n"
                   "  - name: mlx4_ib0.8002\n"
                   "    type: infiniband\n"
                   "    mtu: 2044\n"
                   "    infiniband: {base-iface: mlx4_ib0, pkey: '0x8002', mode: datagram}\n"
                   "    ipv4: {enabled: false}\n")
            self.assertTrue(IbnmSimulator.add_faults(self.host, "op=setMtu,nth=1,errno=EBUSY"))
            heard = []
            report, changes = Ibnm.state_apply(settings, self.host, doc, -1, "state.yml", Ibnm.ApplyFlags.NONE,
                                               lambda phase, done, total, data: heard.append((done, total, data)),
                                               "data")
            self.assertIsInstance(report, Ibnm.ApplyReport)
            self.assertTrue(report.get_started())
            self.assertFalse(report.get_success())
            self.assertTrue(report.get_rolled_back())
            steps = [(s.get_action(), s.get_object(), s.get_state()) for s in report.get_steps()]
            self.assertIn((Ibnm.StepAction.CREATE_IPOIB_CHILD, "mlx4_ib0.8002", Ibnm.StepState.UNDONE), steps)
            self.assertIn((Ibnm.StepAction.SET_MTU, "mlx4_ib0.8002", Ibnm.StepState.FAILED), steps)
            self.assertEqual([(c.get_interface(), c.get_action()) for c in changes],
                             [("mlx4_ib0.8002", Ibnm.StateChangeAction.ADD)])
            self.assertTrue(heard)
            self.assertTrue(all(0 < done <= total and data == "data" for done, total, data in heard), heard)
            with self.assertRaises(GLib.Error) as cm:
                report.propagate_error()
            self.assertEqual(cm.exception.code, int(Ibnm.Error.PLATFORM))
            # Nothing was written, nothing is left on the host.
            self.assertTrue(settings.reload())
            self.assertEqual(len(settings.get_connections()), 0)
            self.assertTrue(self.inv.reload())
            self.assertIsNone(self.inv.find_ipoib_interface("mlx4_ib0.8002"))
            # A document that does not parse: a report that did not start.
            bad, changes = Ibnm.state_apply(settings, self.host, "interfaces: [", -1, "bad.yml",
                                            Ibnm.ApplyFlags.NONE, None, None)
            self.assertFalse(bad.get_started())
            self.assertEqual(bad.get_steps(), [])
            self.assertEqual(changes, [])
            self.assertTrue(bad.get_error().startswith("bad.yml"), bad.get_error())

    def test_a_transaction_gives_its_report_on_failure_and_its_undo_one(self):
        child = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "c", "parent", "mlx4_ib0",
                                            "p-key", "0x8002", "mtu", "2044", "ipv4.method", "disabled"])
        self.assertTrue(IbnmSimulator.add_faults(self.host, "op=setMtu,nth=1,errno=EBUSY"))
        report, tx = Ibnm.apply_up_transaction(self.host, [child.get_connection()], Ibnm.ApplyFlags.NONE)
        self.assertIsNone(tx)
        self.assertFalse(report.get_success())
        self.assertTrue(report.get_rolled_back())
        failed = [s for s in report.get_steps() if s.get_state() == Ibnm.StepState.FAILED]
        self.assertEqual([s.get_action() for s in failed], [Ibnm.StepAction.SET_MTU])
        # The fault was used up: now it works, and its undo has a report.
        report, tx = Ibnm.apply_up_transaction(self.host, [child.get_connection()], Ibnm.ApplyFlags.NONE)
        self.assertTrue(report.propagate_error())
        self.assertTrue(tx.get_pending())
        undo = tx.undo()
        self.assertTrue(undo.get_success())
        self.assertIn((Ibnm.StepAction.CREATE_IPOIB_CHILD, Ibnm.StepState.UNDONE),
                      [(s.get_action(), s.get_state()) for s in undo.get_steps()])
        self.assertFalse(tx.get_pending())
        self.assertTrue(self.inv.reload())
        self.assertIsNone(self.inv.find_ipoib_interface("mlx4_ib0.8002"))

    def test_a_profile_that_is_not_active_is_a_report_that_did_not_start(self):
        profile = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0"])
        report = Ibnm.apply_down(self.host, [profile.get_connection()], None, Ibnm.ApplyFlags.NONE)
        self.assertFalse(report.get_started())
        self.assertFalse(report.get_success())
        self.assertEqual(report.get_steps(), [])
        with self.assertRaises(GLib.Error) as cm:
            report.propagate_error()
        self.assertEqual(cm.exception.code, int(Ibnm.Error.NOT_ACTIVE))

    def _apply_async(self, up, conn, cancellable):
        loop = GLib.MainLoop()
        outcome = {}

        def done(source, result):
            try:
                finish = Ibnm.apply_up_finish if up else Ibnm.apply_down_finish
                outcome["report"] = finish(source, result)
            except GLib.Error as e:
                outcome["error"] = e
            loop.quit()

        start = Ibnm.apply_up_async if up else Ibnm.apply_down_async
        start(self.host, [conn], None, Ibnm.ApplyFlags.NONE, cancellable, done)
        GLib.timeout_add_seconds(30, loop.quit)
        loop.run()
        return outcome

    def test_apply_asynchronously_with_a_report_also_on_failure(self):
        profile = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0",
                                              "mtu", "2044", "ipv4.method", "disabled"])
        conn = profile.get_connection()
        up = self._apply_async(True, conn, None)
        self.assertNotIn("error", up)
        self.assertTrue(up["report"].get_success())
        down = self._apply_async(False, conn, None)
        self.assertTrue(down["report"].get_success())
        # Down again: not active, a report that did not start (no GError).
        again = self._apply_async(False, conn, None)
        self.assertFalse(again["report"].get_started())
        # Cancelled before it started: the one GError of _finish.
        cancellable = Gio.Cancellable()
        cancellable.cancel()
        cancelled = self._apply_async(True, conn, cancellable)
        self.assertNotIn("report", cancelled)
        self.assertTrue(cancelled["error"].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))

    def test_typed_rdma_call_adds_a_soft_link(self):
        host = IbnmSimulator.new_host(os.path.join(SRCDIR, "examples", "hosts", "ethernet-only.host"),
                                      os.path.join(self.tmp.name, "eth-state"))
        report = Ibnm.apply_rdma_link_add(host, "rxe0", Ibnm.SoftLinkType.RXE, "enp1s0", Ibnm.ApplyFlags.NONE)
        self.assertTrue(report.propagate_error())
        self.assertEqual(report.get_steps()[0].get_action(), Ibnm.StepAction.ADD_RDMA_LINK)
        inv = Ibnm.Inventory.new(host)
        self.assertTrue(inv.reload())
        self.assertEqual([l.get_name() for l in inv.get_soft_links()], ["rxe0"])
        failed = Ibnm.apply_rdma_link_add(host, "rxe1", Ibnm.SoftLinkType.SIW, "nosuch0", Ibnm.ApplyFlags.NONE)
        self.assertFalse(failed.get_success())
        with self.assertRaises(GLib.Error) as cm:
            failed.propagate_error()
        self.assertEqual(cm.exception.code, int(Ibnm.Error.NOT_FOUND))
        self.assertTrue(cm.exception.message.startswith("netdev: "), cm.exception.message)

    def test_a_finding_names_the_profiles_it_involves(self):
        bond = Ibnm.Profile.new_from_args(["type", "bond", "con-name", "bond0", "ifname", "bond0",
                                           "bond.options", "mode=balance-rr"])
        port = Ibnm.Profile.new_from_args(["type", "infiniband", "con-name", "port", "ifname", "mlx4_ib0",
                                           "master", "bond0", "slave-type", "bond"])
        findings = Ibnm.check_profiles([bond.get_connection(), port.get_connection()], None, Ibnm.CheckFlags.NONE)
        mode = [f for f in findings if f.get_profile_id() == "bond0" and f.get_property() == "bond.options"]
        self.assertEqual(len(mode), 1)
        self.assertEqual(mode[0].get_related_profiles(), ["port"])
        self.assertTrue(mode[0].involves("port"))


class RdmaTest(unittest.TestCase):
    """`ibnm rdma test` as a library call: introspectable, asynchronous with
    a GCancellable, and refused by a simulated host, which has no data path."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.host = IbnmSimulator.new_host(HOST, os.path.join(self.tmp.name, "state"))

    def tearDown(self):
        self.tmp.cleanup()

    def test_properties_and_a_profile(self):
        test = Ibnm.RdmaTest.new(self.host)
        self.assertEqual(test.props.port, 4266)
        self.assertEqual(test.props.tos, -1)
        test.props.address = "192.0.2.2"
        test.props.count = 10
        profile = Ibnm.Profile.new_from_args(["type", "ethernet", "con-name", "rxe0", "ifname", "enp1s0"])
        self.assertTrue(profile.set_user_option("rdma.roce-tos", "106"))
        self.assertTrue(profile.set_user_option("rdma.roce-mode", "v2"))
        self.assertTrue(test.set_profile(profile.get_connection()))
        self.assertEqual(test.props.interface, "enp1s0")
        self.assertEqual(test.props.tos, 106)
        self.assertEqual(test.props.roce_mode, int(Ibnm.RoceMode.V2))

    def test_the_simulated_host_refuses(self):
        test = Ibnm.RdmaTest.new(self.host)
        test.props.address = "192.0.2.2"
        with self.assertRaises(GLib.Error) as cm:
            test.run(None)
        self.assertEqual(cm.exception.domain, "ibnm-error-quark")
        self.assertEqual(cm.exception.code, int(Ibnm.Error.NOT_SUPPORTED))
        self.assertIn("simulated host has no RDMA data path", cm.exception.message)

    def test_asynchronously_too(self):
        test = Ibnm.RdmaTest.new(self.host)
        test.props.listen = True
        loop = GLib.MainLoop()
        outcome = {}

        def done(source, result):
            try:
                source.run_finish(result)
                outcome["result"] = True
            except GLib.Error as e:
                outcome["error"] = e
            loop.quit()

        test.run_async(Gio.Cancellable(), done)
        GLib.timeout_add_seconds(10, loop.quit)
        loop.run()
        self.assertNotIn("result", outcome)
        self.assertEqual(outcome["error"].code, int(Ibnm.Error.NOT_SUPPORTED))

    def test_a_cancelled_run_ends_as_gio_calls_do(self):
        # The GCancellable reaches the test through the GIR, both ways of
        # running it: G_IO_ERROR_CANCELLED wins over what the host said.
        test = Ibnm.RdmaTest.new(self.host)
        test.props.address = "192.0.2.2"
        cancellable = Gio.Cancellable()
        cancellable.cancel()
        with self.assertRaises(GLib.Error) as cm:
            test.run(cancellable)
        self.assertTrue(cm.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), cm.exception)
        loop = GLib.MainLoop()
        outcome = {}

        def done(source, result):
            try:
                source.run_finish(result)
            except GLib.Error as e:
                outcome["error"] = e
            loop.quit()

        test.run_async(cancellable, done)
        GLib.timeout_add_seconds(10, loop.quit)
        loop.run()
        self.assertTrue(outcome["error"].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), outcome)


if __name__ == "__main__":
    unittest.main(verbosity=2)
