#!/usr/bin/env python3
"""Merge translations into a .po file: po-fill.py LANG.po TRANSLATIONS...

Each TRANSLATIONS is a .py file defining T = {msgid: msgstr}, or a directory
of them (tools/translations/LANG/, one file per area of the code). Entries of LANG.po whose msgid
is in T get that msgstr (fuzzy flags are dropped). A maintainer's helper for
bulk translation work; msgmerge/msgfmt remain the tools of record.
"""
import re
import sys


def unquote(lines):
    return "".join(eval(l) for l in lines)  # po strings are C-quoted like Python's


def quote(s):
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    parts = s.split("\n")
    chunks = [p + "\\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    if len(chunks) <= 1 and "\\n" not in (chunks[0] if chunks else "")[:-2]:
        return ['"%s"' % (chunks[0] if chunks else "")]
    return ['""'] + ['"%s"' % c for c in chunks]


def main():
    import os
    po = sys.argv[1]
    files = []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg) if f.endswith(".py"))
        else:
            files.append(arg)
    T = {}
    for tr in files:
        ns = {}
        exec(open(tr, encoding="utf-8").read(), ns)
        T.update(ns["T"])
    text = open(po, encoding="utf-8").read()
    blocks = text.split("\n\n")
    out = []
    for b in blocks:
        lines = b.split("\n")
        try:
            i = next(k for k, l in enumerate(lines) if l.startswith("msgid "))
            j = next(k for k, l in enumerate(lines) if l.startswith("msgstr "))
        except StopIteration:
            out.append(b)
            continue
        msgid = unquote([lines[i][6:]] + lines[i + 1:j])
        if msgid and msgid in T:
            head = [l for l in lines[:i] if not l.startswith("#, fuzzy") and not l.startswith("#| ")]
            head = [re.sub(r"fuzzy, ?|, ?fuzzy", "", l) for l in head]
            lines = head + lines[i:j] + ["msgstr " + quote(T[msgid])[0]] + quote(T[msgid])[1:]
        out.append("\n".join(lines))
    result = "\n\n".join(out)
    result = re.sub(r"charset=(ASCII|CHARSET)", "charset=UTF-8", result, count=1)
    if not result.endswith("\n"):
        result += "\n"
    open(po, "w", encoding="utf-8").write(result)


if __name__ == "__main__":
    main()
