#!/usr/bin/env python3
"""mdoc(7) man pages for hapbridge and each of its subcommands, from the command tree
swift-argument-parser dumps (`hapbridge --experimental-dump-help`), the same source
its GenerateManual plugin reads (that plugin rebuilds the whole package in its own
configuration; the package script already has the binary).

usage: manpages.py DUMP.json OUTDIR DATE
"""
import json
import os
import sys


def esc(text):
    # mdoc: a line starting with a dot or an apostrophe is a request; backslashes escape.
    out = []
    for line in (text or "").replace("\\", "\\e").splitlines():
        out.append(("\\&" + line) if line[:1] in ".'" else line)
    return "\n".join(out)


def flag_text(arg):
    names = []
    for n in arg.get("names", []):
        names.append(("Fl " + n["name"]) if n["kind"] == "short" else ("Fl -" + n["name"]))
    return names


def page(cmd, parents, date):
    name = "-".join(parents + [cmd["commandName"]])
    full = " ".join(parents + [cmd["commandName"]])
    lines = [f".Dd {date}", f".Dt {name.upper()} 1", ".Os", ".Sh NAME", f".Nm {name}", f".Nd {esc(cmd.get('abstract', ''))}", ".Sh SYNOPSIS", f".Nm {full}"]
    args = [a for a in cmd.get("arguments", []) if a.get("shouldDisplay", True)]
    for a in args:
        opt = a.get("isOptional", False)
        if a["kind"] == "positional":
            item = f"Ar {a['valueName']}" + (" ..." if a.get("isRepeating") else "")
        else:
            names = flag_text(a)
            item = names[0] if names else ""
            if a["kind"] == "option":
                item += f" Ar {a['valueName']}"
        lines.append((".Op " if opt else ".") + item)
    subs = [s for s in cmd.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
    if subs:
        lines.append(".Ar subcommand")
    lines.append(".Sh DESCRIPTION")
    lines.append(esc(cmd.get("discussion") or cmd.get("abstract", "")))
    if args:
        lines.append(".Bl -tag -width 6n")
        for a in args:
            if a["kind"] == "positional":
                lines.append(f".It Ar {a['valueName']}")
            else:
                names = flag_text(a)
                head = " , ".join(names) if names else ""
                if a["kind"] == "option":
                    head += f" Ar {a['valueName']}"
                lines.append(f".It {head}")
            text = a.get("abstract", "")
            if a.get("discussion"):
                text += "\n" + a["discussion"]
            if a.get("defaultValue"):
                text += f"\n(default: {a['defaultValue']})"
            lines.append(esc(text))
        lines.append(".El")
    if subs:
        lines.append(".Sh SUBCOMMANDS")
        lines.append(".Bl -tag -width 6n")
        for s in subs:
            lines.append(f".It Xr {name}-{s['commandName']} 1")
            lines.append(esc(s.get("abstract", "")))
        lines.append(".El")
    if parents:
        lines += [".Sh SEE ALSO", f".Xr {parents[0]} 1"]
    pages = [(name, "\n".join(lines) + "\n")]
    for s in subs:
        pages += page(s, parents + [cmd["commandName"]], date)
    return pages


def main():
    dump, out, date = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(dump, encoding="utf-8") as f:
        tree = json.load(f)["command"]
    os.makedirs(out, exist_ok=True)
    for name, text in page(tree, [], date):
        with open(os.path.join(out, name + ".1"), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
