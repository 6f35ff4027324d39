extension MSALHTTPLimits {
    /// The longest timeout a transport applies, in seconds (about 31 years): a larger value, or
    /// infinity, means this.
    package static let longestTimeout: Double = 1e9

    /// `seconds` made safe to turn into a `Duration` or an integer: NaN, zero and negative values
    /// are one millisecond, values over ``longestTimeout`` (infinity among them) are that.
    /// `Duration.seconds(_:)` traps on infinity.
    package static func boundedSeconds(_ seconds: Double) -> Double {
        guard !seconds.isNaN, seconds > 0.001 else { return 0.001 }
        return min(seconds, longestTimeout)
    }

    /// ``totalTimeout``, bounded.
    package var totalDuration: Duration { .seconds(Self.boundedSeconds(totalTimeout)) }

    /// ``connectTimeout``, bounded.
    package var idleDuration: Duration { .seconds(Self.boundedSeconds(connectTimeout)) }
}
