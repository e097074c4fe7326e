#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Drives nm-connection-editor through accessibility (AT-SPI), as a screen
# reader would: the fields of ibnm's page are found by their accessible id,
# which is the vpn.data key they edit (plugin/vpn-editor-page.cpp), so the
# test does not depend on the language or the layout.
#
#   editor-a11y.py wait KEY           wait (30 s) until the field KEY shows
#   editor-a11y.py get KEY            print the field's text (entry) or name (combo)
#   editor-a11y.py set KEY VALUE      replace the entry's text with VALUE
#   editor-a11y.py findings           print the findings shown under the fields
#   editor-a11y.py press NAME         activate the button named NAME ("Save")
#   editor-a11y.py ids                print every accessible id of the page
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

APP = "nm-connection-editor"


def walk(acc, depth=0):
    if acc is None or depth > 80:
        return
    yield acc
    try:
        n = acc.get_child_count()
    except Exception:
        return
    for i in range(n):
        try:
            child = acc.get_child_at_index(i)
        except Exception:
            continue
        yield from walk(child, depth + 1)


def app():
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        a = desktop.get_child_at_index(i)
        if a is not None and a.get_name() == APP:
            return a
    return None


def find(pred, timeout=30.0):
    end = time.time() + timeout
    while True:
        a = app()
        if a is not None:
            for acc in walk(a):
                try:
                    if pred(acc):
                        return acc
                except Exception:
                    pass
        if time.time() > end:
            return None
        time.sleep(0.2)


def by_id(key, timeout=30.0):
    acc = find(lambda a: a.get_accessible_id() == key, timeout)
    if acc is None:
        sys.exit(f"editor-a11y: no field with accessible id {key}")
    return acc


def text_of(acc):
    t = acc.get_text_iface()
    if t is not None:
        return t.get_text(0, t.get_character_count())
    return acc.get_name() or ""


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "wait":
        by_id(argv[2], 30.0)
    elif cmd == "get":
        print(text_of(by_id(argv[2], 5.0)))
    elif cmd == "set":
        acc = by_id(argv[2], 5.0)
        editable = acc.get_editable_text_iface()
        if editable is None or not editable.set_text_contents(argv[3]):
            sys.exit(f"editor-a11y: {argv[2]} takes no text")
    elif cmd == "findings":
        box = by_id("ibnm-check-findings", 5.0)
        for acc in walk(box):
            if acc.get_role() == Atspi.Role.LABEL:
                print(text_of(acc))
    elif cmd == "press":
        acc = find(lambda a: a.get_role() == Atspi.Role.PUSH_BUTTON and a.get_name() == argv[2], 5.0)
        if acc is None:
            sys.exit(f"editor-a11y: no button {argv[2]}")
        action = acc.get_action_iface()
        if action is None or not action.do_action(0):
            sys.exit(f"editor-a11y: {argv[2]} cannot be pressed")
    elif cmd == "ids":
        a = app()
        for acc in walk(a) if a else []:
            i = acc.get_accessible_id()
            if i:
                print(i)
    else:
        sys.exit(f"editor-a11y: unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
