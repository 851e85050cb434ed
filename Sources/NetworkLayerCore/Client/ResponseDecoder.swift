public import Foundation

/// How a ``Network`` decodes JSON bodies: `JSONDecoder`'s strategies as a value, so that a copy of a network changes
/// them without changing the original.
///
/// ```swift
/// var staging = network
/// staging.decoder.dateDecodingStrategy = .iso8601   // network still decodes dates as before
/// ```
///
/// To start from a `JSONDecoder` you already configured (its `userInfo` and JSON5 settings too), pass it to
/// ``init(_:)``; the decoder is copied, so changing it afterwards changes nothing here.
public struct ResponseDecoder: Sendable {
    /// Shared between copies until one of them changes a setting; never changed while shared.
    private var decoder: JSONDecoder

    /// Creates a decoder with `JSONDecoder`'s defaults.
    public init() {
        decoder = JSONDecoder()
    }

    /// Creates a decoder with the settings `decoder` has now.
    public init(_ decoder: JSONDecoder) {
        self.decoder = Self.copy(of: decoder)
    }

    /// How dates are decoded. Defaults to `.deferredToDate`.
    public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy {
        get { decoder.dateDecodingStrategy }
        set { unique().dateDecodingStrategy = newValue }
    }

    /// How `Data` values are decoded. Defaults to `.base64`.
    public var dataDecodingStrategy: JSONDecoder.DataDecodingStrategy {
        get { decoder.dataDecodingStrategy }
        set { unique().dataDecodingStrategy = newValue }
    }

    /// How keys are mapped to property names, for example `.convertFromSnakeCase`. Defaults to `.useDefaultKeys`.
    public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy {
        get { decoder.keyDecodingStrategy }
        set { unique().keyDecodingStrategy = newValue }
    }

    /// How non-conforming floating-point values ("NaN", "Infinity") are decoded. Defaults to `.throw`.
    public var nonConformingFloatDecodingStrategy: JSONDecoder.NonConformingFloatDecodingStrategy {
        get { decoder.nonConformingFloatDecodingStrategy }
        set { unique().nonConformingFloatDecodingStrategy = newValue }
    }

    /// Decodes a value of `type` from a JSON body.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder.decode(type, from: data)
    }

    /// The decoder, copied first if another value shares it.
    private mutating func unique() -> JSONDecoder {
        if !isKnownUniquelyReferenced(&decoder) { decoder = Self.copy(of: decoder) }
        return decoder
    }

    private static func copy(of original: JSONDecoder) -> JSONDecoder {
        let copy = JSONDecoder()
        copy.dateDecodingStrategy = original.dateDecodingStrategy
        copy.dataDecodingStrategy = original.dataDecodingStrategy
        copy.keyDecodingStrategy = original.keyDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = original.nonConformingFloatDecodingStrategy
        copy.userInfo = original.userInfo
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            copy.allowsJSON5 = original.allowsJSON5
            copy.assumesTopLevelDictionary = original.assumesTopLevelDictionary
        }
        return copy
    }
}
