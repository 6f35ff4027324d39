import Foundation
import MSALDBus
import MSALSupport

extension MSALEmulator {
    /// A double of Microsoft's Linux identity broker (`microsoft-identity-broker`), answering on a
    /// D-Bus bus with this emulator's users and tokens (`docs/broker.md`, `docs/emulator.md`).
    ///
    /// It owns `com.microsoft.identity.broker1` on the bus it is started on — in tests always a
    /// private bus, never a desktop's — and answers the broker's methods in the shapes Microsoft's
    /// runtime (pymsalruntime) accepts: accounts signed in on the "device" (``accounts``), tokens
    /// for them signed by the emulator, MSAL's PoP as a signed HTTP request of the broker's own key,
    /// and injected faults (``inject(_:for:count:)``). An interactive call signs in
    /// ``interactiveUser`` (the call's login hint when `nil`), as the broker's own window would.
    ///
    /// Safe to use from many tasks at once.
    public final class Broker: Sendable {
        /// A broker method, by its D-Bus name.
        public enum Method: String, Sendable, CaseIterable {
            case acquireTokenInteractively, acquireTokenSilently, getAccounts, removeAccount, acquirePrtSsoCookie
            case generateSignedHttpRequest, cancelInteractiveFlow, getLinuxBrokerVersion
        }

        /// A misbehaviour of the broker, answered instead of the method's normal answer.
        public enum Fault: Sendable, Hashable {
            /// The broker is busy: a transient error (`status` 15).
            case busy
            /// The user closed the broker's window (`status` 7).
            case userCanceled
            /// The broker needs the user (`status` 2).
            case interactionRequired
            /// An error of the runtime's `status` number with `context`.
            case error(status: Int, context: String)
            /// No answer at all (the caller's deadline ends its wait).
            case neverAnswers
            /// An answer that is not JSON.
            case malformedAnswer
            /// A D-Bus error reply named `name` instead of an answer.
            case dbusError(name: String)
        }

        /// A call the broker received.
        public struct Call: Sendable {
            /// The method; `nil` for a call to another interface or member.
            public var method: Method?
            /// The protocol version (`0.0` from Microsoft's runtime), when the call had three strings.
            public var protocolVersion: String?
            /// The correlation id, when the call had three strings.
            public var correlationID: String?
            /// The request JSON, when the call had three strings.
            public var request: String?
        }

        struct State {
            /// Usernames signed in on the device, in the order they signed in.
            var accounts: [String] = []
            /// The primary refresh token the device keeps for each account, by username
            /// (a refresh token of the emulator's, `MSALEmulator+BrokerDevice.swift`).
            var primaryRefreshTokens: [String: String] = [:]
            var interactiveUser: String?
            var version = "2.0.4"
            var faults: [(method: Method?, fault: Fault, remaining: Int)] = []
            var calls: [Call] = []
        }

        /// The D-Bus name the broker owns.
        public static let busName = "com.microsoft.identity.broker1"
        /// The broker's object.
        public static let objectPath = "/com/microsoft/identity/broker1"
        /// The broker's interface.
        public static let interface = "com.microsoft.identity.Broker1"

        let core: EmulatorCore
        let state = Mutex(State())
        /// The key of the signed HTTP requests the broker makes for MSAL's PoP (RSA-2048, made at start).
        let proofKey: BrokerProofKey
        private let service = Mutex<DBusService?>(nil)

        init(core: EmulatorCore) throws(MSALEmulatorError) {
            self.core = core
            proofKey = try BrokerProofKey()
        }

        func start(busAddress: String?) throws(MSALEmulatorError) {
            do throws(DBusFailure) {
                let started = try DBusService(address: busAddress, name: Self.busName) { [self] call in
                    await self.answer(call)
                }
                service.withLock { $0 = started }
            } catch {
                throw MSALEmulatorError(.brokerUnavailable, "the broker double could not start on D-Bus: \(error)")
            }
        }

        /// Leaves the bus; a call being answered gets no answer.
        public func stop() {
            let running = service.withLock { current -> DBusService? in
                defer { current = nil }
                return current
            }
            running?.stop()
        }

        /// The usernames signed in on the device, oldest first.
        public var accounts: [String] { state.withLock { $0.accounts } }

        /// Signs `username` in on the device (as if the user had signed in to the broker before),
        /// so that silent calls for the user succeed: the device gets a primary refresh token for
        /// the user, which the emulator's ``MSALEmulator/revokeRefreshTokens(of:)`` and
        /// ``MSALEmulator/expireRefreshTokens(of:)`` reach like any of the user's refresh tokens.
        ///
        /// - Throws: ``MSALEmulatorError/Code/unknownUser`` when the emulator has no such user.
        public func signIn(username: String) throws {
            guard let user = core.configuration.users.first(where: { $0.username.lowercased() == username.lowercased() }) else {
                throw MSALEmulatorError(.unknownUser, "no user \(username)")
            }
            state.withLock { state in
                if !state.accounts.contains(user.username) { state.accounts.append(user.username) }
            }
            mintPrimaryRefreshToken(for: user)
        }

        /// Who signs in when a call shows the broker's window; `nil`: the call's login hint.
        public var interactiveUser: String? {
            get { state.withLock { $0.interactiveUser } }
            set { state.withLock { $0.interactiveUser = newValue } }
        }

        /// What `getLinuxBrokerVersion` answers (`2.0.4` by default).
        public var version: String {
            get { state.withLock { $0.version } }
            set { state.withLock { $0.version = newValue } }
        }

        /// Answers the next `count` calls of `method` (of any method when `nil`) with `fault`.
        public func inject(_ fault: Fault, for method: Method? = nil, count: Int = 1) {
            state.withLock { $0.faults.append((method, fault, max(1, count))) }
        }

        /// Every call received, oldest first.
        public var calls: [Call] { state.withLock { $0.calls } }
    }

    /// Starts the broker double on the D-Bus bus at `busAddress` (the session bus of
    /// `DBUS_SESSION_BUS_ADDRESS` when `nil`); stop it with ``Broker/stop()``. Works whether or not
    /// the emulator's HTTP endpoints are listening: the broker's tokens name the emulator as issuer.
    ///
    /// - Throws: ``MSALEmulatorError/Code/brokerUnavailable`` when libdbus or the bus is missing, or
    ///   another connection owns the broker's name.
    public func startBroker(busAddress: String? = nil) throws -> Broker {
        let broker = try Broker(core: core)
        try broker.start(busAddress: busAddress)
        return broker
    }
}
