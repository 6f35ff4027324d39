import MSALJSON
import MSALSupport

/// One claim that an ``MSALClaimsRequest`` asks for: its name and, optionally, what the claim
/// should be (OpenID Connect Core 1.0, section 5.5.1).
///
/// ```swift
/// let authTime = MSALIndividualClaimRequest(name: "auth_time")
/// let info = MSALIndividualClaimRequestAdditionalInfo()
/// info.essential = true
/// authTime.additionalInfo = info
/// try claimsRequest.requestClaim(authTime, for: .idToken)
/// ```
///
/// There is no `init()`: a claim request always has a name. A claims request copies the claim when
/// it is requested (``MSALClaimsRequest/requestClaim(_:for:)``), so changing this object afterwards
/// changes nothing there; request it again to replace it. A reference type, as in MSAL for iOS;
/// safe to share between threads and tasks.
public final class MSALIndividualClaimRequest: Sendable {
    /// The claim's name and its additional information, copied at one moment.
    struct Snapshot: Sendable {
        var name: String
        var additionalInfo: MSALIndividualClaimRequestAdditionalInfo.Contents?

        /// The claim's value in a claims request: its additional information, or `null` when it
        /// has none (or none of it is set).
        var json: JSON { additionalInfo?.json ?? .null }
    }

    private struct Values: Sendable {
        var name: String
        var additionalInfo: MSALIndividualClaimRequestAdditionalInfo?
    }

    private let values: Mutex<Values>

    /// Creates a request for the claim named `name`, such as `"auth_time"` or `"acrs"`, with no
    /// additional information.
    public init(name: String) {
        values = Mutex(Values(name: name))
    }

    /// A claim request with a copy of `snapshot` (a claim read back from a claims request).
    init(snapshot: Snapshot) {
        let additionalInfo = snapshot.additionalInfo.map { MSALIndividualClaimRequestAdditionalInfo(contents: $0) }
        values = Mutex(Values(name: snapshot.name, additionalInfo: additionalInfo))
    }

    /// The name of the claim, such as `"auth_time"`.
    public var name: String {
        get { values.withLock { $0.name } }
        set { values.withLock { $0.name = newValue } }
    }

    /// What the claim should be: whether it is essential and the values it may have; `nil` (the
    /// default) asks for the claim with nothing more, sent as `null`.
    public var additionalInfo: MSALIndividualClaimRequestAdditionalInfo? {
        get { values.withLock { $0.additionalInfo } }
        set { values.withLock { $0.additionalInfo = newValue } }
    }

    /// The claim's name and a copy of its additional information as they are now.
    var snapshot: Snapshot {
        let (name, additionalInfo) = values.withLock { ($0.name, $0.additionalInfo) }
        // Read outside this object's lock: the additional information has its own.
        return Snapshot(name: name, additionalInfo: additionalInfo?.snapshot)
    }
}
