import Testing

/// The parsers of streamed bodies (Server-Sent Events, lines, JSON Lines), gathered so that `--filter Streaming` runs
/// them all.
@Suite("Streaming")
struct StreamingTests {}
