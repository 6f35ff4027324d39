import Foundation
import MSALSupport

/// A deadline for one libsecret call: a `GCancellable` handed to the call and cancelled from a
/// timer when the call has not returned within the timeout.
///
/// libsecret's synchronous calls have no timeout of their own, and GDBus bounds only a method call
/// (25 s by default): connecting to the bus, its authentication handshake and an unlock prompt wait
/// forever. A session bus or keyring daemon that accepts the connection and then never answers (a
/// stopped process, a hung daemon) would hang the app. Every GDBus step the call makes (connect,
/// authenticate, each method call) takes the cancellable, so cancelling it ends the call with
/// `G_IO_ERROR_CANCELLED` at once, wherever it waits.
final class SecretServiceDeadline: @unchecked Sendable {
    // @unchecked: `cancellable` is a GObject pointer (not a `Sendable` type). The timer uses it only
    // under `state`'s lock and only while `finished` is false; the owner sets `finished` under the
    // same lock before it releases the object, so the timer never touches a freed cancellable.
    // `g_cancellable_cancel` may be called from any thread.
    private struct State {
        var finished = false
        var expired = false
    }

    private let library: LibSecret
    /// The cancellable to hand to the call.
    let cancellable: OpaquePointer?
    private let state = Mutex(State())

    /// A new cancellable for a call, not yet timed.
    init(library: LibSecret) {
        self.library = library
        cancellable = library.cancellableNew()
    }

    deinit {
        if let cancellable { library.objectUnref(cancellable) }
    }

    /// Whether the timer fired before the call returned.
    var expired: Bool { state.withLock { $0.expired } }

    /// Runs `call` with the cancellable, cancelled after `timeout` seconds unless `call` returned first.
    func run<T>(timeout: Double, _ call: (OpaquePointer?) -> T) -> T {
        // Validated by `SecretServiceStore` (not negative, not NaN); an infinite timeout sets no timer.
        guard timeout.isFinite else { return call(cancellable) }
        let timer = DispatchWorkItem { [self] in expire() }
        DispatchQueue.global().asyncAfter(deadline: .now() + min(max(0, timeout), 1e9), execute: timer)
        let result = call(cancellable)
        state.withLock { $0.finished = true }
        timer.cancel()
        return result
    }

    private func expire() {
        state.withLock { state in
            guard !state.finished else { return }
            state.expired = true
            library.cancellableCancel(cancellable)
        }
    }
}
