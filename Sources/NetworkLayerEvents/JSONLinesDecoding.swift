import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// Decoding one line of a JSON Lines body (https://jsonlines.org), with errors that say which line failed.
enum JSONLinesDecoding {
    /// Decodes `line`, the `number`th line of the body (counting from 1), as a `T`.
    ///
    /// A failure is ``NetworkError/decoding(_:statusCode:body:)`` with the line as the body, and the
    /// `DecodingError`'s description starts with "line 12: " so that a log of a long stream points at the culprit;
    /// the coding path and the underlying error are kept.
    static func decodeLine<T: Decodable>(
        _ line: Data, number: Int, as type: T.Type, decoder: ResponseDecoder
    ) throws(NetworkError) -> T {
        do {
            return try decoder.decode(type, from: line)
        } catch {
            throw .decoding(numbered(error, line: number), statusCode: 200, body: line)
        }
    }

    /// Whether `line` holds nothing but JSON whitespace (space, tab, CR, LF), or nothing at all: such lines carry no
    /// value, and the caller skips them rather than fail on them.
    static func isBlank(_ line: Data) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }

    /// `error` as a `DecodingError` of the same kind and coding path whose description starts with the line number.
    private static func numbered(_ error: any Error, line number: Int) -> DecodingError {
        let prefix = "line \(number): "
        func numbered(_ context: DecodingError.Context) -> DecodingError.Context {
            DecodingError.Context(
                codingPath: context.codingPath, debugDescription: prefix + context.debugDescription,
                underlyingError: context.underlyingError)
        }
        // A decoder may throw an error of its own: it becomes the underlying error of a corrupted-data error.
        func corrupted() -> DecodingError {
            .dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: prefix + String(describing: error), underlyingError: error))
        }
        guard let decodingError = error as? DecodingError else { return corrupted() }
        switch decodingError {
        case .typeMismatch(let type, let context):
            return .typeMismatch(type, numbered(context))
        case .valueNotFound(let type, let context):
            return .valueNotFound(type, numbered(context))
        case .keyNotFound(let key, let context):
            return .keyNotFound(key, numbered(context))
        case .dataCorrupted(let context):
            return .dataCorrupted(numbered(context))
        @unknown default:
            return corrupted()
        }
    }
}
