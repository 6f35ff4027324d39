import Foundation
import MSALJSON
import MSALSupport

/// The Azure region a confidential client's app-token requests go to, decided once per
/// application: the configured one, `MSAL_FORCE_REGION` when none is configured, or — for
/// ``MSALAzureRegion/autoDetect`` — `REGION_NAME`, else the instance metadata service's
/// `location`. A detection that finds nothing means the global endpoint; it is not tried again.
package final class RegionResolver: Sendable {
    private let setting: MSALAzureRegion?
    private let variables: [String: String]
    private let imdsBaseURL: URL
    private let pipeline: HTTPPipeline
    private let logger: MSALLogger
    /// The one detection's answer, kept for the application's life (even when it found nothing).
    private let detected = SingleFlightCache<Int, String?, Never>(capacity: 1, now: { Date() })
    /// Ten years: "for good".
    private static let forGood: Double = 315_360_000

    /// The instance metadata service's default address (tests always name a local one).
    package static let defaultIMDSBaseURL = URL(string: "http://169.254.169.254")!

    package init(setting: MSALAzureRegion?, variables: [String: String], imdsBaseURL: URL?, pipeline: HTTPPipeline, logger: MSALLogger) {
        self.setting = setting
        self.variables = variables
        self.imdsBaseURL = imdsBaseURL ?? Self.defaultIMDSBaseURL
        self.pipeline = pipeline
        self.logger = logger
    }

    /// What the configuration asks for, with `MSAL_FORCE_REGION` applied when it asks for nothing.
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for a region name that is not valid.
    package static func effectiveSetting(_ setting: MSALAzureRegion?, variables: [String: String]) throws(MSALFailure) -> MSALAzureRegion? {
        var chosen = setting
        if chosen == nil, let forced = variables["MSAL_FORCE_REGION"], !forced.isEmpty { chosen = .named(forced) }
        guard case .named(let name) = chosen else { return chosen == .disabled ? nil : chosen }
        guard let valid = MSALAzureRegion.normalized(name) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message:
                    "The Azure region \(OAuthErrorResponse.sanitized(name, limit: 80)) is not a region name (lower-case letters, digits and hyphens)"
            )
        }
        return .named(valid)
    }

    /// The region to use now, or `nil` for the global endpoint.
    package func region(correlationID: UUID) async -> String? {
        switch setting {
        case nil, .disabled: return nil
        case .named(let name): return name
        case .autoDetect:
            let resolver = self
            let found = try? await detected.value(for: 0) {
                .init(.success(await resolver.detect(correlationID: correlationID)), timeToLive: Self.forGood)
            }
            return found ?? nil
        }
    }

    /// `REGION_NAME`, else IMDS's `location`; `nil` when neither gives a valid region.
    private func detect(correlationID: UUID) async -> String? {
        if let name = variables["REGION_NAME"], !name.isEmpty {
            if let region = MSALAzureRegion.normalized(name) {
                logger.info("Azure region \(public: region) from REGION_NAME", correlationID: correlationID)
                return region
            }
            logger.warning("REGION_NAME is not a region name; asking the instance metadata service", correlationID: correlationID)
        }
        var url = imdsBaseURL.absoluteString
        while url.hasSuffix("/") { url.removeLast() }
        guard let endpoint = URL(string: url + "/metadata/instance/compute?api-version=2021-02-01") else { return nil }
        var request = MSALHTTPRequest(method: .get, url: endpoint, isIdempotent: false)
        request.headers.add(name: "Metadata", value: "true")
        request.sendsMicrosoftHeaders = false
        do {
            let response = try await pipeline.send(request, correlationID: correlationID)
            guard response.statusCode == 200, let document = try? JSONDocument(parsing: response.body, limits: .document),
                let location = document.root["location"]?.string, let region = MSALAzureRegion.normalized(location)
            else {
                logger.warning(
                    "The instance metadata service named no region (HTTP \(public: String(response.statusCode))); using the global endpoint",
                    correlationID: correlationID)
                return nil
            }
            logger.info("Azure region \(public: region) from the instance metadata service", correlationID: correlationID)
            return region
        } catch {
            logger.warning("Region detection failed (\(error: error)); using the global endpoint", correlationID: correlationID)
            return nil
        }
    }
}
