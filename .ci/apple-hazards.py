#!/usr/bin/env python3
"""Fails on the hazards a Linux build cannot see: code that compiles here and not for Apple platforms, and what
only a Mac would run into.

Linux builds type-check only the Linux side of every `#if`, link Glibc, and never check `@available`. So a
Glibc-only spelling, `CurlTransport`, `Process` or an exit test named outside a branch that Apple's mobile platforms
never compile, or an API newer than the package's platform floor, passes CI here and breaks the Mac build. A
background session configuration in the library, or a URLSession delegate method that can return without calling its
completion handler, builds everywhere and fails only at run time; a workflow that names an Xcode by its path fails
the day the runner image drops that Xcode, and one that downloads a platform at run time fails for the network's
reasons.

Each rule is one line of data below: the pattern, where it may appear, and why; two rules that need more than a
pattern (the Glibc import, the delegate's completion handler) are checked by code, with their examples next to
them. Run with no arguments to check Sources/ and Tests/ (Swift), and .github/ and .ci/ (the workflows and CI
scripts; exit 1 on any finding); `--self-test` plants every rule's example in a scratch file and checks that the
rule finds it, and that its fixed form passes.

The platform floor (macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1) and the tools version (6.3) are the ones in
Package.swift; the script checks that they still are, so that raising either means revisiting these rules.
"""

import os
import re
import sys
import tempfile

FLOOR = "platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)]"
TOOLS = "// swift-tools-version: 6.3"

# Where a match may stand:
#   linux    only inside an `#if os(Linux)` / `#if canImport(Glibc)` branch (not in its `#else`)
#   unix     only inside a branch that only macOS or Linux compile: `#if os(macOS) || os(Linux)` (either order),
#            `#if os(macOS)`, `#if os(Linux)`, `#if canImport(FoundationNetworking)`, or a linux branch
#   guarded  only after an `@available` or `if #available` naming the OS version in `need`, within 20 lines above
#   never    nowhere: newer than the declared tools version (no rule at tools 6.3: Swift 6.2's language and Swift
#            Testing features are older; the kind waits for those of a Swift newer than the tools version)
#   tests    only under Tests/, never in the library (Sources/)
#   ci       nowhere in the workflows and CI scripts (.github/**/*.yml, .ci/*; this file, whose examples name what
#            it looks for, excepted); whole-line comments there are not read
# The first five look at the Swift code of Sources/ and Tests/, comments and string contents left out.
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
    ("unix", r"\bprocessExitsWith\b", None,
     "an exit test runs only where the test process can start a copy of itself: macOS and Linux (Swift Testing marks "
     "exit tests unavailable on iOS, tvOS, watchOS and visionOS): write it inside #if os(macOS) || os(Linux)",
     "await #expect(processExitsWith: .failure) { fatalError() }",
     "#if os(macOS) || os(Linux)\nawait #expect(processExitsWith: .failure) { fatalError() }\n#endif"),
    ("unix", r"\bProcess\b", None,
     "Foundation's Process exists on macOS and Linux only (iOS, tvOS, watchOS, visionOS have none): name it inside "
     "#if os(macOS) || os(Linux)",
     "let process = Process()", "#if os(macOS) || os(Linux)\nlet process = Process()\n#endif"),
    ("tests", r"\bURLSessionConfiguration\.background\(|\.background\(withIdentifier:|"
              r"\bbackgroundSessionConfiguration\(", None,
     "a background session supports neither data tasks nor in-memory or streamed uploads: the first send would "
     "crash, and URLSessionTransport refuses such a configuration at init (tests build one to prove it)",
     "let configuration = URLSessionConfiguration.background(withIdentifier: \"uploads\")",
     "let configuration = URLSessionConfiguration.default"),
    ("ci", r"/Applications/Xcode[-_0-9]", None,
     "runner images add and drop Xcodes: pick one by version with .ci/apple-xcode.py, never by its path",
     "run: sudo xcode-select -s /Applications/Xcode_26.4.app",
     "run: sudo xcode-select -s \"$(python3 .ci/apple-xcode.py --oldest-at-least 26.4)\""),
    ("ci", r"-downloadPlatform|-downloadAllPlatforms|xcodes runtimes install|simctl runtime add", None,
     "no step downloads a platform or a simulator runtime: they are the runner image's to install, and a download "
     "at run time fails the job for the network's reasons and hides which Xcode lacks what; pick an Xcode that has "
     "it (.ci/apple-xcode.py --with-sdk)",
     "run: sudo xcodebuild -downloadPlatform iOS",
     "run: sudo xcode-select -s \"$(python3 .ci/apple-xcode.py --newest --with-sdk iphoneos)\""),
]

CONDITION = re.compile(r"^\s*#(if|elseif)\s+(.*)$")
# The compiler directives that open, switch or close a branch, or stand alone; `#expect(`, `#require(` and other
# macros are code.
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif|error|warning|sourceLocation)\b")
LINUX_CONDITION = re.compile(r"os\(Linux\)|canImport\(Glibc\)")
APPLE_CONDITION = re.compile(r"(?<!!)(canImport\(Darwin\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\))")
APPLE_PLATFORMS = {"macOS", "iOS", "tvOS", "watchOS", "visionOS"}
# A term of an `||` that only macOS or Linux compile.
UNIX_TERM = re.compile(r"(?<!!)(os\((macOS|Linux)\)|canImport\((FoundationNetworking|Glibc)\))")
AVAILABLE = re.compile(r"[@#]available\(\s*macOS\s+(\d+)")
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def apple_platforms(condition):
    """The Apple platforms a condition names (`canImport(Darwin)` names them all)."""
    named = set()
    for match in APPLE_CONDITION.finditer(condition):
        named |= APPLE_PLATFORMS if match.group(1) == "canImport(Darwin)" else {match.group(2)}
    return named


def unix_only(condition):
    """Whether only macOS or Linux compile a branch with this condition: every `||` term names one of them."""
    terms = condition.split("//")[0].split("||")
    return all(UNIX_TERM.search(term) for term in terms)


class Branches:
    """The `#if` branches around a line: whether Apple's compiler never sees it (a Linux branch, or the `#else` of
    an Apple one), and whether only macOS or Linux compile it."""

    def __init__(self):
        # per open #if: [this branch is Apple-free, the Apple platforms the chain's conditions named, condition,
        #                only macOS or Linux compile this branch]
        self.frames = []

    def step(self, line):
        """Takes a line; returns True if it was a compiler directive."""
        stripped = line.strip()
        match = CONDITION.match(line)
        if match:
            linux = bool(LINUX_CONDITION.search(match.group(2)))
            apple = apple_platforms(match.group(2))
            unix = unix_only(match.group(2))
            if match.group(1) == "if":
                self.frames.append([linux, apple, match.group(2), unix])
            elif self.frames:
                self.frames[-1] = [linux, self.frames[-1][1] | apple, match.group(2), unix]
            return True
        if stripped.startswith("#else") and self.frames:
            # Apple-free only once the chain has named every Apple platform: the #else of `#if os(macOS)` is iOS's.
            self.frames[-1][0] = self.frames[-1][1] >= APPLE_PLATFORMS
            self.frames[-1][2] = "#else"
            self.frames[-1][3] = False  # what no condition named, iOS among it
            return True
        if stripped.startswith("#endif") and self.frames:
            self.frames.pop()
            return True
        return bool(DIRECTIVE.match(line))

    def apple_free(self):
        return any(frame[0] for frame in self.frames)

    def macos_or_linux_only(self):
        """Inside a branch that iOS, tvOS, watchOS and visionOS never compile: a Linux one, or one whose condition
        names only macOS or Linux. What only those two have (Process) may stand there."""
        return any(frame[0] or frame[3] for frame in self.frames)

    def in_linux_section(self):
        """Inside an `#if os(Linux)` branch: a section the other platforms never see at all."""
        return any(frame[0] and "os(Linux)" in frame[2] for frame in self.frames)


def code_lines(text):
    """Yields (line number, code without comments and string contents, branches around it)."""
    branches = Branches()
    for number, line in enumerate(text.splitlines(), 1):
        if branches.step(line) or line.strip().startswith("//"):
            continue
        code = STRING.sub('""', line).split("//")[0]
        yield number, code, branches


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


def allowed(kind, path, branches):
    """Whether a match of a rule of this kind may stand here."""
    if kind == "linux":
        return branches.apple_free()
    if kind == "unix":
        return branches.macos_or_linux_only()
    if kind == "tests":
        return path.startswith("Tests/")
    return branches.apple_free()  # guarded, never: the Linux side is not Apple's to compile


def check_swift(text, path):
    """Every finding in one Swift file's text: (line, what, why)."""
    findings = []
    raw_lines = text.splitlines()
    for number, code, branches in code_lines(text):
        if code.strip() == "import Glibc" and not branches.in_linux_section():
            window = [l.strip() for l in raw_lines[max(0, number - 2): number + 2]]
            if window[:1] != ["#if canImport(Glibc)"] or window[2:4] != ["#elseif canImport(Darwin)", "import Darwin"]:
                findings.append((number, "import Glibc", GLIBC_REASON))
        for kind, pattern, need, reason, _, _ in RULES:
            if kind == "ci":
                continue
            match = re.search(pattern, code)
            if not match or allowed(kind, path, branches):
                continue
            if kind == "guarded" and guarded(raw_lines, number - 1, need):
                continue
            findings.append((number, match.group(0), reason))
    if path.startswith("Sources/"):
        findings += unanswered_completion_handlers(text)
    return findings


def check_ci(text):
    """Every finding in one workflow or CI script: (line, what, why)."""
    findings = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for kind, pattern, _, reason, _, _ in RULES:
            match = re.search(pattern, line) if kind == "ci" else None
            if match:
                findings.append((number, match.group(0), reason))
    return findings


def check_text(text, path):
    """Every finding in one file, by where it stands (a path relative to the package): (line, what, why)."""
    if path.endswith(".swift"):
        return check_swift(text, path)
    return check_ci(text)


# A URLSession delegate method that can return without calling its completion handler.
#
# URLSession waits for the handler: a task whose redirect, challenge or response handler is never called stalls
# (Apple's and FoundationNetworking alike), and its send waits for its deadline. For each `func urlSession(` taking an escaping
# `completionHandler`, the body is found by brace matching and flagged if it never calls (or hands on) the handler,
# or if a `return` of the method itself (not of a closure inside it) is neither `return completionHandler(…)` nor
# preceded by a call that every path to it has made: one in the same block as the return or in a block around it.
HANDLER_REASON = ("a URLSession delegate method that returns without calling its completion handler stalls the "
                  "task: call the handler on every path (return completionHandler(...))")
HANDLER_EXAMPLE = """func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
) {
    if task is URLSessionWebSocketTask { return completionHandler(nil) }
    guard let state = tasks.withLock({ $0[task.taskIdentifier]?.state }) else { return }
    state.withLock { state in
        if !state.hasEnded { completionHandler(nil) }
    }
}"""
HANDLER_FIXED = HANDLER_EXAMPLE.replace("else { return }", "else { return completionHandler(nil) }")
DELEGATE_METHOD = re.compile(r"\bfunc\s+urlSession\s*\(")
HANDLER_PARAMETER = re.compile(r"\bcompletionHandler(?:\s+(\w+))?\s*:\s*(?:@\w+(?:\([^)]*\))?\s+)*@escaping\b")
CONTROL_WORDS = {"if", "guard", "else", "for", "while", "switch", "do", "catch", "repeat", "defer"}


def strip_swift(text):
    """The text with comments and the contents of string literals blanked (newlines kept, so offsets and lines
    stay), and each compiler directive's line turned into a statement boundary; returns it with the directives as
    (offset, `if`/`elseif`/`else`/`endif`)."""
    out, index, length = [], 0, len(text)
    while index < length:
        if text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end < 0 else end
            out.append(" " * (end - index))
            index = end
        elif text.startswith("/*", index):
            depth, cursor = 0, index
            while cursor < length:
                if text.startswith("/*", cursor):
                    depth, cursor = depth + 1, cursor + 2
                elif text.startswith("*/", cursor):
                    depth, cursor = depth - 1, cursor + 2
                    if depth == 0:
                        break
                else:
                    cursor += 1
            out.append("".join(c if c == "\n" else " " for c in text[index:cursor]))
            index = cursor
        elif text.startswith('"""', index):
            end = text.find('"""', index + 3)
            end = length if end < 0 else end + 3
            out.append('""' + "".join(c if c == "\n" else " " for c in text[index + 2:end]))
            index = end
        elif text[index] == '"':
            cursor = index + 1
            while cursor < length and text[cursor] not in '"\n':
                cursor += 2 if text[cursor] == "\\" else 1
            closed = cursor < length and text[cursor] == '"'
            end = cursor + 1 if closed else min(cursor, length)
            out.append('"' + " " * (end - index - 2) + '"' if closed else '"' + " " * (end - index - 1))
            index = end
        else:
            out.append(text[index])
            index += 1
    code = "".join(out)
    directives, lines, offset = [], code.split("\n"), 0
    for number, line in enumerate(lines):
        match = DIRECTIVE.match(line)
        if match and match.group(1) in ("if", "elseif", "else", "endif"):
            directives.append((offset, match.group(1)))
            lines[number] = ";" + " " * (len(line) - 1) if line else line
        offset += len(line) + 1
    return "\n".join(lines), directives


def matching(code, index, opening, closing):
    """The offset of the bracket closing the one at `index`, or -1."""
    depth = 0
    for cursor in range(index, len(code)):
        if code[cursor] == opening:
            depth += 1
        elif code[cursor] == closing:
            depth -= 1
            if depth == 0:
                return cursor
    return -1


def opens_closure(code, index, floor):
    """Whether the `{` at `index` opens a closure (or a nested function), whose `return` leaves only itself, rather
    than the block of an `if`, `guard … else`, `for`, `switch`, `do` … : the words of its statement, read backwards
    over balanced parentheses to the previous `{`, `}` or `;`, name no such keyword. A `{` inside parentheses or
    brackets is an argument: a closure."""
    cursor, words, word = index - 1, [], ""
    while cursor > floor:
        char = code[cursor]
        if char in ")]":
            depth, pair = 0, {")": "(", "]": "["}[char]
            while cursor > floor:
                if code[cursor] == char:
                    depth += 1
                elif code[cursor] == pair:
                    depth -= 1
                    if depth == 0:
                        break
                cursor -= 1
        elif char in "([":
            return True
        elif char in "{};":
            break
        if char.isalnum() or char == "_":
            word = char + word
        elif word:
            words.append(word)
            word = ""
        cursor -= 1
    if word:
        words.append(word)
    return not CONTROL_WORDS.intersection(words)


def line_of(code, offset):
    return code.count("\n", 0, offset) + 1


def unanswered_completion_handlers(text):
    """Every delegate method of a Swift file that can return without calling its completion handler."""
    code, directives = strip_swift(text)
    findings = []
    for method in DELEGATE_METHOD.finditer(code):
        parameters_end = matching(code, method.end() - 1, "(", ")")
        parameter = HANDLER_PARAMETER.search(code, method.end(), parameters_end) if parameters_end > 0 else None
        body = code.find("{", parameters_end) if parameter else -1
        end = matching(code, body, "{", "}") if body >= 0 else -1
        if end < 0:
            continue
        handler = parameter.group(1) or "completionHandler"
        call = re.compile(r"\b%s\s*\(|[(,:]\s*%s\s*[,)]" % (handler, handler))
        answered_in = []  # the block paths (outside closures) where a call has been made, in order
        called = False
        stack, next_id = [], 0
        inside = code[body + 1:end]
        stream = [(offset, 0, "directive", kind) for offset, kind in directives if body < offset < end]
        stream += [(body + 1 + m.start(), 0, "brace", m.group(0)) for m in re.finditer(r"[{}]", inside)]
        stream += [(body + 1 + m.start(), 1, "token", m) for m in re.finditer(r"\breturn\b|" + call.pattern, inside)]
        stream.sort(key=lambda item: item[:2])
        for offset, _, what, detail in stream:
            if what == "directive":
                if detail in ("elseif", "else", "endif"):
                    while stack and stack.pop()[1] != "directive":
                        pass
                if detail != "endif":
                    next_id += 1
                    stack.append((next_id, "directive"))
                continue
            if what == "brace":
                if detail == "{":
                    next_id += 1
                    stack.append((next_id, "closure" if opens_closure(code, offset, body) else "block"))
                elif stack:
                    stack.pop()
                continue
            in_method = all(kind != "closure" for _, kind in stack)
            path = tuple(block for block, _ in stack)
            if detail.group(0) != "return":
                called = True
                if in_method:
                    answered_in.append(path)
                continue
            if not in_method:
                continue
            if re.match(r"return\s+%s\s*\(" % handler, code[offset:end]):
                continue
            if not any(path[:len(answered)] == answered for answered in answered_in):
                findings.append((line_of(code, offset), "return without calling %s" % handler, HANDLER_REASON))
        if not called:
            findings.append((line_of(code, method.start()), "%s never called" % handler, HANDLER_REASON))
    return findings


def ci_files(root):
    """The workflows and CI scripts, relative to the package: .github/**/*.yml and every file in .ci/ but this."""
    paths = []
    for folder, _, files in os.walk(os.path.join(root, ".github")):
        paths += [os.path.join(folder, name) for name in files if name.endswith((".yml", ".yaml"))]
    ci = os.path.join(root, ".ci")
    if os.path.isdir(ci):
        paths += [os.path.join(ci, name) for name in os.listdir(ci)
                  if os.path.isfile(os.path.join(ci, name)) and name != os.path.basename(__file__)]
    return sorted(os.path.relpath(path, root) for path in paths)


def check_tree(root):
    with open(os.path.join(root, "Package.swift")) as manifest:
        text = manifest.read()
    problems = []
    if not text.startswith(TOOLS):
        problems.append(f"Package.swift: the tools version is no longer the one these rules assume ({TOOLS})")
    if FLOOR not in text:
        problems.append(f"Package.swift: the platform floor is no longer the one these rules assume ({FLOOR})")
    paths = []
    for top in ("Sources", "Tests"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            paths += [os.path.relpath(os.path.join(folder, name), root) for name in files if name.endswith(".swift")]
    for path in sorted(paths) + ci_files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as source:
            for line, what, why in check_text(source.read(), path):
                problems.append(f"{path}:{line}: {what}: {why}")
    return problems


# Beyond each rule's example: where a rule must stay quiet, and the shapes the delegate rule must tell apart.
# (text, where it is planted, whether it must be found, what it shows)
SCOPE_CASES = [
    ("#if os(Linux) || os(macOS)\nlet process = Process()\n#endif", "Tests/Planted.swift", False,
     "Process under os(Linux) || os(macOS)"),
    ("#if os(macOS)\nlet process = Process()\n#endif", "Tests/Planted.swift", False, "Process under os(macOS)"),
    ("#if os(Linux)\nlet process = Process()\n#endif", "Tests/Planted.swift", False, "Process under os(Linux)"),
    ("#if canImport(FoundationNetworking)\nlet process = Process()\n#endif", "Tests/Planted.swift", False,
     "Process under canImport(FoundationNetworking)"),
    ("#if os(macOS) || os(Linux)\nlet ok = 1\n#else\nlet process = Process()\n#endif", "Tests/Planted.swift", True,
     "Process in the #else of os(macOS) || os(Linux)"),
    ("#if os(macOS) || os(iOS)\nlet process = Process()\n#endif", "Tests/Planted.swift", True,
     "Process under os(macOS) || os(iOS)"),
    ("#if canImport(Darwin)\nlet process = Process()\n#endif", "Tests/Planted.swift", True,
     "Process under canImport(Darwin)"),
    ("#if os(macOS)\nlet ok = 1\n#else\nlet transport = try CurlTransport()\n#endif", "Tests/Planted.swift", True,
     "CurlTransport in the #else of os(macOS): iOS compiles it"),
    ("#if canImport(Darwin)\nlet ok = 1\n#else\nlet transport = try CurlTransport()\n#endif", "Tests/Planted.swift",
     False, "CurlTransport in the #else of canImport(Darwin)"),
    ("func run(_ process: Process) {}", "Sources/Planted.swift", True, "Process as a parameter type"),
    ("let processes: [Process] = []", "Sources/Planted.swift", True, "[Process]"),
    ("let id = ProcessInfo.processInfo.processIdentifier\nlet processed = Processed()", "Sources/Planted.swift",
     False, "ProcessInfo, Processed"),
    ('// a Process would do\nlet label = "Process()"', "Sources/Planted.swift", False,
     "Process in a comment, a string"),
    ('#expect(String(validating: bytes, as: UTF8.self) == "a")', "Tests/Planted.swift", True,
     "a hazard inside #expect( is code"),
    ('let configuration = URLSessionConfiguration.background(withIdentifier: "uploads")', "Tests/Planted.swift",
     False, "a background configuration in Tests/"),
    ("let configuration: URLSessionConfiguration = .background(withIdentifier: id)", "Sources/Planted.swift", True,
     ".background(withIdentifier:"),
    ("request.networkServiceType = .background", "Sources/Planted.swift", False, "networkServiceType .background"),
    ("run: sudo xcode-select -s /Applications/Xcode-26.app", ".ci/planted.sh", True, "Xcode-26.app in .ci/"),
    ("for app in /Applications/Xcode*.app; do echo $app; done", ".ci/planted.sh", False, "a glob of the Xcodes"),
    ("# not /Applications/Xcode_26.4.app: picked by version", ".github/workflows/planted.yml", False,
     "a whole-line comment"),
    ('xcrun simctl runtime add "$RUNNER_TEMP/iOS_26.4_Simulator_Runtime.dmg"', ".ci/planted.sh", True,
     "a runtime added in .ci/"),
    ("run: sudo xcodebuild -downloadAllPlatforms", ".github/workflows/planted.yml", True, "every platform downloaded"),
    ("        xcodes runtimes install 'iOS 26.4'", ".github/workflows/planted.yml", True, "a runtime through xcodes"),
    ("# never xcodebuild -downloadPlatform here: the image's to install", ".github/workflows/planted.yml", False,
     "a download named in a whole-line comment"),
    ("#if os(macOS)\nawait #expect(processExitsWith: .failure) { fatalError() }\n#endif", "Tests/Planted.swift",
     False, "an exit test under os(macOS)"),
    ("#if canImport(Darwin)\nawait #expect(processExitsWith: .failure) { fatalError() }\n#endif",
     "Tests/Planted.swift", True, "an exit test under canImport(Darwin): iOS compiles it"),
    ('Attachment.record(body, named: "body.json")\ntry Test.cancel("no network here")\n'
     'Issue.record("slow", severity: .warning)', "Tests/Planted.swift", False,
     "attachments, cancellation, warnings: Swift Testing has them at tools 6.3"),
    ("nonisolated(nonsending) func send() async {}\n@concurrent func decode() async {}", "Sources/Planted.swift",
     False, "Swift 6.2's language features at tools 6.3"),
    (HANDLER_EXAMPLE, "Tests/Planted.swift", False, "the delegate rule reads Sources/ only"),
    ("""func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
    print(response)
}""", "Sources/Planted.swift", True, "a handler never called"),
    ("""func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
    if response.expectedContentLength > limit { completionHandler(.cancel) }
    if streamed { return }
    completionHandler(.allow)
}""", "Sources/Planted.swift", True, "a return after a call made on one path only"),
    ("""func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
    completionHandler(.allow)
    if handlesStreamedHead(response) { return }
    let oversized = tasks.withLock { tasks -> Int? in
        guard response.expectedContentLength > limit else { return nil }
        return 1
    }
    guard let oversized else { return }
    end(oversized)
}""", "Sources/Planted.swift", False, "returns after the call, and returns of a closure"),
    ("""func urlSession(_ session: URLSession, task: URLSessionTask,
    needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
    guard let upload = uploads[task.taskIdentifier] else {
        completionHandler(nil)
        return
    }
    completionHandler(upload.makeBodyStream())
}""", "Sources/Planted.swift", False, "a labelled handler, called then return"),
    ("""func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler handler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
    guard let trust = challenge.protectionSpace.serverTrust else { return handler(.performDefaultHandling, nil) }
    #if canImport(FoundationNetworking)
        handler(.performDefaultHandling, nil)
    #else
        ServerTrust.evaluate(trust, completion: handler)
    #endif
}""", "Sources/Planted.swift", False, "a handler named otherwise, handed on"),
    ("""func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
    #if canImport(FoundationNetworking)
        completionHandler(.cancelAuthenticationChallenge, nil)
    #else
        if refused { return }
        completionHandler(.performDefaultHandling, nil)
    #endif
}""", "Sources/Planted.swift", True, "a call in one #if branch, a bare return in the other"),
]


def self_test():
    """Each rule finds its example and passes its fixed form; the Glibc import and delegate rules likewise; the
    scope cases hold."""
    failures = []
    cases = [(rule[4], rule[5], rule[1], ".github/workflows/planted.yml" if rule[0] == "ci" else
              "Sources/Planted.swift") for rule in RULES]
    cases.append(("#if canImport(Glibc)\n    import Glibc\n#endif",
                  "#if canImport(Glibc)\n    import Glibc\n#elseif canImport(Darwin)\n    import Darwin\n#endif",
                  "import Glibc", "Sources/Planted.swift"))
    cases.append((HANDLER_EXAMPLE, HANDLER_FIXED, "a delegate method returning before its completion handler",
                  "Sources/Planted.swift"))
    checks = [(planted, path, True, name) for planted, _, name, path in cases]
    checks += [(fixed, path, False, name) for _, fixed, name, path in cases]
    checks += SCOPE_CASES
    with tempfile.TemporaryDirectory() as scratch:
        for text, where, expected, name in checks:
            path = os.path.join(scratch, where)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as file:
                file.write(text + "\n")
            with open(path) as file:
                found = bool(check_text(file.read(), where))
            lines = text.splitlines()
            shown = f"{where}: {(lines[0] if text.startswith('func') else lines[-1])[:50]!r}"
            if found != expected:
                failures.append(f"{name}: {'missed' if expected else 'wrongly flagged'}: {text!r}")
            else:
                print(f"{'found ' if expected else 'passed'} {name:<60.60} in {shown}")
    return failures


RULE_COUNT = len(RULES) + 2  # and the Glibc import, the delegate's completion handler


def main():
    if sys.argv[1:] == ["--self-test"]:
        failures = self_test()
        for failure in failures:
            print("self-test:", failure)
        print(f"{RULE_COUNT} rules, {len(failures)} failed their self-test")
        return 1 if failures else 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check_tree(root)
    for problem in problems:
        print(problem)
    print(f"Apple hazards: {len(problems)} found in Sources/, Tests/, .github/ and .ci/ ({RULE_COUNT} rules)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
