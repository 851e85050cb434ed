#!/usr/bin/env python3
"""Prints the UDID of an iPhone simulator to test on: the first iPhone of the newest iOS runtime.

Reads `xcrun simctl list devices available --json` ({"devices": {"com.apple.CoreSimulator.SimRuntime.iOS-26-4":
[{"name", "udid", "isAvailable", ...}]}}), compares runtimes as numbers (iOS 26.10 is newer than 26.4) and takes the
first iPhone, in simctl's order, of the newest runtime that has one.

`--sdk-version X.Y` (the selected Xcode's, `xcrun --sdk iphonesimulator --show-sdk-version`) leaves out runtimes
newer than that SDK: simulator runtimes are shared by every Xcode on the machine, and an image that carries Xcode 26.5
next to Xcode 26.4 lists iOS 26.5 simulators that Xcode 26.4 cannot run. Older runtimes stay in: an Xcode runs them,
and an image need not install one for each of its Xcodes.

    apple-simulator.py [--sdk-version 26.4] [--json FILE]   FILE instead of running simctl (`-` for stdin)
    apple-simulator.py --self-test                          checks the pick on a fixture

Exits 1, saying which runtimes it saw, when no iPhone fits. The pick is told on stderr, the UDID alone on stdout.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

RUNTIME = re.compile(r"\.SimRuntime\.iOS-(\d+(?:-\d+)*)$")


class NoSimulator(Exception):
    pass


def version_key(version):
    parts = [int(part) for part in re.split(r"[.-]", version)]
    return tuple(parts + [0] * (3 - len(parts)))


def runtimes(listing):
    """The iOS runtimes and their available iPhones: [(version, [device])], newest first."""
    found = []
    for identifier, devices in listing.get("devices", {}).items():
        match = RUNTIME.search(identifier)
        if not match:
            continue
        iphones = [device for device in devices
                   if device.get("isAvailable", True) and device.get("name", "").startswith("iPhone")
                   and device.get("udid")]
        found.append((match.group(1).replace("-", "."), iphones))
    return sorted(found, key=lambda runtime: version_key(runtime[0]), reverse=True)


def pick(listing, sdk_version=None):
    """(runtime version, device) of the first iPhone of the newest iOS runtime not newer than the SDK."""
    seen = runtimes(listing)
    ceiling = version_key(sdk_version)[:2] if sdk_version else None
    for version, iphones in seen:
        if ceiling and version_key(version)[:2] > ceiling:
            continue
        if iphones:
            return version, iphones[0]
    saw = ", ".join(f"iOS {version} ({len(iphones)} iPhone{'' if len(iphones) == 1 else 's'})"
                    for version, iphones in seen) or "no iOS runtime"
    limit = f" not newer than the iOS {sdk_version} SDK" if sdk_version else ""
    raise NoSimulator(f"no available iPhone simulator on an iOS runtime{limit}: simctl lists {saw}")


FIXTURE = {
    "devices": {
        "com.apple.CoreSimulator.SimRuntime.tvOS-18-5": [
            {"name": "Apple TV", "udid": "TV-18-5", "isAvailable": True, "state": "Shutdown"}],
        "com.apple.CoreSimulator.SimRuntime.iOS-18-5": [
            {"name": "iPad (A16)", "udid": "IPAD-18-5", "isAvailable": True, "state": "Shutdown"},
            {"name": "iPhone 16 Pro", "udid": "IPHONE-16-PRO-18-5", "isAvailable": True, "state": "Shutdown"},
            {"name": "iPhone 16", "udid": "IPHONE-16-18-5", "isAvailable": True, "state": "Shutdown"}],
        "com.apple.CoreSimulator.SimRuntime.iOS-18-10": [
            {"name": "iPhone 16e", "udid": "IPHONE-16E-18-10", "isAvailable": False,
             "availabilityError": "runtime profile not found", "state": "Shutdown"},
            {"name": "iPhone 16", "udid": "IPHONE-16-18-10", "isAvailable": True, "state": "Shutdown"}],
        "com.apple.CoreSimulator.SimRuntime.iOS-26-2": [
            {"name": "iPhone 17 Pro", "udid": "IPHONE-17-PRO-26-2", "isAvailable": True, "state": "Shutdown"}],
        "com.apple.CoreSimulator.SimRuntime.iOS-26-3": [
            {"name": "iPad Pro 13-inch (M5)", "udid": "IPAD-26-3", "isAvailable": True, "state": "Shutdown"}],
        "com.apple.CoreSimulator.SimRuntime.watchOS-26-2": [],
    }
}


def self_test():
    failures = []

    def check(name, got, expected):
        if got == expected:
            print(f"passed {name}: {got}")
        else:
            failures.append(f"{name}: expected {expected!r}, got {got!r}")

    def udid(listing, sdk_version=None):
        try:
            return pick(listing, sdk_version)[1]["udid"]
        except NoSimulator as error:
            return str(error)

    check("the newest runtime with an iPhone (26.3 has only an iPad)", udid(FIXTURE), "IPHONE-17-PRO-26-2")
    check("an 18.5 SDK: 18.5's first iPhone, not its iPad, not 18.10's", udid(FIXTURE, "18.5"), "IPHONE-16-PRO-18-5")
    check("an 18.10 SDK: 18.10 is newer than 18.5, its unavailable iPhone skipped", udid(FIXTURE, "18.10"),
          "IPHONE-16-18-10")
    check("a 26.2.1 SDK takes 26.2", udid(FIXTURE, "26.2.1"), "IPHONE-17-PRO-26-2")
    check("an SDK older than every runtime", udid(FIXTURE, "17.0"),
          "no available iPhone simulator on an iOS runtime not newer than the iOS 17.0 SDK: simctl lists "
          "iOS 26.3 (0 iPhones), iOS 26.2 (1 iPhone), iOS 18.10 (1 iPhone), iOS 18.5 (2 iPhones)")
    check("no iOS runtime", udid({"devices": {"com.apple.CoreSimulator.SimRuntime.tvOS-18-5": []}}),
          "no available iPhone simulator on an iOS runtime: simctl lists no iOS runtime")
    with tempfile.TemporaryDirectory() as scratch:
        fixture = os.path.join(scratch, "devices.json")
        with open(fixture, "w") as file:
            json.dump(FIXTURE, file, indent=2)
        command = [sys.executable, os.path.abspath(__file__), "--json", fixture]
        run = subprocess.run(command + ["--sdk-version", "18.5"], capture_output=True, text=True)
        check("the command prints the UDID alone", (run.returncode, run.stdout), (0, "IPHONE-16-PRO-18-5\n"))
        run = subprocess.run(command + ["--sdk-version", "17.0"], capture_output=True, text=True)
        check("the command fails, saying what it saw",
              (run.returncode, run.stdout, "iOS 18.5 (2 iPhones)" in run.stderr), (1, "", True))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdk-version", metavar="X.Y")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        failures = self_test()
        for failure in failures:
            print("self-test:", failure)
        print(f"apple-simulator.py: {len(failures)} of its picks failed their self-test")
        return 1 if failures else 0
    if arguments.json == "-":
        listing = json.load(sys.stdin)
    elif arguments.json:
        with open(arguments.json) as file:
            listing = json.load(file)
    else:
        listing = json.loads(subprocess.run(["xcrun", "simctl", "list", "devices", "available", "--json"],
                                            capture_output=True, text=True, check=True).stdout)
    try:
        version, device = pick(listing, arguments.sdk_version)
    except NoSimulator as error:
        print(error, file=sys.stderr)
        return 1
    print(f"apple-simulator.py: {device['name']}, iOS {version}, {device['udid']}", file=sys.stderr)
    print(device["udid"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
