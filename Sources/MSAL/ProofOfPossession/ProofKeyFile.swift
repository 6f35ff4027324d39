import Glibc

/// A proof key kept in a file of mode 0600 beside the cache file (`<cache file>.<kind>-key.pem`),
/// so that the next process signs with the key the cached bound tokens are bound to.
///
/// The file is read as the cache file is: not through a symbolic link, only a regular file of this
/// user that grants no group or other access, with one link (a second one is waited out for up to
/// 100 ms: a publishing process's temporary name), of bounded size. A new key is written
/// to a temporary file (`O_EXCL`, mode 0600), synced, then linked to the name: a process that
/// loses the race to another takes the other's key, so every process shares one. A file that holds
/// no key of its kind is replaced (the tokens bound to it can no longer be used; a refresh token
/// gets new ones); an unsafe file is an error and is left untouched.
package struct ProofKeyFile: Sendable {
    /// The key file's path.
    package let path: String
    /// The kind of key it holds.
    package let kind: ProofKey.Kind

    /// The most bytes a key file may hold (an RSA 2048 PEM block is under 2 KiB).
    static let maximumSize = 16 * 1024

    /// The key file of `kind` beside the cache file at `cachePath`.
    package init(cachePath: String, kind: ProofKey.Kind) {
        self.path = cachePath + ".\(kind.rawValue)-key.pem"
        self.kind = kind
    }

    /// The kept key, else a new one kept now.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/cacheUnsafeFile`` for a file that is not this
    ///   user's private regular file, ``MSALInternalError/cacheIOFailure`` when it cannot be read
    ///   or written.
    package func key() throws(MSALFailure) -> ProofKey {
        let kept = try load()
        if case .key(let key) = kept { return key }
        let made = try ProofKey.generate(kind)
        return try publish(made, replacing: kept == .unusable)
    }

    enum Kept: Equatable {
        case key(ProofKey)
        case none
        /// A file that holds no key of this kind.
        case unusable

        static func == (lhs: Kept, rhs: Kept) -> Bool {
            switch (lhs, rhs) {
            case (.key(let left), .key(let right)): left.thumbprint == right.thumbprint
            case (.none, .none), (.unusable, .unusable): true
            default: false
            }
        }
    }

    /// What the file holds now.
    func load() throws(MSALFailure) -> Kept {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return .none
            case ELOOP: throw .cacheUnsafe(path, "it is a symbolic link")
            default: throw .cacheIO(path, "open the proof key for reading", errno: code)
            }
        }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cacheIO(path, "inspect the proof key", errno: errno) }
        guard info.isRegularFile else { throw .cacheUnsafe(path, "the proof key is not a regular file") }
        guard info.st_uid == geteuid() else { throw .cacheUnsafe(path, "the proof key belongs to uid \(info.st_uid)") }
        guard info.st_mode & 0o077 == 0 else {
            throw .cacheUnsafe(path, "the proof key grants group or other access (expected mode 0600)")
        }
        // A process publishing its key links its temporary file to the name, then removes the
        // temporary name: for that moment the key has two links. Another link that does not go
        // away within 100 ms is not one of ours.
        var waits = 0
        while info.st_nlink > 1, waits < 50 {
            waits += 1
            _ = usleep(2000)
            guard fstat(descriptor, &info) == 0 else { throw .cacheIO(path, "inspect the proof key", errno: errno) }
        }
        guard info.st_nlink <= 1 else { throw .cacheUnsafe(path, "the proof key has \(info.st_nlink) hard links") }
        guard info.st_size <= Self.maximumSize else { return .unusable }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if read == 0 { break }
            if read < 0 {
                if errno == EINTR { continue }
                throw .cacheIO(path, "read the proof key", errno: errno)
            }
            count += read
        }
        guard count <= Self.maximumSize, let key = try? ProofKey(kind: kind, privateKeyPEM: Array(bytes[..<count])) else {
            return .unusable
        }
        return .key(key)
    }

    /// Keeps `key` under the name: linked when there is no file (another process's key, if it got
    /// there first, is taken instead), renamed over an unusable one.
    private func publish(_ key: ProofKey, replacing: Bool) throws(MSALFailure) -> ProofKey {
        let pem = try key.privateKeyPEM()
        var suffix = [UInt8](repeating: 0, count: 6)
        for index in suffix.indices { suffix[index] = UInt8(ascii: "a") + UInt8.random(in: 0..<26) }
        let temporary = path + ".tmp-\(getpid())-" + String(decoding: suffix, as: UTF8.self)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cacheIO(path, "create \(temporary)", errno: errno) }
        defer { _ = unlink(temporary) }
        var written = 0
        while written < pem.count {
            let count = pem.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                _ = close(descriptor)
                throw .cacheIO(path, "write \(temporary)", errno: code)
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw .cacheIO(path, "sync \(temporary)", errno: code)
        }
        _ = close(descriptor)
        if replacing {
            guard rename(temporary, path) == 0 else { throw .cacheIO(path, "replace the proof key", errno: errno) }
            return key
        }
        if link(temporary, path) == 0 { return key }
        let code = errno
        guard code == EEXIST else { throw .cacheIO(path, "keep the proof key", errno: code) }
        // Another process kept its key first: use that one.
        switch try load() {
        case .key(let kept): return kept
        case .none, .unusable:
            guard rename(temporary, path) == 0 else { throw .cacheIO(path, "replace the proof key", errno: errno) }
            return key
        }
    }
}
