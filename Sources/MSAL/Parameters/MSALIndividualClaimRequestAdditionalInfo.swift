import Foundation
import MSALJSON
import MSALSupport

/// What a claims request asks of one claim besides its presence: whether the claim is essential,
/// and the value, or one of the values, it should have (OpenID Connect Core 1.0, section 5.5.1).
///
/// Set only what you need: a property left `nil` is not sent. With ``essential`` set to `true` and
/// ``values`` to one policy id, the claim is sent as `{"essential":true,"values":["…"]}`; with
/// nothing set it is sent as `null`, as a claim without additional information is.
///
/// ``value`` and ``values`` take the values `JSONSerialization` can write: `String`, numbers,
/// `Bool`, `NSNull`, and arrays and `[String: Any]` dictionaries of these. A value is converted to
/// JSON when it is assigned, so changing the original afterwards changes nothing here. A value that
/// cannot be written as JSON (a `Date`, a `URL`, a number that is not finite, a dictionary whose
/// keys are not strings) is kept as JSON `null` instead of failing later, when the request is sent
/// (MSAL for iOS raises an exception then). Reading a property back gives the converted value in
/// Swift's types: `String`, `Int` or `Double`, `Bool`, `[Any]`, `[String: Any]` or `NSNull`.
///
/// A reference type, as in MSAL for iOS; safe to share between threads and tasks.
public final class MSALIndividualClaimRequestAdditionalInfo: Sendable {
    /// What the object holds, already in JSON form.
    struct Contents: Sendable {
        var essential: Bool?
        var value: JSON?
        var values: [JSON]?

        /// The JSON object written for the claim: only the members that are set, `essential` as a
        /// Boolean; `nil` when none is set.
        var json: JSON? {
            var members: [JSONMember] = []
            if let essential {
                members.append(JSONMember(name: "essential", value: .bool(essential)))
            }
            if let value {
                members.append(JSONMember(name: "value", value: value))
            }
            if let values {
                members.append(JSONMember(name: "values", value: .array(values)))
            }
            return members.isEmpty ? nil : .object(members)
        }
    }

    private let contents: Mutex<Contents>

    /// Creates additional information with nothing set.
    public init() {
        contents = Mutex(Contents())
    }

    /// Additional information holding `contents` (a claim read back from a claims request).
    init(contents: Contents) {
        self.contents = Mutex(contents)
    }

    /// Whether the claim is essential to the app (sent as the JSON Boolean `essential`), or `nil`
    /// to leave it to the server.
    ///
    /// A number, as in MSAL for iOS, read as a Boolean: any nonzero number means `true`, zero
    /// `false`. `essential = 1`, `essential = true` and `essential = NSNumber(value: true)` all ask
    /// for an essential claim. Reading it back gives `NSNumber(value: true)` or `NSNumber(value: false)`.
    public var essential: NSNumber? {
        get { contents.withLock { $0.essential }.map { NSNumber(value: $0) } }
        set {
            let flag = newValue.map { $0.doubleValue != 0 }
            contents.withLock { $0.essential = flag }
        }
    }

    /// The one value the claim should have (sent as `value`), or `nil` for none.
    ///
    /// `NSNull` is a value (sent as `null`); `nil` sends nothing. See the type's description for the
    /// values accepted.
    public var value: Any? {
        get { contents.withLock { $0.value }.map(ClaimValueConversion.foundationValue) }
        set {
            let json = newValue.map(ClaimValueConversion.json(from:))
            contents.withLock { $0.value = json }
        }
    }

    /// The values the claim may have, most preferred first (sent as the array `values`), or `nil`
    /// for none.
    ///
    /// See the type's description for the values accepted; each element is converted on its own.
    public var values: [Any]? {
        get { contents.withLock { $0.values }.map { $0.map(ClaimValueConversion.foundationValue) } }
        set {
            let json = newValue.map { $0.map(ClaimValueConversion.json(from:)) }
            contents.withLock { $0.values = json }
        }
    }

    /// A copy of what the object holds, taken under the lock.
    var snapshot: Contents {
        contents.withLock { $0 }
    }
}

/// Conversions between the Foundation values an app assigns to
/// ``MSALIndividualClaimRequestAdditionalInfo`` and the JSON kept inside it.
enum ClaimValueConversion {
    /// `value` as JSON; `null` when `JSONSerialization` cannot write it.
    static func json(from value: Any) -> JSON {
        if value is NSNull { return .null }
        if let text = value as? String { return .string(text) }
        // Everything else goes through JSONSerialization, which knows how the platform represents
        // Booleans and numbers (an `NSNumber` made from `true` is written `true`, one made from `1`
        // is written `1`) and checks the whole tree first, so nothing invalid is ever written. The
        // value is wrapped in an array, the top level JSONSerialization requires.
        let wrapped: [Any] = [value]
        guard JSONSerialization.isValidJSONObject(wrapped),
            let data = try? JSONSerialization.data(withJSONObject: wrapped),
            let document = try? JSONDocument(parsing: Array(data), limits: .document)
        else {
            return .null
        }
        for element in document.root.elements {
            return JSON(element)
        }
        return .null
    }

    /// `json` as the Foundation value an app reads: `NSNull`, `Bool`, `Int` (or `Double` for a
    /// number with a fraction, an exponent or too many digits), `String`, `[Any]` or `[String: Any]`.
    static func foundationValue(_ json: JSON) -> Any {
        switch json {
        case .null:
            return NSNull()
        case .bool(let flag):
            return flag
        case .number(let text):
            if let integer = Int(text) { return integer }
            // Every JSON number parses as a Double (a huge exponent as infinity).
            return Double(text) ?? 0
        case .string(let text):
            return text
        case .array(let elements):
            return elements.map(foundationValue)
        case .object(let members):
            var dictionary: [String: Any] = [:]
            for member in members {
                dictionary[member.name] = foundationValue(member.value)
            }
            return dictionary
        }
    }
}
