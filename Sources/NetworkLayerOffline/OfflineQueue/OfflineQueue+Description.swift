import Foundation
import NetworkLayerCore
import NetworkLayerSupport

extension OfflineQueue.Entry: CustomStringConvertible {
    /// One short line without secrets: `POST https://api.example.com/notes (id 1F3A2C9E…, 47 B)`.
    public var description: String {
        "\(method) \(Redaction.url(url)) (id \(id.uuidString.prefix(8))…, \(body?.count ?? 0) B)"
    }
}

extension OfflineQueue.DeadLetter: CustomStringConvertible {
    /// One short line: the entry, then the status the server refused it with, or why it could not be sent.
    public var description: String {
        if let statusCode { return "\(entry): HTTP \(statusCode)" }
        return "\(entry): \(String(decoding: body.prefix(Snippet.length), as: UTF8.self))"
    }
}

extension OfflineQueue.Event: CustomStringConvertible {
    /// One short line without secrets, such as `queued POST https://api.example.com/notes (id 1F3A2C9E…, 47 B)`.
    public var description: String {
        switch self {
        case .queued(let entry): "queued \(entry)"
        case .delivered(let entry, let statusCode): "delivered \(entry): HTTP \(statusCode)"
        case .deadLettered(let letter): "dead-lettered \(letter)"
        case .stillQueued(let entry, let reason): "still queued \(entry): \(reason)"
        case .replayFailed(let reason): "replay failed: \(reason)"
        }
    }
}
