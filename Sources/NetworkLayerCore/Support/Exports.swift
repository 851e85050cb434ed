// NetworkLayer's API is made of Foundation types (URL, Data, URLRequest, HTTPURLResponse, URLError, JSONDecoder), so
// `import NetworkLayer` makes them visible: routes, transports and middleware need no other import, on Linux
// (where the networking types live in FoundationNetworking) as on Apple platforms.
@_exported public import Foundation

#if canImport(FoundationNetworking)
    @_exported public import FoundationNetworking
#endif
