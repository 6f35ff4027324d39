/// A type that writes itself as JSON text (MSAL for iOS's `MSALJsonSerializable`), such as
/// ``MSALClaimsRequest``.
public protocol MSALJsonSerializable {
    /// The JSON text, or `nil` when it cannot be written.
    func jsonString() -> String?
}

/// A type made from JSON text (MSAL for iOS's `MSALJsonDeserializable`), such as
/// ``MSALClaimsRequest``.
public protocol MSALJsonDeserializable {
    /// Makes the value from `jsonString`.
    ///
    /// - Throws: ``MSALFailure`` when the text is not what the type reads.
    init(jsonString: String) throws
}

extension MSALClaimsRequest: MSALJsonSerializable, MSALJsonDeserializable {}
