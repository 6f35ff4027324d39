import MSALSupport

/// A slice of the identity service to send requests to (MSAL for iOS's `MSALSliceConfig`): the
/// `slice` and `dc` query parameters that Microsoft's test and pre-production environments read.
///
/// Set it on ``MSALPublicClientApplicationConfig/sliceConfig``: every request of the application
/// to the authorization and token endpoints then carries the parameters that are set. A reference
/// type, as in MSAL for iOS; safe to share between threads.
public final class MSALSliceConfig: Sendable {
    private struct Values: Sendable {
        var slice: String
        var dc: String
    }

    private let values: Mutex<Values>

    /// A slice configuration, or `nil` when neither `slice` nor `dc` is given (as in MSAL for iOS).
    public init?(slice: String?, dc: String?) {
        guard slice != nil || dc != nil else { return nil }
        values = Mutex(Values(slice: slice ?? "", dc: dc ?? ""))
    }

    /// The `slice` query parameter, such as `testslice`; empty when not sent.
    public var slice: String {
        get { values.withLock { $0.slice } }
        set { values.withLock { $0.slice = newValue } }
    }

    /// The `dc` (data center) query parameter, such as `PROD-WST-TEST1`; empty when not sent.
    public var dc: String {
        get { values.withLock { $0.dc } }
        set { values.withLock { $0.dc = newValue } }
    }

    /// The query parameters sent with each request: `slice` and `dc`, those that are not empty.
    public var sliceDictionary: [String: String] {
        values.withLock { values in
            var dictionary: [String: String] = [:]
            if !values.slice.isEmpty { dictionary["slice"] = values.slice }
            if !values.dc.isEmpty { dictionary["dc"] = values.dc }
            return dictionary
        }
    }

    /// An independent copy (MSAL for iOS's `copy()`).
    public func copy() -> MSALSliceConfig {
        MSALSliceConfig(values: values.withLock { $0 })
    }

    private init(values: Values) {
        self.values = Mutex(values)
    }
}
