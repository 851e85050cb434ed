extension Double {
    /// Whether these seconds are a bound the package keeps: finite and under a billion seconds (about 31 years).
    /// Anything longer, `.infinity` included, is no bound: no timer is set for it, and no clock in nanoseconds
    /// overflows. The one rule for every timeout (a deadline, a ping's, a send's stall, an upload's idle time).
    public var isBoundedTimeout: Bool { isFinite && self < 1e9 }
}
