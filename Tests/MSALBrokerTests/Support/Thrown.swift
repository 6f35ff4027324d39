import Testing

/// The error of type `E` that `body` throws; records an issue when it throws another error, or
/// returns instead.
func thrown<E: Error>(_ type: E.Type, _ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> E? {
    do {
        let value = try await body()
        Issue.record("expected \(E.self), got \(value)", sourceLocation: sourceLocation)
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
