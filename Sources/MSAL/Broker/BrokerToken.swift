import Foundation
import MSALJOSE
import MSALJSON

/// A token answer of the identity broker (`brokerTokenResponse`), checked: every member present
/// and of its type, the ID token for this client, and, when the request named an account, for
/// that account.
package struct BrokerToken: Sendable {
    /// The access token, or for MSAL's PoP the signed HTTP request presenting it.
    package var accessToken: String
    package var isProofOfPossession: Bool
    package var account: BrokerAccount
    package var clientInfo: String
    package var expiresOn: Date
    package var extendedExpiresOn: Date
    package var idToken: String
    package var grantedScopes: [String]

    /// Reads `document`'s `brokerTokenResponse`.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorBrokerCorruptedResponse`` for
    ///   a missing or mistyped member or an ID token that is not a JWT; with
    ///   ``MSALInternalError/internalErrorMismatchedUser`` for tokens of another client or account.
    package init(_ document: JSONDocument, clientID: String, expectedAccount: BrokerAccount?, correlationID: UUID) throws(MSALFailure) {
        func corrupted(_ what: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .internalErrorBrokerCorruptedResponse,
                message: "The identity broker's token answer is not usable: \(what)", correlationID: correlationID)
        }
        guard let response = document.root["brokerTokenResponse"], response.kind == .object else {
            throw corrupted("no brokerTokenResponse object")
        }
        guard let accessToken = response["accessToken"]?.string, !accessToken.isEmpty else { throw corrupted("no accessToken") }
        guard let type = response["accessTokenType"]?.int64, type == 0 || type == 1 else {
            throw corrupted("accessTokenType is not 0 or 1")
        }
        guard let account = BrokerAccount(response["account"]) else {
            throw corrupted("no account with homeAccountId, environment and username")
        }
        guard let expiresOn = response["expiresOn"]?.int64, expiresOn > 0 else { throw corrupted("no expiresOn") }
        guard let idToken = response["idToken"]?.string, !idToken.isEmpty else { throw corrupted("no idToken") }
        guard let scopes = response["grantedScopes"]?.string else { throw corrupted("no grantedScopes") }
        let claims: JWT
        do throws(JOSEError) {
            claims = try JWT.decodeUnverified(idToken)
        } catch {
            throw corrupted("the ID token is not a JWT (\(error.message))")
        }
        let audiences = claims.stringListClaim("aud") ?? []
        guard audiences.contains(clientID) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorMismatchedUser,
                message: "The identity broker answered with tokens for another client", correlationID: correlationID)
        }
        if let expectedAccount, expectedAccount.homeAccountID.lowercased() != account.homeAccountID.lowercased() {
            throw MSALFailure(
                .internal, internalCode: .internalErrorMismatchedUser,
                message: "The identity broker answered with tokens for another account than the one asked for", correlationID: correlationID
            )
        }
        self.accessToken = accessToken
        isProofOfPossession = type == 1
        self.account = account
        clientInfo = response["clientInfo"]?.string ?? account.clientInfo ?? ""
        self.expiresOn = Date(timeIntervalSince1970: TimeInterval(expiresOn) / 1000)
        self.extendedExpiresOn =
            response["extendedExpiresOn"]?.int64.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } ?? self.expiresOn
        self.idToken = idToken
        grantedScopes = scopes.split(separator: " ").map(String.init)
    }
}
