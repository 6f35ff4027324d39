import Foundation

/// A recorded scenario: the HTTP exchanges an MSAL client makes, in order, with the
/// answers to replay (format: `docs/fixtures.md`).
///
/// Load one and hand it to ``MSALReplayTransport``:
///
/// ```swift
/// let fixture = try MSALRecordedFixture(contentsOf: url)
/// let transport = MSALReplayTransport(fixture: fixture)
/// ```
///
/// Loading validates the whole document, so a malformed fixture fails here with a message
/// naming the member (`interactions[1].request.url: …`) instead of misbehaving during a test.
public struct MSALRecordedFixture: Sendable, Hashable {
    /// The scenario's name (`name`).
    public var name: String
    /// What the scenario shows (`description`).
    public var description: String
    /// Where the recorded data came from (`provenance`); a string is one entry with only ``Source/notes``.
    public var provenance: [Source]
    /// The exchanges, in order (`interactions`).
    public var interactions: [Interaction]
    /// The `conformance` section for conformance runners, or `nil`. The fixture format checks only
    /// that it is an object; its members are defined by the runner (see `Fixtures/Conformance/README.md`).
    public var conformance: MSALFixtureJSON?
    /// The file the fixture was loaded from, when it was loaded from a file.
    public var sourceURL: URL?

    /// One `provenance` entry.
    public struct Source: Sendable, Hashable {
        /// The repository, such as `AzureAD/microsoft-authentication-library-for-dotnet`.
        public var repo: String?
        /// The file's path in the repository.
        public var path: String?
        /// The commit the file was read at.
        public var commit: String?
        /// Free-text notes: what was taken, what was changed, whether the data is synthetic.
        public var notes: String?

        /// Creates an entry.
        public init(repo: String? = nil, path: String? = nil, commit: String? = nil, notes: String? = nil) {
            self.repo = repo
            self.path = path
            self.commit = commit
            self.notes = notes
        }
    }

    /// Creates a fixture from parts; ``init(data:sourceURL:)`` validates a document instead.
    public init(
        name: String,
        description: String = "",
        provenance: [Source] = [],
        interactions: [Interaction],
        conformance: MSALFixtureJSON? = nil,
        sourceURL: URL? = nil
    ) {
        self.name = name
        self.description = description
        self.provenance = provenance
        self.interactions = interactions
        self.conformance = conformance
        self.sourceURL = sourceURL
    }

    /// Loads and validates the fixture in the file at `url`.
    ///
    /// - Throws: ``MSALFailure`` (``MSALError/internal``) with internal code
    ///   ``MSALInternalError/internalErrorInvalidParameter`` for an unreadable file or a malformed fixture, and
    ///   ``MSALInternalError/invalidJSON`` for invalid JSON; the message names the file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "Cannot read the fixture \(url.path): \(error.localizedDescription)",
                underlyingError: error)
        }
        try self.init(data: data, sourceURL: url)
    }

    /// Parses and validates a fixture document.
    ///
    /// - Parameter sourceURL: where the data came from, used in error messages.
    /// - Throws: ``MSALFailure`` (``MSALError/internal``) with internal code
    ///   ``MSALInternalError/invalidJSON`` for invalid JSON and ``MSALInternalError/internalErrorInvalidParameter``
    ///   for a document that is not a valid fixture.
    public init(data: Data, sourceURL: URL? = nil) throws {
        let label = sourceURL.map { "Fixture \($0.lastPathComponent)" } ?? "Fixture"
        let document: MSALFixtureJSON
        do {
            document = try MSALFixtureJSON(parsing: data)
        } catch let error as MSALFailure {
            throw MSALFailure(.internal, internalCode: .invalidJSON, message: "\(label): \(error.message)")
        }
        var decoder = FixtureDecoder(label: label)
        self = try decoder.decodeFixture(document)
        self.sourceURL = sourceURL
    }
}
