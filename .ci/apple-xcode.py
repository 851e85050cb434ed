#!/usr/bin/env python3
"""Prints the path of an installed Xcode chosen by its version, for `sudo xcode-select -s`.

Runner images add and drop Xcodes, and name them as they like (`Xcode_26.4.1.app` with an `Xcode_26.4.app` symlink,
a `.0` symlink beside most, `Xcode.app` for the default, betas with "beta" in the name), so the workflow never names
one by its path. This script reads each bundle's own version (Contents/version.plist, else Contents/Info.plist:
CFBundleShortVersionString), compares versions as numbers (26.10 is newer than 26.4), counts a bundle reached through
several names once, and leaves out betas (a name with "beta" in it) when it picks by version.

    apple-xcode.py --oldest-at-least 26.4   the oldest release at or above 26.4 (the manifest's tools version 6.3)
    apple-xcode.py --newest                 the newest release installed
    apple-xcode.py --default                the one `xcode-select -p` points at; the newest release when it cannot tell
    apple-xcode.py --list                   every Xcode found, oldest first
    apple-xcode.py --self-test              builds fake bundles and SDK lists in a scratch folder and checks the picks

`--with-sdk PLATFORM` (iphoneos, iphonesimulator, appletvos, watchos, xros, macosx, ...) adds to a pick that the Xcode
lists that platform's SDK: an image need not give every Xcode every platform, and a build for a platform its Xcode
lacks fails late, in xcodebuild's words. It is decided from structured data, never from a tool's wording: for each
candidate, in the pick's order, `xcodebuild -showsdks -json` run with DEVELOPER_DIR naming that bundle (so nothing
is selected until the pick is made, and no sudo), a list of objects whose "platform" is such a name. A candidate
whose list cannot be read (the command fails, or prints no such list) is left out, said on stderr. `--default
--with-sdk` fails when the default lacks the SDK rather than quietly taking another Xcode. `--sdks-json DIR` reads
DIR/<bundle name>.json instead of running xcodebuild (the self-test's fixtures; a missing file is an unreadable list).

`--applications DIR` looks in DIR instead of /Applications. Exits 1, saying what it found, when nothing fits.
"""

import argparse
import glob
import json
import os
import plistlib
import subprocess
import sys
import tempfile

# The values of "platform" in `xcodebuild -showsdks -json`: a name outside these is a typo (`visionos` is `xros`).
SDK_PLATFORMS = ("macosx", "iphoneos", "iphonesimulator", "appletvos", "appletvsimulator", "watchos",
                 "watchsimulator", "xros", "xrsimulator", "driverkit")


class NoXcode(Exception):
    pass


class UnreadableSdks(Exception):
    pass


def version_key(version):
    """A version as numbers to compare: 26.10 > 26.4, and 26.4 == 26.4.0."""
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


def showsdks(bundle):
    """The parsed output of `xcodebuild -showsdks -json` for one bundle, DEVELOPER_DIR naming it. Its exit status and
    its JSON are read, never its messages."""
    environment = dict(os.environ, DEVELOPER_DIR=os.path.join(bundle, "Contents", "Developer"))
    try:
        run = subprocess.run(["xcodebuild", "-showsdks", "-json"], env=environment, capture_output=True, text=True,
                             timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UnreadableSdks(f"xcodebuild -showsdks -json did not run ({type(error).__name__})")
    if run.returncode != 0:
        raise UnreadableSdks(f"xcodebuild -showsdks -json exited {run.returncode}")
    return json.loads(run.stdout)


def fixture_sdks(folder):
    """A stand-in for `showsdks`: DIR/<bundle name>.json, for the self-test (and a dry run off a Mac)."""
    def read(bundle):
        path = os.path.join(folder, os.path.basename(bundle) + ".json")
        try:
            with open(path) as file:
                return json.load(file)
        except OSError:
            raise UnreadableSdks(f"no SDK list at {path}")
    return read


class SdkNeed:
    """A pick's need for an Xcode that lists `platform`'s SDK, as `read(bundle)` (showsdks, or a stand-in) tells.
    Each bundle is asked once; why one did not fit is kept for the message (`missing`) and said on stderr."""

    def __init__(self, platform, read=showsdks):
        self.platform, self.read, self.missing, self.asked = platform, read, {}, {}

    def fits(self, version, path):
        if path not in self.asked:
            self.asked[path] = self.ask(version, path)
        return self.asked[path]

    def ask(self, version, path):
        try:
            listing = self.read(path)
            if not isinstance(listing, list) or not all(isinstance(sdk, dict) for sdk in listing):
                raise UnreadableSdks("its SDK list is no JSON list of objects")
        except UnreadableSdks as error:
            why, said = "SDKs unknown", str(error)
        except ValueError:
            why, said = "SDKs unknown", "its SDK list is not JSON"
        else:
            platforms = sorted({sdk["platform"] for sdk in listing if isinstance(sdk.get("platform"), str)})
            if self.platform in platforms:
                return True
            why = f"no {self.platform} SDK"
            said = f"{why}: it lists {', '.join(platforms) or 'none'}"
        self.missing[path] = why
        print(f"apple-xcode.py: Xcode {version} in {path}: {said}, left out", file=sys.stderr)
        return False


def fits(need, version, path):
    return need is None or need.fits(version, path)


def wanting(need):
    """What the message says was asked beyond a version: ` with the iphoneos SDK`, or nothing."""
    return f" with the {need.platform} SDK" if need else ""


def describe(xcodes, need=None):
    """The Xcodes found, each with why it did not fit when it was asked: `26.4.1 (no xros SDK), 27.0 (beta)`."""
    def one(version, path, beta):
        notes = (["beta"] if beta else []) + ([need.missing[path]] if need and path in need.missing else [])
        return version + "".join(f" ({note})" for note in notes)
    return ", ".join(one(*xcode) for xcode in xcodes) or "none"


def oldest_at_least(xcodes, minimum, applications, need=None):
    for version, path, beta in xcodes:
        if not beta and version_key(version) >= version_key(minimum) and fits(need, version, path):
            return path
    raise NoXcode(f"no Xcode ≥ {minimum}{wanting(need)} on this runner: found {describe(xcodes, need)} "
                  f"in {applications}")


def newest(xcodes, applications, need=None):
    """The newest release (with the SDK, if one is needed)."""
    for version, path, beta in reversed(xcodes):
        if not beta and fits(need, version, path):
            return path
    raise NoXcode(f"no Xcode{wanting(need)} on this runner: found {describe(xcodes, need)} in {applications}")


def default(xcodes, selected, applications, need=None):
    """The Xcode `selected` (what `xcode-select -p` printed, or None) lies in; else the newest release. A default
    without the SDK needed is a failure, not a reason to take another: the pick asked for the default."""
    if selected:
        bundle = selected.split("/Contents/")[0] if "/Contents/" in selected else selected
        real = os.path.realpath(bundle)
        for version, path, _ in xcodes:
            if path == real:
                if fits(need, version, path):
                    return path
                raise NoXcode(f"the default Xcode, {version} in {path}, has {need.missing[path]}: found "
                              f"{describe(xcodes, need)} in {applications}")
        print(f"apple-xcode.py: xcode-select points at {selected}, no Xcode found here: taking the newest",
              file=sys.stderr)
    return newest(xcodes, applications, need)


def selected_developer_directory():
    try:
        return subprocess.run(["xcode-select", "-p"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def self_test():
    """Fake bundles, named as runner images name them, their SDK lists, and the picks they must give."""
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

    def sdk_list(folder, name, version, platforms):
        """What `xcodebuild -showsdks -json` prints, trimmed to the keys it always has."""
        listing = [{"canonicalName": platform + version, "displayName": f"{platform} {version}", "isBaseSdk": True,
                    "platform": platform, "platformVersion": version, "sdkVersion": version}
                   for platform in platforms]
        with open(os.path.join(folder, name + ".json"), "w") as file:
            json.dump(listing, file, indent=2)

    def failure(pick, *arguments):
        try:
            return pick(*arguments)
        except NoXcode as error:
            return str(error)

    every = ["macosx", "iphoneos", "iphonesimulator", "appletvos", "appletvsimulator", "watchos", "watchsimulator",
             "xros", "xrsimulator"]
    with tempfile.TemporaryDirectory() as scratch:
        apps, sdks = os.path.join(scratch, "Applications"), os.path.join(scratch, "sdks")
        os.makedirs(apps)
        os.makedirs(sdks)
        bundle(apps, "Xcode_16.4.app", "16.4")  # and no SDK list: unreadable
        x2601 = bundle(apps, "Xcode_26.0.1.app", "26.0.1")
        sdk_list(sdks, "Xcode_26.0.1.app", "26.0", ["macosx"])
        bundle(apps, "Xcode_26.2.app", "26.2")
        with open(os.path.join(sdks, "Xcode_26.2.app.json"), "w") as file:
            file.write("xcodebuild: error: not JSON\n")
        x2641 = bundle(apps, "Xcode_26.4.1.app", "26.4.1", plist="Info.plist")
        sdk_list(sdks, "Xcode_26.4.1.app", "26.4", [platform for platform in every if not platform.startswith("xr")])
        x265 = bundle(apps, "Xcode_26.5.app", "26.5")
        sdk_list(sdks, "Xcode_26.5.app", "26.5", every)
        x2610 = bundle(apps, "Xcode_26.10.app", "26.10")
        sdk_list(sdks, "Xcode_26.10.app", "26.10", ["macosx"])
        bundle(apps, "Xcode_27_beta_5.app", "27.0")
        sdk_list(sdks, "Xcode_27_beta_5.app", "27.0", every)
        bundle(apps, "Xcode_unreadable.app", None)
        for link, target in [("Xcode_26.0.app", "Xcode_26.0.1.app"), ("Xcode_26.4.app", "Xcode_26.4.1.app"),
                             ("Xcode_26.5.0.app", "Xcode_26.5.app"), ("Xcode_27.0.app", "Xcode_27_beta_5.app"),
                             ("Xcode.app", "Xcode_26.5.app")]:
            os.symlink(os.path.join(apps, target), os.path.join(apps, link))
        bundle(apps, "Safari.app", "26.0")
        xcodes = installed(apps)
        found = "16.4, 26.0.1, 26.2, 26.4.1, 26.5, 26.10, 27.0 (beta)"

        def need(platform):
            return SdkNeed(platform, fixture_sdks(sdks))

        # By version alone.
        check("each bundle once, oldest first, numerically", describe(xcodes), found)
        check("oldest at least 26.4: 26.4.1 (read from Info.plist; its 26.4 symlink not taken)",
              oldest_at_least(xcodes, "26.4", apps), x2641)
        check("oldest at least 26.4.0", oldest_at_least(xcodes, "26.4.0", apps), x2641)
        check("oldest at least 26.6: 26.10, not 26.5", oldest_at_least(xcodes, "26.6", apps), x2610)
        check("only a beta at least 27", failure(oldest_at_least, xcodes, "27", apps),
              f"no Xcode ≥ 27 on this runner: found {found} in {apps}")
        check("newest: 26.10 > 26.5 > 26.4.1, the 27.0 beta left out", newest(xcodes, apps), x2610)
        check("newest when only a beta is installed", failure(newest, [xcodes[-1]], apps),
              f"no Xcode on this runner: found 27.0 (beta) in {apps}")
        check("default through Xcode.app", default(xcodes, os.path.join(apps, "Xcode.app/Contents/Developer"), apps),
              x265)
        check("default named by a symlink", default(xcodes, os.path.join(apps, "Xcode_26.4.app"), apps), x2641)
        check("default unknown: the newest release", default(xcodes, None, apps), x2610)
        check("default at the command line tools: the newest release",
              default(xcodes, "/Library/Developer/CommandLineTools", apps), x2610)

        # With an SDK.
        check("oldest at least 26.4 with iphoneos", oldest_at_least(xcodes, "26.4", apps, need("iphoneos")), x2641)
        check("oldest at least 26.4 with xros: 26.4.1 lists none", oldest_at_least(xcodes, "26.4", apps, need("xros")),
              x265)
        check("oldest at least 26 with iphoneos: 26.0.1 lists none, 26.2's list is no JSON",
              oldest_at_least(xcodes, "26", apps, need("iphoneos")), x2641)
        check("newest with iphoneos: 26.10 lists none, the beta that does is left out",
              newest(xcodes, apps, need("iphoneos")), x265)
        check("newest with macosx", newest(xcodes, apps, need("macosx")), x2610)
        check("default through Xcode.app with xros",
              default(xcodes, os.path.join(apps, "Xcode.app/Contents/Developer"), apps, need("xros")), x265)
        check("default without the SDK: a failure, not another Xcode",
              failure(default, xcodes, os.path.join(apps, "Xcode_26.4.app"), apps, need("xros")),
              f"the default Xcode, 26.4.1 in {x2641}, has no xros SDK: found 16.4, 26.0.1, 26.2, 26.4.1 (no xros SDK), "
              f"26.5, 26.10, 27.0 (beta) in {apps}")
        check("default unknown with iphoneos: the newest release with it", default(xcodes, None, apps,
                                                                                    need("iphoneos")), x265)
        check("nothing at least 26.6 with iphoneos", failure(oldest_at_least, xcodes, "26.6", apps, need("iphoneos")),
              f"no Xcode ≥ 26.6 with the iphoneos SDK on this runner: found 16.4, 26.0.1, 26.2, 26.4.1, 26.5, "
              f"26.10 (no iphoneos SDK), 27.0 (beta) in {apps}")
        check("nothing with driverkit: each one asked, the unreadable lists said",
              failure(newest, xcodes, apps, need("driverkit")),
              f"no Xcode with the driverkit SDK on this runner: found 16.4 (SDKs unknown), 26.0.1 (no driverkit SDK), "
              f"26.2 (SDKs unknown), 26.4.1 (no driverkit SDK), 26.5 (no driverkit SDK), 26.10 (no driverkit SDK), "
              f"27.0 (beta) in {apps}")
        asked = []

        def counting(path):
            asked.append(os.path.basename(path))
            return fixture_sdks(sdks)(path)
        counted = SdkNeed("iphoneos", counting)
        newest(xcodes, apps, counted)
        default(xcodes, None, apps, counted)
        check("newest first, each bundle asked once, no beta asked", asked, ["Xcode_26.10.app", "Xcode_26.5.app"])
        check("an SDK list that is an object, not a list", failure(newest, xcodes, apps,
                                                                   SdkNeed("iphoneos", lambda path: {"SDKs": []})),
              f"no Xcode with the iphoneos SDK on this runner: found 16.4 (SDKs unknown), 26.0.1 (SDKs unknown), "
              f"26.2 (SDKs unknown), 26.4.1 (SDKs unknown), 26.5 (SDKs unknown), 26.10 (SDKs unknown), 27.0 (beta) "
              f"in {apps}")

        empty = os.path.join(scratch, "Empty")
        os.makedirs(empty)
        command = [sys.executable, os.path.abspath(__file__), "--applications"]

        def run(*arguments):
            return subprocess.run(command + list(arguments), capture_output=True, text=True)
        result = run(apps, "--oldest-at-least", "26.4")
        check("the command prints the path", (result.returncode, result.stdout.strip()), (0, x2641))
        result = run(apps, "--newest")
        check("--newest", (result.returncode, result.stdout.strip()), (0, x2610))
        result = run(apps, "--newest", "--with-sdk", "iphoneos", "--sdks-json", sdks)
        check("--newest --with-sdk iphoneos", (result.returncode, result.stdout.strip()), (0, x265))
        result = run(apps, "--oldest-at-least", "26.4", "--with-sdk", "xros", "--sdks-json", sdks)
        check("--oldest-at-least 26.4 --with-sdk xros", (result.returncode, result.stdout.strip()), (0, x265))
        result = run(apps, "--default", "--with-sdk", "watchos", "--sdks-json", sdks)
        # xcode-select names no Xcode in the fixture's folder (none here; the runner's own on a Mac): the newest.
        check("--default --with-sdk watchos, the default unknown here", (result.returncode, result.stdout.strip()),
              (0, x265))
        result = run(apps, "--oldest-at-least", "27")
        check("the command fails, saying what it found", (result.returncode, result.stdout, result.stderr.splitlines()),
              (1, "", [f"apple-xcode.py: no version in {apps}/Xcode_unreadable.app, left out",
                       f"no Xcode ≥ 27 on this runner: found {found} in {apps}"]))
        result = run(apps, "--oldest-at-least", "26.6", "--with-sdk", "iphoneos", "--sdks-json", sdks)
        check("the command fails when none has the SDK, saying why each was left out",
              (result.returncode, result.stdout, result.stderr.splitlines()),
              (1, "", [f"apple-xcode.py: no version in {apps}/Xcode_unreadable.app, left out",
                       f"apple-xcode.py: Xcode 26.10 in {x2610}: no iphoneos SDK: it lists macosx, left out",
                       f"no Xcode ≥ 26.6 with the iphoneos SDK on this runner: found 16.4, 26.0.1, 26.2, 26.4.1, "
                       f"26.5, 26.10 (no iphoneos SDK), 27.0 (beta) in {apps}"]))
        result = run(empty, "--oldest-at-least", "26.4")
        check("no Xcode at all", (result.returncode, result.stderr.strip()),
              (1, f"no Xcode ≥ 26.4 on this runner: found none in {empty}"))
        result = run(apps, "--newest", "--with-sdk", "visionos")
        check("an SDK platform xcodebuild does not name (visionOS's is xros)", result.returncode, 2)
        result = run(apps, "--list", "--with-sdk", "iphoneos")
        check("--with-sdk without a pick", result.returncode, 2)
        result = run(apps, "--oldest-at-least", "26.four")
        check("not a version", (result.returncode, result.stderr.strip()), (2, "not a version: 26.four"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--oldest-at-least", metavar="VERSION")
    choice.add_argument("--newest", action="store_true")
    choice.add_argument("--default", action="store_true")
    choice.add_argument("--list", action="store_true")
    choice.add_argument("--self-test", action="store_true")
    parser.add_argument("--with-sdk", choices=SDK_PLATFORMS, metavar="PLATFORM",
                        help="only an Xcode listing this SDK: " + ", ".join(SDK_PLATFORMS))
    parser.add_argument("--sdks-json", metavar="DIR", help="DIR/<bundle name>.json instead of xcodebuild -showsdks")
    parser.add_argument("--applications", default="/Applications", metavar="DIR")
    arguments = parser.parse_args()
    if (arguments.list or arguments.self_test) and (arguments.with_sdk or arguments.sdks_json):
        parser.error("--with-sdk and --sdks-json go with a pick: --oldest-at-least, --newest or --default")
    if arguments.sdks_json and not arguments.with_sdk:
        parser.error("--sdks-json goes with --with-sdk")
    if arguments.self_test:
        failures = self_test()
        for failure in failures:
            print("self-test:", failure)
        print(f"apple-xcode.py: {len(failures)} of its picks failed their self-test")
        return 1 if failures else 0
    if arguments.oldest_at_least is not None:
        try:
            version_key(arguments.oldest_at_least)
        except ValueError:
            print(f"not a version: {arguments.oldest_at_least}", file=sys.stderr)
            return 2
    xcodes = installed(arguments.applications)
    need = None
    if arguments.with_sdk:
        need = SdkNeed(arguments.with_sdk, fixture_sdks(arguments.sdks_json) if arguments.sdks_json else showsdks)
    try:
        if arguments.list:
            for version, path, beta in xcodes:
                print(f"{version}{' (beta)' if beta else ''}\t{path}")
            return 0
        if arguments.default:
            print(default(xcodes, selected_developer_directory(), arguments.applications, need))
        elif arguments.newest:
            print(newest(xcodes, arguments.applications, need))
        else:
            print(oldest_at_least(xcodes, arguments.oldest_at_least, arguments.applications, need))
    except NoXcode as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
