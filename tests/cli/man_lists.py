#!/usr/bin/env python3
"""The man page's lists against the binary and the sources (TAP).

   man_lists.py REPRISE SOURCE_ROOT

- every command `reprise --help` lists has its section, named in DESCRIPTION too;
- every option `reprise CMD --help` lists is in that command's section, and no other;
- ENVIRONMENT lists every variable the code reads (getenv of a literal, or of an RP_ENV_* macro
  resolved through its #define), and no variable the code does not read.
"""
import os
import re
import subprocess
import sys

reprise, src = sys.argv[1], sys.argv[2]
n = 0
fails = 0


def ok(cond, desc, detail=""):
    global n, fails
    n += 1
    if cond:
        print(f"ok {n} - {desc}")
    else:
        fails += 1
        print(f"not ok {n} - {desc}")
        for line in str(detail).splitlines()[:20]:
            print(f"# {line}")


def out(*args):
    return subprocess.run([reprise, *args], capture_output=True, text=True, check=False).stdout


man = out("--man")
unesc = man.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
sections = dict(re.findall(r"^\.SH (\S+)\n(.*?)(?=^\.SH |\Z)", man, re.M | re.S))

# The commands and their options, from --help
commands = re.findall(r"^  (\S+) {2,}\S", out("--help").split("commands:\n", 1)[1].split("\n\n", 1)[0], re.M)
ok(len(commands) >= 9, f"--help lists the commands ({len(commands)})", commands)
desc = sections.get("DESCRIPTION", "").replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
missing = [c for c in commands if not re.search(rf"\b{c}\b", desc)]
ok(not missing, "DESCRIPTION names every command", missing)
subs = dict(re.findall(r'^\.SS "reprise (\S+) [^\n]*\n(.*?)(?=^\.SS |^\.SH |\Z)', man, re.M | re.S))
for c in commands:
    sect = subs.get(c)
    ok(sect is not None, f"{c}: a section of its own")
    if sect is None:
        continue
    help_opts = set(re.findall(r"^  (?:-., )?\s*--([a-z0-9-]+)", out(c, "--help").split("\noptions:\n", 1)[-1], re.M))
    help_opts.discard("help")
    man_opts = set(re.findall(r"^(?:\\fB\\-.\\fR, )?\\fB\\-\\-([a-z0-9\\-]+)\\fR", sect, re.M))
    man_opts = {o.replace("\\-", "-") for o in man_opts}
    ok(help_opts and help_opts == man_opts, f"{c}: the man page lists --help's {len(help_opts)} options",
       f"only in --help: {sorted(help_opts - man_opts)}\nonly in the man page: {sorted(man_opts - help_opts)}")

# The environment the code reads
read = set()
macros = {}
for top in ("cli", "capture", "converters", "formats", "replay", "results"):
    for d, _, files in os.walk(os.path.join(src, top)):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
            macros.update(re.findall(r'#define\s+(RP_ENV_\w+)\s+"([A-Z_][A-Z0-9_]*)"', text))
            for arg in re.findall(r"\bgetenv\(\s*([^)]+?)\s*\)", text):
                read.add(arg)
names = set()
unresolved = []
for arg in read:
    m = re.fullmatch(r'"([A-Za-z_][A-Za-z0-9_]*)"', arg)
    if m:
        names.add(m.group(1))
    elif arg in macros:
        names.add(macros[arg])
    elif arg.startswith("env_names"):
        pass  # the interposer's loop over RP_ENV_* names, each a macro resolved above
    else:
        unresolved.append(arg)
names.update(v for k, v in macros.items())
ok(not unresolved, "every getenv's name is known (a literal or an RP_ENV_ macro)", unresolved)
env = sections.get("ENVIRONMENT", "")
listed = set(re.findall(r"^\.B ([A-Z_][A-Z0-9_]*)$", env, re.M))
ok(len(names) >= 8, f"the sources read {len(names)} variables", sorted(names))
ok(names <= listed, "ENVIRONMENT lists every variable the code reads", sorted(names - listed))
ok(listed <= names, "ENVIRONMENT lists no variable the code does not read", sorted(listed - names))
print(f"1..{n}")
sys.exit(1 if fails else 0)
