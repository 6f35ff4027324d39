import CCurl
import Foundation
import MSALSupport

/// Runs the transfers of one ``MSALCurlTransport`` on a thread of its own, through one libcurl multi
/// handle: adds new transfers, removes canceled ones, moves all of them forward, reports each result to
/// its exchange, and enforces the connect/idle and total deadlines to the millisecond.
///
/// `@unchecked Sendable`: `multi` and `transfers` are used by the driver's thread only; other threads
/// reach the driver through `inbox` (a `Mutex`) and `multi.wakeup()`, which libcurl documents as safe
/// to call from any thread.
final class CurlDriver: @unchecked Sendable {
    private struct Inbox {
        var added: [CurlTransfer] = []
        var canceled: [Int] = []
        var stopping = false
        var nextID = 1
    }

    private let multi: CurlMultiHandle
    /// libcurl's functions.
    var curl: LibCurl { multi.curl }
    private let inbox = Mutex(Inbox())
    /// The transfers in the multi handle, by id. Driver thread only.
    private var transfers: [Int: CurlTransfer] = [:]

    /// Creates a driver and starts its thread; `nil` when libcurl cannot allocate a multi handle.
    init?(name: String, curl: LibCurl) {
        guard let multi = CurlMultiHandle(curl: curl) else { return nil }
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// A new transfer id.
    func makeID() -> Int {
        inbox.withLock { inbox in
            defer { inbox.nextID += 1 }
            return inbox.nextID
        }
    }

    /// Hands `transfer` to the driver's thread, which starts it.
    func start(_ transfer: CurlTransfer) {
        inbox.withLock { $0.added.append(transfer) }
        multi.wakeup()
    }

    /// Abandons the transfer `id` (its exchange already finished).
    func cancel(_ id: Int) {
        inbox.withLock { $0.canceled.append(id) }
        multi.wakeup()
    }

    /// Ends the thread once it has abandoned every transfer; the driver is freed after it.
    func stop() {
        inbox.withLock { $0.stopping = true }
        multi.wakeup()
    }

    private func run() {
        while true {
            let (added, canceled, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.added.removeAll()
                    inbox.canceled.removeAll()
                }
                return (inbox.added, inbox.canceled, inbox.stopping)
            }
            for transfer in added where !transfer.exchange.isFinished {
                let code = multi.add(transfer.easy)
                guard code == CURLM_OK else {
                    transfer.exchange.finish(
                        .failure(
                            MSALFailure(
                                .internal, internalCode: .networkFailure,
                                message:
                                    "The request to \(transfer.exchange.host) could not start: \(multi.curl.describe(code))"
                            )))
                    continue
                }
                transfers[transfer.id] = transfer
            }
            for id in canceled {
                remove(id)
            }
            if stopping {
                for (id, transfer) in transfers {
                    transfer.exchange.finish(.failure(CancellationError()))
                    remove(id)
                }
                return
            }

            multi.perform()
            while let (context, code) = multi.nextFinished() {
                let id = Int(bitPattern: context)
                guard let transfer = transfers[id] else { continue }
                MSALCurlTransport.finish(transfer, code: code)
                remove(id)
            }

            var next: ContinuousClock.Instant?
            let now = ContinuousClock.now
            for (id, transfer) in transfers {
                switch transfer.exchange.checkDeadlines(now: now) {
                case nil:
                    // Finished by a cancellation whose request is still in the inbox.
                    remove(id)
                case .failure(let timeout):
                    transfer.exchange.finish(.failure(timeout))
                    remove(id)
                case .success(let deadline):
                    next = min(next ?? deadline, deadline)
                }
            }
            // Idle with no transfer: only a wakeup (new work, stop) matters.
            var wait = 60_000
            if let next {
                let (seconds, attoseconds) = now.duration(to: next).components
                wait = max(0, min(wait, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000) + 1))
            }
            multi.poll(milliseconds: wait)
        }
    }

    /// Takes transfer `id` out of the multi handle and forgets it (its callbacks cannot run again).
    private func remove(_ id: Int) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        multi.remove(transfer.easy)
    }
}
