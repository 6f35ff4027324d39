import Foundation
import Glibc
import MSAL
import Testing

@Suite("Token cache file: cross-process and cross-thread locking, killed writers")
struct TokenCacheFileConcurrencyTests {
    /// Checks that `text` has exactly the lines `tag i` for every tag and i in 0..<count, each once and in
    /// order per tag; reports lost, duplicated and foreign lines briefly.
    func expectAppends(_ text: String?, tags: [String], count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = text ?? ""
        #expect(text.isEmpty || text.hasSuffix("\n"), "the file does not end with a complete line", sourceLocation: sourceLocation)
        let lines = text.split(separator: "\n").map(String.init)
        let expected = Set(tags.flatMap { tag in (0..<count).map { "\(tag) \($0)" } })
        let counts = Dictionary(lines.map { ($0, 1) }, uniquingKeysWith: +)
        let lost = expected.subtracting(counts.keys).sorted()
        let duplicated = counts.filter { $0.value > 1 }.keys.sorted()
        let foreign = Set(counts.keys).subtracting(expected).sorted()
        #expect(lines.count == expected.count, "\(lines.count) lines, expected \(expected.count)", sourceLocation: sourceLocation)
        #expect(lost.isEmpty, "\(lost.count) updates lost, e.g. \(lost.prefix(5))", sourceLocation: sourceLocation)
        #expect(duplicated.isEmpty, "\(duplicated.count) lines duplicated, e.g. \(duplicated.prefix(5))", sourceLocation: sourceLocation)
        #expect(foreign.isEmpty, "\(foreign.count) unexpected lines, e.g. \(foreign.prefix(5))", sourceLocation: sourceLocation)
        for tag in tags {
            // One writer's lines stay in its own order.
            let own = lines.filter { $0.hasPrefix(tag + " ") }
            let outOfOrder = zip(own, own.dropFirst()).first { pair in
                Int(pair.0.dropFirst(tag.count + 1)).map { $0 + 1 } != Int(pair.1.dropFirst(tag.count + 1))
            }
            #expect(outOfOrder == nil, "\(tag)'s lines out of order at \(String(describing: outOfOrder))", sourceLocation: sourceLocation)
        }
    }

    @Test("Two processes × 1,000 exclusive read-modify-writes: 2,000 lines, none lost or torn")
    func twoProcesses() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let first = try StressWorker.start(["file-append", scratch.file(), "1000", "A"], watchdogSeconds: 300)
        let second = try StressWorker.start(["file-append", scratch.file(), "1000", "B"], watchdogSeconds: 300)
        let outcomes = [await first.finish(), await second.finish()]
        for outcome in outcomes {
            #expect(outcome.status == 0 && !outcome.killedBySignal, "\(outcome.standardError)")
        }
        expectAppends(try TokenCacheFile(path: scratch.file()).get(), tags: ["A", "B"], count: 1_000)
        #expect(scratch.names() == ["token_cache.json", "token_cache.json.lock"])
        #expect(RawFile.mode(scratch.file()) == 0o600)
    }

    @Test("Two processes × 50 read-modify-writes on a disk file system: 100 lines, none lost")
    func twoProcessesOnDisk() async throws {
        let scratch = try ScratchDirectory(onDisk: true)
        defer { scratch.remove() }
        let first = try StressWorker.start(["file-append", scratch.file(), "50", "A"], watchdogSeconds: 300)
        let second = try StressWorker.start(["file-append", scratch.file(), "50", "B"], watchdogSeconds: 300)
        for outcome in [await first.finish(), await second.finish()] {
            #expect(outcome.status == 0 && !outcome.killedBySignal, "\(outcome.standardError)")
        }
        expectAppends(try TokenCacheFile(path: scratch.file()).get(), tags: ["A", "B"], count: 50)
    }

    @Test("Four threads of one process × 100 read-modify-writes: 400 lines, none lost")
    func fourThreads() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let shared = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 120))
        let failures = HookRecorder()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                // Threads 0 and 1 share one TokenCacheFile, 2 and 3 have their own: both must exclude.
                let file = thread < 2 ? shared : try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 120))
                for index in 0..<100 {
                    try file.withLock(exclusive: true) { access in
                        var bytes = try access.read() ?? []
                        bytes += Array("T\(thread) \(index)\n".utf8)
                        _ = try access.write(bytes)
                    }
                }
            } catch {
                failures.calls.withLock { $0.append(("\(error)", nil, nil)) }
            }
        }
        #expect(failures.calls.withLock { $0.map(\.path) } == [])
        expectAppends(try shared.get(), tags: ["T0", "T1", "T2", "T3"], count: 100)
    }

    @Test("A lock held by another process: cacheLockTimeout after the configured wait")
    func lockTimeout() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let holder = try StressWorker.start(["hold-lock", scratch.file()])
        defer { _ = holder.killNow() }
        let locked = await holder.waitForLine("locked")
        try #require(locked, "the worker did not take the lock")
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0.3))
        expectMSALError(.cacheLockTimeout, mentioning: [file.lockPath, "0.3 s"]) { try file.put("x") }
        expectMSALError(.cacheLockTimeout, mentioning: [file.lockPath]) { _ = try file.get() }
        #expect(RawFile.status(scratch.file()) == nil)
    }

    @Test("A lock holder killed with SIGKILL leaves no stale lock: the next lock succeeds on the first try")
    func killedHolder() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0))
        try file.put("before")
        try RawFile.write(file.lockPath, "999999 some-dead-process", mode: 0o600)
        let holder = try StressWorker.start(["hold-lock", scratch.file()])
        let locked = await holder.waitForLine("locked")
        try #require(locked, "the worker did not take the lock")
        expectMSALError(.cacheLockTimeout) { try file.put("while held") }
        let outcome = await holder.kill()
        #expect(outcome.killedBySignal && outcome.status == SIGKILL)
        #expect(RawFile.status(file.lockPath) != nil, "the lock file stays behind")
        try file.put("after")
        #expect(try file.get() == "after")
    }

    @Test("A child forked while the lock is held does not keep it: the lock is released when the access ends")
    func forkedChildDoesNotKeepTheLock() throws {
        // Another thread spawning a process (a browser, a helper) forks while an access holds the lock;
        // until the child execs it holds a copy of the lock's open file description. Here the child
        // never execs, so a lock released only by closing the descriptor would stay held by it.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0))
        var child: pid_t = -1
        defer {
            if child > 0 {
                kill(child, SIGKILL)
                var status: Int32 = 0
                _ = waitpid(child, &status, 0)
            }
        }
        for exclusive in [true, false] {
            try file.withLock(exclusive: exclusive) { _ in
                child = fork()
                if child == 0 {
                    while true { pause() }
                }
            }
            try #require(child > 0, "fork failed: errno \(errno)")
            var status: Int32 = 0
            try #require(waitpid(child, &status, WNOHANG) == 0, "the forked child must still be alive to hold its copy")
            try file.put("after the \(exclusive ? "exclusive" : "shared") access")
            #expect(try file.get() == "after the \(exclusive ? "exclusive" : "shared") access")
            kill(child, SIGKILL)
            _ = waitpid(child, &status, 0)
            child = -1
        }
    }

    @Test("A writer killed after writing its temporary file but before the rename leaves the previous content")
    func killedMidWrite() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0))
        try file.put("previous complete content\n")
        let outcome = try await StressWorker.run(["kill-mid-write", scratch.file(), "the new content\n"])
        #expect(outcome.killedBySignal && outcome.status == SIGKILL, "\(outcome)")
        #expect(try file.get() == "previous complete content\n")
        let leftovers = scratch.names().filter { $0.hasPrefix("token_cache.json.tmp-") }
        try #require(leftovers.count == 1, "\(scratch.names())")
        let leftover = scratch.file(leftovers[0])
        #expect(RawFile.text(leftover) == "the new content\n", "the worker died with its temporary file complete")
        #expect(RawFile.mode(leftover) == 0o600)

        // A fresh leftover is kept by the next write (the age is a safety margin)…
        try file.put("next")
        #expect(RawFile.status(leftover) != nil)
        // …one older than the stale age is removed; other names are left alone.
        try RawFile.setTimes(leftover, seconds: Int(Date().timeIntervalSince1970) - 3_600)
        try RawFile.write(scratch.file("unrelated.tmp-1"), "keep")
        try RawFile.setTimes(scratch.file("unrelated.tmp-1"), seconds: 1)
        try file.put("after cleanup")
        #expect(RawFile.status(leftover) == nil)
        #expect(try file.get() == "after cleanup")
        #expect(scratch.names() == ["token_cache.json", "token_cache.json.lock", "unrelated.tmp-1"])
    }

    @Test("Readers under the shared lock never see a torn file while a process writes")
    func readersDuringWrites() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 120))
        let writer = try StressWorker.start(["file-append", scratch.file(), "300", "W"], watchdogSeconds: 300)
        var reads = 0
        var previousLines = 0
        while writer.child.isRunning || reads == 0 {
            let text = try file.get() ?? ""
            #expect(text.isEmpty || text.hasSuffix("\n"))
            let lines = text.split(separator: "\n")
            #expect(lines.count >= previousLines)
            #expect(lines.map(String.init) == (0..<lines.count).map { "W \($0)" })
            previousLines = lines.count
            reads += 1
        }
        let outcome = await writer.finish()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        expectAppends(try file.get(), tags: ["W"], count: 300)
    }
}
