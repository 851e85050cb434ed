import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// Decodes a body: `Data` as the raw bytes, ``StatusOnly`` as nothing, an empty body as `nil` for optionals,
    /// anything else as JSON.
    func decode<T: Decodable>(
        _ type: T.Type,
        from data: Data,
        statusCode status: Int,
        method: String?
    ) throws(NetworkError) -> T {
        if let nothing = StatusOnly() as? T { return nothing }
        if Self.hasNoContent(data, status: status, method: method) {
            if let empty = EmptyBody.value(of: type) { return empty }
            let context = DecodingError.Context(
                codingPath: [],
                debugDescription:
                    "The response has no body; ask for an Optional, Data, or nothing (`try await network.send(route)`)"
            )
            throw .decoding(.valueNotFound(type, context), statusCode: status, body: data)
        }
        if T.self == Data.self, let raw = data as? T { return raw }
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw .decoding(error, statusCode: status, body: data)
        } catch {
            let context = DecodingError.Context(
                codingPath: [], debugDescription: "\(error)", underlyingError: error)
            throw .decoding(.dataCorrupted(context), statusCode: status, body: data)
        }
    }

    /// Whether a response carries no content: 204, 205, a `HEAD` response, or an empty body.
    static func hasNoContent(_ data: Data, status: Int, method: String?) -> Bool {
        data.isEmpty || status == 204 || status == 205 || method == HTTPMethod.head.rawValue
    }
}

/// What an empty body decodes to for the types that allow one.
private enum EmptyBody {
    static func value<T>(of type: T.Type) -> T? {
        if let optional = type as? any ExpressibleByNilLiteral.Type {
            return optional.init(nilLiteral: ()) as? T
        }
        if T.self == Data.self { return Data() as? T }
        return nil
    }
}
