#!/usr/bin/env python3
"""Preset names and their folders agree, and with the folders the scripts build.

    presets_test.py SOURCE_DIR

CMakePresets.json: the preset `default` builds into build/ (what scripts/build.sh, scripts/lab.sh and
scripts/test.sh make), every other preset NAME into build-NAME/ (`release` into build-release/, `debug` into
build-debug/), each build and test preset uses the configure preset of its own name; scripts/test.sh's
build-release/ has the build type of the preset `release`, and scripts/debug.sh builds the preset `debug`.
Prints PASS: presets, or FAIL: and why.
"""
import json
import os
import re
import sys

src = sys.argv[1]
problems = []
with open(os.path.join(src, "CMakePresets.json")) as f:
    presets = json.load(f)
configure = {p["name"]: p for p in presets["configurePresets"]}
for name, p in configure.items():
    want = "${sourceDir}/build" + ("" if name == "default" else "-" + name)
    if p.get("binaryDir") != want:
        problems.append("configure preset %r builds into %s, expected %s" % (name, p.get("binaryDir"), want))
for kind in ("buildPresets", "testPresets"):
    for p in presets.get(kind, []):
        if p.get("configurePreset") != p["name"]:
            problems.append("%s %r uses the configure preset %r" % (kind, p["name"], p.get("configurePreset")))
for name in ("default", "release", "debug"):
    if name not in configure:
        problems.append("no configure preset %r" % name)

with open(os.path.join(src, "scripts", "test.sh")) as f:
    test_sh = f.read()
m = re.search(r'TAPEGRAD_BUILD_DIR="\$root/build-release" "\$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=(\w+)', test_sh)
release_type = configure.get("release", {}).get("cacheVariables", {}).get("CMAKE_BUILD_TYPE")
if not m:
    problems.append("scripts/test.sh does not build build-release/ with a -DCMAKE_BUILD_TYPE")
elif m.group(1) != release_type:
    problems.append("scripts/test.sh builds build-release/ as %s, the preset release as %s" % (m.group(1), release_type))
with open(os.path.join(src, "scripts", "debug.sh")) as f:
    if "cmake --preset debug" not in f.read():
        problems.append("scripts/debug.sh does not configure the preset debug")

for p in problems:
    print("FAIL: " + p)
print("PASS: presets" if not problems else "%d problems" % len(problems))
sys.exit(1 if problems else 0)
