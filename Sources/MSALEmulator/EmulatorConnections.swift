import MSALSupport
import NIOCore

/// The open connections of a running emulator: capped, and closed together at shutdown.
final class EmulatorConnections: Sendable {
    private struct State {
        var open: [ObjectIdentifier: any Channel] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())
    let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Registers `channel`; `false` when the cap is reached or the emulator is shutting down.
    func admit(_ channel: any Channel) -> Bool {
        let admitted = state.withLock { state -> Bool in
            guard !state.isClosed, state.open.count < maximum else { return false }
            state.open[ObjectIdentifier(channel)] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [weak self] _ in self?.remove(channel) }
        }
        return admitted
    }

    private func remove(_ channel: any Channel) {
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Stops admitting and returns every open connection.
    func closeAll() -> [any Channel] {
        state.withLock { state in
            state.isClosed = true
            return Array(state.open.values)
        }
    }
}
