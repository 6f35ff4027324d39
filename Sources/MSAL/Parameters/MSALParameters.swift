import Dispatch
import Foundation
import MSALSupport

/// What every call with a completion block accepts: the queue the block is called on (MSAL for
/// iOS's `MSALParameters`), and the correlation id of the call's requests.
///
/// A reference type, as in MSAL for iOS, so `let parameters = MSALParameters();
/// parameters.completionBlockQueue = queue` ports unchanged. Safe to share between tasks and
/// threads: every property is read and written under a lock, and a call reads them once, when it
/// starts. The token, account-enumeration and sign-out parameters are its subclasses.
public class MSALParameters: @unchecked Sendable {
    // @unchecked Sendable: the only stored property is a `let` `Mutex` holding Sendable values; the
    // class is `public` (not `open`), so its subclasses are this module's own, and they keep the
    // same rule (every stored property a `let` of a Sendable type or inside a `Mutex`).

    private struct Values: Sendable {
        var completionBlockQueue: DispatchQueue?
        var correlationId: UUID?
    }

    private let values = Mutex(Values())

    /// Creates parameters whose completion blocks are called on swift-msal's own threads.
    public init() {}

    /// Creates parameters with a correlation id for the call's requests.
    public convenience init(correlationId: UUID?) {
        self.init()
        self.correlationId = correlationId
    }

    /// The queue every completion block of a call with these parameters is called on.
    ///
    /// When `nil` (the default) the block is called on one of swift-msal's own threads, as soon as
    /// the call ends, for every kind of call. MSAL for iOS calls the blocks of interactive and
    /// sign-out calls on the main queue by default; swift-msal does not, because a Linux program
    /// often never runs the main queue (a command-line tool, or a service that never calls
    /// `dispatchMain()`), and a block sent there would never run. Set
    /// `DispatchQueue.main` here when the program does run it.
    public var completionBlockQueue: DispatchQueue? {
        get { values.withLock { $0.completionBlockQueue } }
        set { values.withLock { $0.completionBlockQueue = newValue } }
    }

    /// The correlation id sent with the call's HTTP requests and reported in its result and
    /// errors; a new one is made when `nil`. A swift-msal addition for the calls that take
    /// `MSALParameters` itself (MSAL for iOS has it on the token parameters only).
    public var correlationId: UUID? {
        get { values.withLock { $0.correlationId } }
        set { values.withLock { $0.correlationId = newValue } }
    }
}
