extension MSALWebviewParameters {
    /// An independent copy (MSAL for iOS's `copy()`, from `NSCopying`): the same web UI and the
    /// settings as they are now; changing either object later does not change the other.
    public func copy() -> MSALWebviewParameters {
        let copy = MSALWebviewParameters(webUI: webUI)
        copy.copySettings(from: self)
        return copy
    }
}
