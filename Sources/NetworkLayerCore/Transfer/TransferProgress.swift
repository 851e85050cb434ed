/// How far a transfer has come: a value handed to the `progress` closure of ``Network/upload(_:from:progress:)``.
///
/// ```swift
/// let video: Video = try await network.upload(UploadRoute.video, from: .file(clipURL)) { progress in
///     print(progress.completedBytes, progress.expectedBytes ?? -1, progress.fractionCompleted ?? 0)
/// }
/// ```
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes done so far: for a download, written to the file; for an upload, handed to the network.
    public var completedBytes: Int64

    /// The bytes there are in all, or `nil` when nobody knows: the server sent no `Content-Length`, the body is
    /// content-encoded (the length counts the compressed bytes), or an upload stream has no length. Never -1 or 0
    /// for "unknown".
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// The part done, from 0 to 1, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, max(0, Double(completedBytes) / Double(expectedBytes)))
    }

    /// "3145728 of 10485760 bytes (30%)", or "3145728 bytes" when the total is unknown.
    public var description: String {
        guard let expectedBytes, let fraction = fractionCompleted else { return "\(completedBytes) bytes" }
        return "\(completedBytes) of \(expectedBytes) bytes (\(Int((fraction * 100).rounded(.down)))%)"
    }
}
