/// How a JSON string's bytes between its quotes relate to its UTF-8.
public enum JSONStringForm: UInt8, Sendable {
    /// No escape and nothing a writer escapes: the bytes are the UTF-8 and can be written as they are.
    case clean
    /// No escape, but a byte the writers escape (DEL): the bytes are the UTF-8; writing re-encodes them.
    case unescapedNeedsEncoding
    /// Has backslash escapes: decode to get the UTF-8.
    case escaped
}
