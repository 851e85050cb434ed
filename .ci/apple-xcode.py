#!/usr/bin/env python3
"""Prints the path of an installed Xcode chosen by its version, for `sudo xcode-select -s`.

Runner images add and drop Xcodes, and name them as they like (`Xcode_16.app` for 16.0, a `.0` symlink beside most,
`Xcode.app` for the default, betas with a suffix), so the workflow never names one by its path. This script reads
each bundle's own version (Contents/version.plist, else Contents/Info.plist: CFBundleShortVersionString), compares
versions as numbers (16.10 is newer than 16.4), counts a bundle reached through several names once, and leaves out
betas (a name with "beta" in it) when it picks by version.

    apple-xcode.py --oldest-at-least 16.3   the oldest Xcode at or above 16.3 (the manifest's tools version 6.1)
    apple-xcode.py --default                the one `xcode-select -p` points at; the newest when it cannot tell
    apple-xcode.py --list                   every Xcode found, oldest first
    apple-xcode.py --self-test              builds fake bundles in a scratch folder and checks the picks

`--applications DIR` looks in DIR instead of /Applications. Exits 1, saying what it found, when nothing fits.
"""

import argparse
import glob
import os
import plistlib
import subprocess
import sys
import tempfile


class NoXcode(Exception):
    pass


def version_key(version):
    """A version as numbers to compare: 16.10 > 16.4, and 16.3 == 16.3.0."""
    parts = [int(part) for part in version.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def read_version(bundle):
    """The bundle's CFBundleShortVersionString, or None."""
    for name in ("version.plist", "Info.plist"):
        try:
            with open(os.path.join(bundle, "Contents", name), "rb") as file:
                version = plistlib.load(file).get("CFBundleShortVersionString")
        except (OSError, plistlib.InvalidFileException, ValueError):
            continue
        try:
            version_key(version)
            return version
        except (AttributeError, ValueError):
            continue
    return None


def installed(applications):
    """Every Xcode in `applications`, once each however many names reach it: [(version, path, is beta)], oldest
    first. The path is the bundle's own, not a symlink's."""
    found = {}
    for path in sorted(glob.glob(os.path.join(applications, "Xcode*.app"))):
        real = os.path.realpath(path)
        version = read_version(real)
        if version is None:
            print(f"apple-xcode.py: no version in {path}, left out", file=sys.stderr)
            continue
        beta = "beta" in os.path.basename(real).lower()
        found[real] = (version, real, beta)
    return sorted(found.values(), key=lambda xcode: (version_key(xcode[0]), not xcode[2], xcode[1]))


def describe(xcodes):
    return ", ".join(version + (" (beta)" if beta else "") for version, _, beta in xcodes) or "none"


def oldest_at_least(xcodes, minimum, applications):
    for version, path, beta in xcodes:
        if not beta and version_key(version) >= version_key(minimum):
            return path
    raise NoXcode(f"no Xcode ≥ {minimum} on this runner: found {describe(xcodes)} in {applications}")


def default(xcodes, selected, applications):
    """The Xcode `selected` (what `xcode-select -p` printed, or None) lies in; else the newest release."""
    if selected:
        bundle = selected.split("/Contents/")[0] if "/Contents/" in selected else selected
        real = os.path.realpath(bundle)
        for _, path, _ in xcodes:
            if path == real:
                return path
        print(f"apple-xcode.py: xcode-select points at {selected}, no Xcode found here: taking the newest",
              file=sys.stderr)
    releases = [xcode for xcode in xcodes if not xcode[2]]
    if not releases:
        raise NoXcode(f"no Xcode on this runner: found {describe(xcodes)} in {applications}")
    return releases[-1][1]


def selected_developer_directory():
    try:
        return subprocess.run(["xcode-select", "-p"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def self_test():
    """Fake bundles, named as runner images name them, and the picks they must give."""
    failures = []

    def check(name, got, expected):
        if got == expected:
            print(f"passed {name}: {got}")
        else:
            failures.append(f"{name}: expected {expected!r}, got {got!r}")

    def bundle(folder, name, version, plist="version.plist"):
        contents = os.path.join(folder, name, "Contents")
        os.makedirs(contents)
        if version is not None:
            with open(os.path.join(contents, plist), "wb") as file:
                plistlib.dump({"CFBundleShortVersionString": version, "ProductBuildVersion": "TEST"}, file)
        return os.path.realpath(os.path.join(folder, name))

    with tempfile.TemporaryDirectory() as scratch:
        apps = os.path.join(scratch, "Applications")
        os.makedirs(apps)
        bundle(apps, "Xcode_15.4.app", "15.4")
        bundle(apps, "Xcode_16.app", "16.0")
        x163 = bundle(apps, "Xcode_16.3.app", "16.3", plist="Info.plist")
        x164 = bundle(apps, "Xcode_16.4.app", "16.4")
        x1610 = bundle(apps, "Xcode_16.10.app", "16.10")
        x2601 = bundle(apps, "Xcode_26.0.1.app", "26.0.1")
        bundle(apps, "Xcode_26.1_beta.app", "26.1")
        bundle(apps, "Xcode_unreadable.app", None)
        os.symlink(os.path.join(apps, "Xcode_16.3.app"), os.path.join(apps, "Xcode_16.3.0.app"))
        os.symlink(os.path.join(apps, "Xcode_16.4.app"), os.path.join(apps, "Xcode.app"))
        bundle(apps, "Safari.app", "18.0")
        xcodes = installed(apps)
        check("each bundle once, oldest first, numerically", describe(xcodes),
              "15.4, 16.0, 16.3, 16.4, 16.10, 26.0.1, 26.1 (beta)")
        check("oldest at least 16.3 (read from Info.plist; its .0 symlink not taken)",
              oldest_at_least(xcodes, "16.3", apps), x163)
        check("oldest at least 16.3.0", oldest_at_least(xcodes, "16.3.0", apps), x163)
        check("oldest at least 16.5: 16.10, not 16.4", oldest_at_least(xcodes, "16.5", apps), x1610)
        check("oldest at least 26: the release, not the newer beta", oldest_at_least(xcodes, "26", apps), x2601)
        try:
            got = oldest_at_least(xcodes, "26.1", apps)
        except NoXcode as error:
            got = str(error)
        check("only a beta at least 26.1", got,
              f"no Xcode ≥ 26.1 on this runner: found 15.4, 16.0, 16.3, 16.4, 16.10, 26.0.1, 26.1 (beta) in {apps}")
        check("default through Xcode.app", default(xcodes, os.path.join(apps, "Xcode.app/Contents/Developer"), apps),
              x164)
        check("default named by its bundle", default(xcodes, os.path.join(apps, "Xcode_16.3.app"), apps), x163)
        check("default unknown: the newest release", default(xcodes, None, apps), x2601)
        check("default at the command line tools: the newest release",
              default(xcodes, "/Library/Developer/CommandLineTools", apps), x2601)

        empty = os.path.join(scratch, "Empty")
        os.makedirs(empty)
        command = [sys.executable, os.path.abspath(__file__), "--applications"]
        run = subprocess.run(command + [apps, "--oldest-at-least", "16.3"], capture_output=True, text=True)
        check("the command prints the path", (run.returncode, run.stdout.strip()), (0, x163))
        run = subprocess.run(command + [apps, "--oldest-at-least", "27"], capture_output=True, text=True)
        check("the command fails, saying what it found", (run.returncode, run.stdout, run.stderr.splitlines()),
              (1, "", [f"apple-xcode.py: no version in {apps}/Xcode_unreadable.app, left out",
                       f"no Xcode ≥ 27 on this runner: found 15.4, 16.0, 16.3, 16.4, 16.10, 26.0.1, 26.1 (beta) "
                       f"in {apps}"]))
        run = subprocess.run(command + [empty, "--oldest-at-least", "16.3"], capture_output=True, text=True)
        check("no Xcode at all", (run.returncode, run.stderr.strip()),
              (1, f"no Xcode ≥ 16.3 on this runner: found none in {empty}"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--oldest-at-least", metavar="VERSION")
    choice.add_argument("--default", action="store_true")
    choice.add_argument("--list", action="store_true")
    choice.add_argument("--self-test", action="store_true")
    parser.add_argument("--applications", default="/Applications", metavar="DIR")
    arguments = parser.parse_args()
    if arguments.self_test:
        failures = self_test()
        for failure in failures:
            print("self-test:", failure)
        print(f"apple-xcode.py: {len(failures)} of its picks failed their self-test")
        return 1 if failures else 0
    xcodes = installed(arguments.applications)
    try:
        if arguments.list:
            for version, path, beta in xcodes:
                print(f"{version}{' (beta)' if beta else ''}\t{path}")
            return 0
        if arguments.default:
            print(default(xcodes, selected_developer_directory(), arguments.applications))
        else:
            version_key(arguments.oldest_at_least)
            print(oldest_at_least(xcodes, arguments.oldest_at_least, arguments.applications))
    except NoXcode as error:
        print(error, file=sys.stderr)
        return 1
    except ValueError:
        print(f"not a version: {arguments.oldest_at_least}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
