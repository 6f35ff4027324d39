import Foundation
import MSALJOSE

extension MSALFailure {
    /// Maps a JOSE failure (ID-token verification, key set, client_info) to an
    /// `.internal` error with a precise internal code and the JOSE message.
    public init(_ joseError: JOSEError, correlationID: UUID? = nil) {
        self.init(
            .internal,
            internalCode: MSALInternalError(joseCode: joseError.code),
            message: joseError.description,
            correlationID: correlationID,
            underlyingError: joseError)
    }
}

extension MSALInternalError {
    /// The internal code for a JOSE error code; one to one.
    public init(joseCode: JOSEError.Code) {
        switch joseCode {
        case .malformedToken: self = .jwtMalformed
        case .limitExceeded: self = .limitExceeded
        case .invalidBase64URL: self = .jwtInvalidBase64URL
        case .invalidJSON: self = .invalidJSON
        case .duplicateMember: self = .duplicateJSONMember
        case .invalidHeader: self = .jwtInvalidHeader
        case .unsupportedAlgorithm: self = .jwtUnsupportedAlgorithm
        case .unsupportedCriticalHeader: self = .jwtUnsupportedCriticalHeader
        case .algorithmKeyMismatch: self = .jwtAlgorithmKeyMismatch
        case .keyNotFound: self = .jwtSigningKeyNotFound
        case .ambiguousKey: self = .jwtAmbiguousSigningKey
        case .invalidKey: self = .jwtInvalidSigningKey
        case .invalidKeySet: self = .jwtInvalidKeySet
        case .invalidSignature: self = .jwtInvalidSignature
        case .invalidPayload: self = .jwtInvalidPayload
        case .missingClaim: self = .idTokenMissingClaim
        case .invalidClaim: self = .idTokenInvalidClaim
        case .tokenExpired: self = .idTokenExpired
        case .tokenNotYetValid: self = .idTokenNotYetValid
        case .tokenIssuedInFuture: self = .idTokenIssuedInFuture
        case .issuerMismatch: self = .idTokenIssuerMismatch
        case .audienceMismatch: self = .idTokenAudienceMismatch
        case .authorizedPartyMismatch: self = .idTokenAuthorizedPartyMismatch
        case .nonceMismatch: self = .idTokenNonceMismatch
        case .invalidClientInfo: self = .invalidClientInfo
        case .cryptoFailure: self = .cryptoFailure
        case .invalidPEM: self = .invalidCredential
        case .certificateKeyMismatch: self = .certificateKeyMismatch
        case .unsupportedCredentialKey: self = .unsupportedCredentialKey
        }
    }
}
