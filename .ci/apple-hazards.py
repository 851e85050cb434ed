#!/usr/bin/env python3
"""Fails on the hazards a Linux build cannot see: code that compiles here and not for Apple platforms.

Linux builds type-check only the Linux side of every `#if`, link Glibc, and never check `@available`. So a
Glibc-only spelling, `CurlTransport` named outside a Linux branch, an API newer than the package's platform floor,
or a language or Swift Testing feature newer than its tools version passes CI here and breaks the Mac build.

Each rule is one line of data below: the pattern, where it may appear, and why. Run with no arguments to check
Sources/ and Tests/ (exit 1 on any finding); `--self-test` plants every rule's example in a scratch file and checks
that the rule finds it, and that its fixed form passes.

The platform floor (macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1) and the tools version (6.1) are the ones in
Package.swift; the script checks that they still are, so that raising either means revisiting these rules.
"""

import os
import re
import sys
import tempfile

FLOOR = "platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)]"
TOOLS = "// swift-tools-version: 6.1"

# Where a match may stand:
#   linux    only inside an `#if os(Linux)` / `#if canImport(Glibc)` branch (not in its `#else`)
#   guarded  only after an `@available` or `if #available` naming the OS version in `need`, within 20 lines above
#   never    nowhere: newer than the declared tools version
# (kind, pattern, need, reason, example that must be found, the same example fixed)
RULES = [
    ("linux", r"\bSOCK_(STREAM|DGRAM)\.rawValue", None,
     "Glibc imports SOCK_STREAM as an enum, Darwin as an Int32: use a constant picked per platform (Socket.streamType)",
     "let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)", "let fd = socket(AF_INET, Socket.streamType, 0)"),
    ("linux", r"\bMSG_NOSIGNAL\b", None,
     "Darwin has no MSG_NOSIGNAL: set SO_NOSIGPIPE on the socket there (Socket.noSignalFlags)",
     "send(fd, base, count, Int32(MSG_NOSIGNAL))", "send(fd, base, count, Socket.noSignalFlags)"),
    ("linux", r"\btv_usec:\s*Int\(", None,
     "tv_usec is an Int on Glibc and an Int32 (suseconds_t) on Darwin: write .init(...)",
     "timeval(tv_sec: 0, tv_usec: Int(micros))", "timeval(tv_sec: 0, tv_usec: .init(micros))"),
    ("linux", r"\bst_[amc]tim\b", None,
     "Darwin names the stat times st_atimespec, st_mtimespec, st_ctimespec",
     "let modified = status.st_mtim", "#if os(Linux)\nlet modified = status.st_mtim\n#endif"),
    ("linux", r"\bepoll_\w+|\beventfd\(", None,
     "epoll and eventfd exist on Linux only",
     "let poller = epoll_create1(0)", "#if os(Linux)\nlet poller = epoll_create1(0)\n#endif"),
    ("linux", r"\bGlibc\.", None,
     "a call qualified with Glibc does not exist on Darwin",
     "Glibc.close(fd)", "close(fd)"),
    ("linux", r"\bCurlTransport\b", None,
     "CurlTransport exists on Linux only: name it inside #if os(Linux)",
     "let transport = try CurlTransport()", "#if os(Linux)\nlet transport = try CurlTransport()\n#endif"),
    ("guarded", r"\bimport Synchronization\b|\bMutex<|\bAtomic<", "macOS 15",
     "Synchronization (Mutex, Atomic) needs macOS 15 / iOS 18, above the floor: use Locked",
     "let state = Mutex<Int>(0)", "@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)\nlet state = Mutex<Int>(0)"),
    ("guarded", r"@Observable\b|\bimport Observation\b", "macOS 14",
     "Observation needs macOS 14 / iOS 17, above the floor",
     "@Observable final class Model {}", "@available(macOS 14, iOS 17, *)\n@Observable final class Model {}"),
    ("guarded", r"\bString\(validating:", "macOS 15",
     "String(validating:as:) needs macOS 15 / iOS 18, above the floor",
     "let text = String(validating: bytes, as: UTF8.self)",
     "if #available(macOS 15, iOS 18, *) {\nlet text = String(validating: bytes, as: UTF8.self)\n}"),
    ("guarded", r"\bTask\.immediate\b|\bTask\(name:|\bInlineArray\b|\bRawSpan\b|\bMutableSpan\b", "macOS 26",
     "these come with the Swift 6.2 runtime (macOS 26 / iOS 26), far above the floor",
     "Task(name: \"replay\") { }", "Task { }"),
    ("never", r"@concurrent\b|nonisolated\(nonsending\)", None,
     "Swift 6.2 language features: the tools version is 6.1",
     "@concurrent func work() async {}", "func work() async {}"),
    ("never", r"\bprocessExitsWith\b|\bAttachment\.record\b|\bTest\.cancel\(|\bseverity:\s*\.warning", None,
     "Swift Testing features of Swift 6.2 and later (exit tests, attachments, cancellation, warnings): tools 6.1",
     "await #expect(processExitsWith: .failure) { fatalError() }", "#expect(Bool(true))"),
]

CONDITION = re.compile(r"^\s*#(if|elseif)\s+(.*)$")
LINUX_CONDITION = re.compile(r"os\(Linux\)|canImport\(Glibc\)")
APPLE_CONDITION = re.compile(r"(?<!!)(canImport\(Darwin\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\))")
AVAILABLE = re.compile(r"[@#]available\(\s*macOS\s+(\d+)")
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


class Branches:
    """The `#if` branches around a line: whether Apple's compiler never sees it (a Linux branch, or the `#else` of
    an Apple one)."""

    def __init__(self):
        self.frames = []  # per open #if: [this branch is Apple-free, the chain named an Apple condition, condition]

    def step(self, line):
        """Takes a line; returns True if it was a compiler directive."""
        stripped = line.strip()
        match = CONDITION.match(line)
        if match:
            linux = bool(LINUX_CONDITION.search(match.group(2)))
            apple = bool(APPLE_CONDITION.search(match.group(2)))
            if match.group(1) == "if":
                self.frames.append([linux, apple, match.group(2)])
            elif self.frames:
                self.frames[-1] = [linux, self.frames[-1][1] or apple, match.group(2)]
            return True
        if stripped.startswith("#else") and self.frames:
            self.frames[-1][0] = self.frames[-1][1]
            self.frames[-1][2] = "#else"
            return True
        if stripped.startswith("#endif") and self.frames:
            self.frames.pop()
            return True
        return stripped.startswith("#")

    def apple_free(self):
        return any(frame[0] for frame in self.frames)

    def in_linux_section(self):
        """Inside an `#if os(Linux)` branch: a section the other platforms never see at all."""
        return any(frame[0] and "os(Linux)" in frame[2] for frame in self.frames)


def code_lines(text):
    """Yields (line number, code without comments and string contents, whether Apple never compiles it, whether it
    stands in an `#if os(Linux)` section)."""
    branches = Branches()
    for number, line in enumerate(text.splitlines(), 1):
        if branches.step(line) or line.strip().startswith("//"):
            continue
        code = STRING.sub('""', line).split("//")[0]
        yield number, code, branches.apple_free(), branches.in_linux_section()


def guarded(lines, index, need):
    """Whether an @available / #available at or above `need` stands within 20 lines above `index`."""
    needed = int(need.split()[1])
    for line in lines[max(0, index - 20): index + 1]:
        for version in AVAILABLE.findall(line):
            if int(version) >= needed:
                return True
    return False


GLIBC_REASON = ("import Glibc without its Darwin branch: write #if canImport(Glibc) / import Glibc / "
                "#elseif canImport(Darwin) / import Darwin / #endif")


def check_text(text):
    """Every finding in one file's text: (line, what, why)."""
    findings = []
    raw_lines = text.splitlines()
    for number, code, apple_free, linux_section in code_lines(text):
        if code.strip() == "import Glibc" and not linux_section:
            window = [l.strip() for l in raw_lines[max(0, number - 2): number + 2]]
            if window[:1] != ["#if canImport(Glibc)"] or window[2:4] != ["#elseif canImport(Darwin)", "import Darwin"]:
                findings.append((number, "import Glibc", GLIBC_REASON))
        for kind, pattern, need, reason, _, _ in RULES:
            match = re.search(pattern, code)
            if not match or apple_free:
                continue
            if kind == "guarded" and guarded(raw_lines, number - 1, need):
                continue
            findings.append((number, match.group(0), reason))
    return findings


def check_tree(root):
    with open(os.path.join(root, "Package.swift")) as manifest:
        text = manifest.read()
    problems = []
    if not text.startswith(TOOLS):
        problems.append(f"Package.swift: the tools version is no longer the one these rules assume ({TOOLS})")
    if FLOOR not in text:
        problems.append(f"Package.swift: the platform floor is no longer the one these rules assume ({FLOOR})")
    for top in ("Sources", "Tests"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as source:
                    for line, what, why in check_text(source.read()):
                        problems.append(f"{os.path.relpath(path, root)}:{line}: {what}: {why}")
    return problems


def self_test():
    """Each rule finds its example and passes its fixed form; the Glibc import rule likewise."""
    failures = []
    cases = [(rule[4], rule[5], rule[1]) for rule in RULES]
    cases.append(("#if canImport(Glibc)\n    import Glibc\n#endif",
                  "#if canImport(Glibc)\n    import Glibc\n#elseif canImport(Darwin)\n    import Darwin\n#endif",
                  "import Glibc"))
    with tempfile.TemporaryDirectory() as scratch:
        for planted, fixed, name in cases:
            path = os.path.join(scratch, "Planted.swift")
            for text, expected in ((planted, True), (fixed, False)):
                with open(path, "w") as file:
                    file.write(text + "\n")
                with open(path) as file:
                    found = bool(check_text(file.read()))
                if found != expected:
                    failures.append(f"{name}: {'missed' if expected else 'wrongly flagged'}: {text!r}")
                else:
                    print(f"{'found ' if expected else 'passed'} {name:<60.60} in {text.splitlines()[-1][:60]!r}")
    return failures


def main():
    if sys.argv[1:] == ["--self-test"]:
        failures = self_test()
        for failure in failures:
            print("self-test:", failure)
        print(f"{len(RULES) + 1} rules, {len(failures)} failed their self-test")
        return 1 if failures else 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check_tree(root)
    for problem in problems:
        print(problem)
    print(f"Apple hazards: {len(problems)} found in Sources/ and Tests/ ({len(RULES) + 1} rules)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
