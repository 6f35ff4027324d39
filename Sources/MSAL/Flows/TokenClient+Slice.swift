extension TokenClient {
    /// A request's extra query parameters with the slice configuration's added: the request's own
    /// win where both name a parameter.
    package func withSlice(_ extra: [String: String]?) -> [String: String]? {
        guard let sliceParameters = publicClient?.sliceParameters, !sliceParameters.isEmpty else { return extra }
        return sliceParameters.merging(extra ?? [:]) { _, own in own }
    }
}
