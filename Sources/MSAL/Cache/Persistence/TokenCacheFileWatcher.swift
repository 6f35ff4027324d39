import Foundation
import MSALSupport

#if canImport(Glibc)
import Glibc
#endif

/// Sees changes to cache files through `inotify`, so a read answered from memory needs no system
/// call to know that no process has changed the file since it was read.
///
/// One `inotify` instance and one thread for the process, started by the first watch: the thread
/// waits in `read` for the kernel's events on the watched directories and moves a watched file's
/// ``Generation`` on when its name is written, renamed over, created, removed or has its
/// attributes changed. A reader that finds the generation where it was when the contents in memory
/// last matched the file answers from memory; otherwise it takes the `lstat` path as before.
///
/// The kernel queues an event while the writer's system call runs; the generation moves when this
/// thread has read it, normally within microseconds. Every change is seen; a read that starts in
/// that moment can still answer from the contents before it, as a read that started a moment
/// earlier would have.
///
/// Only on file systems whose changes all pass through this kernel (ext4, XFS, Btrfs, tmpfs,
/// overlayfs and the like): on a network file system another machine's write makes no event, so
/// such files are not watched and keep their `lstat` per read. A watch that stops seeing changes
/// (the directory was moved or removed, or the queue overflowed and the kernel dropped events) moves
/// the generation on and stops answering: its files go back to `lstat`.
package final class TokenCacheFileWatcher: Sendable {
    /// The process's watcher (one `inotify` instance and thread, started by the first watch).
    package static let shared = TokenCacheFileWatcher()

    /// A watched file's generation: a number that moves on with every change seen to the file.
    ///
    /// One word, read with one atomic load on every read answered from memory: the generation in
    /// the upper 63 bits, and in the lowest whether the watch is live (it sees every change).
    package final class Generation: Sendable {
        private let word = Atomic<UInt64>(0)

        package init() {}

        /// The generation; `nil` while the file is not watched, or once its watch no longer sees
        /// every change.
        package var value: UInt64? {
            let word = word.load(ordering: .acquiring)
            return word & 1 == 1 ? word >> 1 : nil
        }

        fileprivate func started() {
            word.bitwiseOr(1, ordering: .releasing)
        }

        fileprivate func changed() {
            word.wrappingAdd(2, ordering: .releasing)
        }

        fileprivate func lost() {
            word.bitwiseAnd(~1, ordering: .releasing)
            changed()
        }
    }

    /// One watched file name in one directory: keeps the directory watched while it exists.
    package final class Watch: Sendable {
        fileprivate let generation: Generation
        fileprivate let directory: Int32
        fileprivate let name: [UInt8]
        private let watcher: TokenCacheFileWatcher

        fileprivate init(generation: Generation, directory: Int32, name: [UInt8], watcher: TokenCacheFileWatcher) {
            self.generation = generation
            self.directory = directory
            self.name = name
            self.watcher = watcher
        }

        deinit {
            watcher.remove(ObjectIdentifier(self), directory: directory)
        }
    }

    private struct Entry {
        let id: ObjectIdentifier
        weak var watch: Watch?
    }

    private struct Registry {
        /// The `inotify` descriptor: `-1` before the first watch, `-2` when there is none to be had.
        var descriptor: Int32 = -1
        /// The watches of each watched directory, by watch descriptor.
        var directories: [Int32: [Entry]] = [:]
    }

    private let registry = Mutex(Registry())

    /// What is watched in a directory: its entries' names written, renamed, created, removed or
    /// changed in their attributes, and the directory itself moved or removed.
    private static let mask = UInt32(
        IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR)

    init() {}

    /// A watch of `name` in `directory`, which moves `generation` on with every change it sees (and
    /// makes it live); `nil` when it cannot be watched (no `inotify`, the per-user limit reached,
    /// no such directory, or a file system other machines may write). The directory is watched
    /// while the returned object exists.
    package func watch(directory: String, name: String, generation: Generation) -> Watch? {
        guard Self.isLocalFileSystem(directory) else { return nil }
        return registry.withLock { registry -> Watch? in
            if registry.descriptor == -1 { registry.descriptor = start() }
            guard registry.descriptor >= 0 else { return nil }
            let directoryWatch = inotify_add_watch(registry.descriptor, directory, Self.mask)
            guard directoryWatch >= 0 else { return nil }
            let watch = Watch(generation: generation, directory: directoryWatch, name: Array(name.utf8), watcher: self)
            registry.directories[directoryWatch, default: []].append(Entry(id: ObjectIdentifier(watch), watch: watch))
            // Live from here: any change after this moment is an event the thread will read.
            generation.started()
            return watch
        }
    }

    /// Forgets a watch (from its `deinit`); the directory's kernel watch goes with its last one.
    private func remove(_ id: ObjectIdentifier, directory: Int32) {
        registry.withLock { registry in
            guard var entries = registry.directories[directory] else { return }
            entries.removeAll { $0.id == id }
            if entries.isEmpty {
                registry.directories[directory] = nil
                _ = inotify_rm_watch(registry.descriptor, directory)
            } else {
                registry.directories[directory] = entries
            }
        }
    }

    /// Creates the `inotify` instance and starts the thread that reads it; `-2` when either fails.
    private func start() -> Int32 {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return -2 }
        // The thread runs for the life of the process, as the watcher does (it is `shared`).
        let thread = Thread { [self] in run(descriptor) }
        thread.name = "swift-msal cache watch"
        thread.start()
        return descriptor
    }

    /// The thread's loop: reads events and moves the watches they concern on.
    private func run(_ descriptor: Int32) {
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, capacity)
            if count < 0 {
                if errno == EINTR { continue }
                loseAll()
                return
            }
            dispatch(UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }

    /// Applies a batch of events.
    private func dispatch(_ events: UnsafeRawBufferPointer) {
        var changed: [Watch] = []
        var lost: [Watch] = []
        registry.withLock { registry in
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= events.count {
                let event = events.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + header
                offset = nameStart + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were dropped: nothing watched is known to be unchanged.
                    for entries in registry.directories.values { changed += entries.compactMap(\.watch) }
                    continue
                }
                guard let entries = registry.directories[event.wd] else { continue }
                if event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
                    // The directory went, or is no longer where its path leads.
                    lost += entries.compactMap(\.watch)
                    registry.directories[event.wd] = nil
                    continue
                }
                let length = min(Int(event.len), max(0, events.count - nameStart))
                guard length > 0 else { continue }
                let name = UnsafeRawBufferPointer(rebasing: events[nameStart..<(nameStart + length)])
                // The name is NUL-padded to `len`.
                let end = name.firstIndex(of: 0) ?? name.count
                let nameBytes = UnsafeRawBufferPointer(rebasing: name[..<end])
                for entry in entries {
                    guard let watch = entry.watch, watch.name.elementsEqual(nameBytes) else { continue }
                    changed.append(watch)
                }
            }
        }
        // Outside the lock: dropping the last reference runs a watch's `deinit`, which takes it.
        for watch in changed { watch.generation.changed() }
        for watch in lost { watch.generation.lost() }
    }

    /// The instance failed: every watch stops answering.
    private func loseAll() {
        let all = registry.withLock { registry -> [Watch] in
            defer { registry.directories.removeAll() }
            return registry.directories.values.flatMap { $0.compactMap(\.watch) }
        }
        for watch in all { watch.generation.lost() }
    }

    /// Whether every change to `directory` passes through this kernel: the file systems of local
    /// disks and memory. `statfs`'s `f_type`, through `fstatfs` (declared in `<sys/vfs.h>`, which
    /// the Glibc module does not import).
    private static func isLocalFileSystem(_ directory: String) -> Bool {
        typealias FStatFS = @convention(c) (Int32, UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fstatfs") else { return false }  // RTLD_DEFAULT
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { _ = close(descriptor) }
        // `struct statfs` is 120 bytes on 64-bit Linux and starts with `f_type` (a `long`); room to spare.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        guard unsafeBitCast(symbol, to: FStatFS.self)(descriptor, buffer) == 0 else { return false }
        let type = MemoryLayout<Int>.size == 8 ? UInt32(truncatingIfNeeded: buffer.load(as: Int.self)) : buffer.load(as: UInt32.self)
        return localFileSystems.contains(type)
    }

    /// `f_type` of file systems whose every change is made through the local kernel: ext2/3/4, XFS,
    /// Btrfs, tmpfs, ramfs, overlayfs, F2FS, ZFS, bcachefs, JFS, ReiserFS.
    private static let localFileSystems: Set<UInt32> = [
        0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x8584_58F6, 0x794C_7630, 0xF2F5_2010, 0x2FC1_2FC1, 0xCA45_1A4E,
        0x3153_464A, 0x5265_4973,
    ]
}
